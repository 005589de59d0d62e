import type { Generated } from 'kysely'

/**
 * Table types for Kysely. Portable on purpose: times are epoch milliseconds and money is integer
 * millicredits (1 credit = 1000) in BIGINT columns, flags are 0/1 integers and JSON is text, so the
 * same query code runs on SQLite and PostgreSQL and no float ever touches a balance.
 */
export interface Tables {
  accounts: AccountRow
  users: UserRow
  api_keys: ApiKeyRow
  usage_counters: UsageCounterRow
  ledger: LedgerRow
  cache_entries: CacheEntryRow
  reservations: ReservationRow
  sessions: SessionRow
  webhook_deliveries: WebhookDeliveryRow
  crawls: CrawlRow
  crawl_pages: CrawlPageRow
  server_secrets: ServerSecretRow
  batch_jobs: BatchJobRow
  monitors: MonitorRow
  monitor_runs: MonitorRunRow
  monitor_seen: MonitorSeenRow
  login_attempts: LoginAttemptRow
  engine_passes: EnginePassRow
  research_jobs: ResearchJobRow
  signup_pending: SignupPendingRow
}

export interface AccountRow {
  id: string
  /** The rate plan: raised by the largest pack ever bought, never lowered by a purchase. */
  plan: string
  balance_mc: number
  rate_limit_rps: number | null
  monthly_spend_cap_mc: number | null
  daily_limit_mc: number | null
  member_key_limit_mc: number | null
  webhook_url: string | null
  webhook_secret: string | null
  created_at: number
}

export interface UserRow {
  id: string
  account_id: string
  email: string
  role: 'owner' | 'member'
  password_hash: string | null
  created_at: number
}

export interface ApiKeyRow {
  id: string
  account_id: string
  user_id: string
  name: string
  prefix: string
  secret_hash: string
  credit_limit_mc: number | null
  allow_fallback: number
  created_at: number
  last_used_at: number | null
  revoked_at: number | null
}

/** Running totals per scope and period, e.g. ('key', id, '2026-11') or ('account_day', id, '2026-11-21'). */
export interface UsageCounterRow {
  scope: 'key' | 'account' | 'account_day'
  scope_id: string
  period: string
  credits_mc: number
  requests: number
}

/** One row per balance movement; `SUM(amount_mc)` over an account equals its balance. */
export interface LedgerRow {
  id: Generated<number>
  account_id: string
  key_id: string | null
  request_id: string | null
  kind: 'purchase' | 'reserve' | 'refund' | 'charge'
  amount_mc: number
  balance_after_mc: number
  endpoint: string | null
  created_at: number
}

export interface CacheEntryRow {
  key: string
  value: string
  stored_at: number
  expires_at: number
}

/**
 * Credits held for a realtime request in flight. Deleted when the request settles; one left behind
 * by a crash is refunded in full by the sweeper, so no debit is ever left unmatched.
 */
export interface ReservationRow {
  id: string
  account_id: string
  key_id: string
  amount_mc: number
  request_id: string
  endpoint: string
  period_month: string
  period_day: string
  created_at: number
}

/** A dashboard login; the cookie holds the token, the table only its SHA-256. */
export interface SessionRow {
  id_hash: string
  user_id: string
  created_at: number
  expires_at: number
}

/**
 * What jobs/jobs.store.ts claims and leases a background row by: 'queued' waits for `run_at`,
 * 'running' is held by `lease_owner` until `lease_expires_at`; `attempts` counts the claims.
 */
export interface LeaseColumns<Status extends string> {
  status: Status
  run_at: number
  lease_owner: string | null
  lease_expires_at: number | null
  attempts: number
}

/**
 * One signed webhook (crawl.completed, batch.completed, monitor.results) and its attempts. A leased
 * work row (jobs/jobs.store.ts): 'queued' waits for `run_at`, 'running' is an attempt in flight, then
 * 'delivered' or 'failed'. `id` is the X-Trawl-Delivery id, the same on every retry.
 */
export interface WebhookDeliveryRow extends LeaseColumns<'queued' | 'running' | 'delivered' | 'failed'> {
  id: string
  account_id: string
  event: 'crawl.completed' | 'batch.completed' | 'monitor.results' | 'research.completed' | 'webhook.test'
  url: string
  /** The exact body sent on every attempt (JSON text): signatures cover these bytes. */
  payload: string
  last_error: string | null
  last_status_code: number | null
  created_at: number
  delivered_at: number | null
  /** The request whose work queued it (the crawl's or batch's creating call; null for monitors): for log lines. */
  request_id: string | null
}

/**
 * A job paid for with a hold when it is queued (crawls, research): a leased work row that can be
 * canceled, whose end refunds what it held and did not use.
 */
export interface HeldJobRow extends LeaseColumns<'queued' | 'running' | 'completed' | 'failed' | 'canceled'> {
  id: string
  account_id: string
  key_id: string
  request_id: string
  /** The normalised request, JSON. */
  request: string
  cancel_requested: number
  /** What it found, once completed (JSON). */
  result: string | null
  error: string | null
  credits_reserved_mc: number
  credits_used_mc: number
  webhook_url: string | null
  webhook_delivery_id: string | null
  created_at: number
  started_at: number | null
  completed_at: number | null
  /** completed_at + 24 h: GET answers 404 after it. */
  expires_at: number | null
}

/** An asynchronous crawl, with its progress. */
export interface CrawlRow extends HeldJobRow {
  progress: string | null
}

export interface CrawlPageRow {
  crawl_id: string
  url_key: string
  charged_mc: number
  /** The page as the result lists it (JSON); null for rows written before 0008. */
  page: string | null
  /** Its place in the result. */
  seq: number | null
}

export interface ServerSecretRow {
  name: string
  value: string
  created_at: number
}

/**
 * One job of a batch (docs/batches.md): a leased work row (jobs/runner.ts). Half the realtime
 * price is charged when it is queued; the job's end refunds what it did not use, in the same
 * transaction that records the result.
 */
export interface BatchJobRow extends LeaseColumns<'queued' | 'running' | 'done' | 'failed'> {
  id: string
  batch_id: string
  account_id: string
  key_id: string
  request_id: string
  /** search, images, …, webpage */
  endpoint: string
  /** The realtime request as validated at POST (JSON), parameters exactly as the caller sent them. */
  request: string
  result: string | null
  error: string | null
  credits_charged_mc: number
  credits_used_mc: number
  webhook_url: string | null
  webhook_delivery_id: string | null
  created_at: number
  completed_at: number | null
  /** completed_at + 24 h: GET answers 404 after it. */
  expires_at: number | null
}

/**
 * A saved search or watched page (docs/monitors.md), also its own scheduled work row: 'queued' with
 * `run_at` = the next run, 'running' while a worker holds it, 'paused' when inactive.
 */
export interface MonitorRow extends LeaseColumns<'queued' | 'running' | 'paused'> {
  id: string
  account_id: string
  /** The key runs are billed on: the one that created it, or last changed or ran it. */
  key_id: string
  name: string | null
  endpoint: 'search' | 'news' | 'webpage'
  /** The saved search (q and options) or the watched url, normalised (JSON). */
  request: string
  metadata: string | null
  interval_seconds: number
  webhook_url: string | null
  last_run_at: number | null
  last_status: 'ok' | 'error' | 'webhook_failed' | 'paused' | null
  last_error: string | null
  last_new_results: number
  runs: number
  consecutive_failures: number
  credits_used_mc: number
  /** Bumped when the saved search changes: links seen under an older baseline do not count. */
  baseline: number
  /** Webpage monitors: SHA-256 of the page's Markdown at the last run. */
  content_hash: string | null
  created_at: number
  updated_at: number
}

/** One run of a monitor; the id is `<monitor id>:<due time>`, so a due run is recorded once whoever runs it. */
export interface MonitorRunRow {
  id: string
  monitor_id: string
  account_id: string
  due_at: number
  started_at: number
  completed_at: number
  status: 'ok' | 'error'
  first_run: number
  new_count: number
  /** The new results (JSON); kept 24 hours. */
  results: string | null
  error: string | null
  credits_used_mc: number
  webhook_delivery_id: string | null
  expires_at: number
}

/** Novelty detection keeps only hashes of links already reported (docs/monitors.md). */
export interface MonitorSeenRow {
  monitor_id: string
  baseline: number
  link_hash: string
}

/**
 * Dashboard sign-in attempts taken in the current window, per email (its SHA-256) or per client
 * address, when there is no Redis (features/dashboard/login-throttle.ts).
 */
export interface LoginAttemptRow {
  /** 'email' | 'ip' (sign-in budgets) | 'signup-email' | 'signup-ip' */
  scope: string
  key: string
  attempts: number
  /** Epoch ms when the window ends and the count starts again from 0. */
  resets_at: number
}

export interface EnginePassRow {
  /** The engine session: `<site>|<direct or proxy host>` (engines/upstream/engine-session.ts). */
  session: string
  /** The session's cookie jar as tough-cookie serialises it (JSON). */
  cookies: string
  /** Epoch ms when the pass was earned. */
  updated_at: number
  /** Epoch ms when its last cookie expires; the row is ignored, then deleted, after it. */
  expires_at: number
}

/** A research job (POST /v1/research), with what it found so far. */
export interface ResearchJobRow extends HeldJobRow {
  /** The steps taken so far (JSON array), written as each ends: the events stream reads them. */
  steps: string
  /** Every passage used, numbered across sub-queries (JSON array); kept when the job fails. */
  sources: string
  /** Model calls and tokens, searches, pages and passage tokens so far (JSON). */
  meta: string
}

/**
 * A sign-up waiting for its email to be proven (TRAWL_SIGNUP_VERIFY_URL): the account is made when
 * the link is opened (features/dashboard/signup-verify.ts). One row per email; the newest wins.
 */
export interface SignupPendingRow {
  email: string
  /** SHA-256 of the link's token (hex): the token itself is only in the email. */
  token_hash: string
  password_hash: string
  created_at: number
  expires_at: number
}
