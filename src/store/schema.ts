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
}

export interface AccountRow {
  id: string
  /** The rate plan: raised by the largest pack ever bought, never lowered by a purchase (SPEC Limits). */
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
 * One signed webhook (crawl.completed, batch.completed, monitor.results) and its attempts. A leased
 * work row (jobs/lease.ts): 'queued' waits for `run_at`, 'running' is an attempt in flight, then
 * 'delivered' or 'failed'. `id` is the X-Trawl-Delivery id, the same on every retry.
 */
export interface WebhookDeliveryRow {
  id: string
  account_id: string
  event: 'crawl.completed' | 'batch.completed' | 'monitor.results'
  url: string
  /** The exact body sent on every attempt (JSON text): signatures cover these bytes. */
  payload: string
  status: 'queued' | 'running' | 'delivered' | 'failed'
  run_at: number
  lease_owner: string | null
  lease_expires_at: number | null
  attempts: number
  last_error: string | null
  last_status_code: number | null
  created_at: number
  delivered_at: number | null
}

/** An asynchronous crawl: a leased work row (jobs/lease.ts) with its request, progress and result. */
export interface CrawlRow {
  id: string
  account_id: string
  key_id: string
  request_id: string
  /** The normalised request, JSON. */
  request: string
  status: 'queued' | 'running' | 'completed' | 'failed' | 'canceled'
  run_at: number
  lease_owner: string | null
  lease_expires_at: number | null
  attempts: number
  cancel_requested: number
  progress: string | null
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

export interface CrawlPageRow {
  crawl_id: string
  url_key: string
  charged_mc: number
}

export interface ServerSecretRow {
  name: string
  value: string
  created_at: number
}
