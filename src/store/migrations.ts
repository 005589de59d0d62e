import { type CreateTableBuilder, type Kysely, type Migration, type MigrationProvider, Migrator } from 'kysely'
import type { Dialect } from './database.ts'

/**
 * One ordered list for both engines, written with Kysely's schema builder. Where the engines differ
 * (auto-increment ids), the migration branches on the dialect; everything else is portable by design.
 * The helpers below spell the columns several tables share; migrations that ran must keep making
 * the same schema, so a helper is never changed: a new column is a new migration.
 */
function migrations(dialect: Dialect): Record<string, Migration> {
  const up = (migrate: (db: Kysely<any>, dialect: Dialect) => Promise<void>): Migration => ({ up: (db) => migrate(db, dialect) })
  return {
    '0001_accounts_keys_billing': up(accountsKeysBilling),
    '0002_webhook_deliveries': up(webhookDeliveries),
    '0003_crawls': up(crawls),
    '0004_server_secrets': up(serverSecrets),
    '0005_batches_monitors': up(batchesMonitors),
    '0006_dashboard_indexes': up(dashboardIndexes),
    '0007_webhook_request_id': up(webhookRequestId),
    '0008_crawl_page_content': up(crawlPageContent),
    '0009_batch_jobs_batch': up(batchJobsBatch),
    '0010_login_attempts': up(loginAttempts),
    '0011_engine_passes': up(enginePasses),
    '0012_research_jobs': up(researchJobs),
    '0013_signup_pending': up(signupPending),
  }
}

type Table = CreateTableBuilder<string, string>

/** A row of one account: its own id, then the account's. */
const accountRow = (t: Table) => t.addColumn('id', 'text', (c) => c.primaryKey()).addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))

/** The call that queued a job: the key billed, its request id, and the normalised request (JSON). */
const requestColumns = (t: Table) =>
  t
    .addColumn('key_id', 'text', (c) => c.notNull())
    .addColumn('request_id', 'text', (c) => c.notNull())
    .addColumn('request', 'text', (c) => c.notNull())

/** What jobs/jobs.store.ts claims and leases a background row by. */
const leaseColumns = (t: Table) =>
  t
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('run_at', 'bigint', (c) => c.notNull())
    .addColumn('lease_owner', 'text')
    .addColumn('lease_expires_at', 'bigint')
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))

/** How a paid job ends: its result or error, what was paid up front (`paid`) and used, and its webhook. */
const outcomeColumns = (paid: string) => (t: Table) =>
  t
    .addColumn('result', 'text')
    .addColumn('error', 'text')
    .addColumn(paid, 'bigint', (c) => c.notNull())
    .addColumn('credits_used_mc', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('webhook_url', 'text')
    .addColumn('webhook_delivery_id', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())

/** A job queued with a hold that its end settles (crawls, research): cancelable, `own` its progress columns. */
const createHeldJobTable = (db: Kysely<any>, table: string, own: (t: Table) => Table) =>
  db.schema
    .createTable(table)
    .$call(accountRow)
    .$call(requestColumns)
    .$call(leaseColumns)
    .addColumn('cancel_requested', 'integer', (c) => c.notNull().defaultTo(0))
    .$call(own)
    .$call(outcomeColumns('credits_reserved_mc'))
    .addColumn('started_at', 'bigint')
    .addColumn('completed_at', 'bigint')
    .addColumn('expires_at', 'bigint')
    .execute()

/** The claim's scan (queued rows by due time, running ones whose lease may have expired) and an account's active jobs. */
async function createJobIndexes(db: Kysely<any>, table: string) {
  await db.schema.createIndex(`${table}_due`).on(table).columns(['status', 'run_at']).execute()
  await db.schema.createIndex(`${table}_account`).on(table).columns(['account_id', 'status']).execute()
}

async function accountsKeysBilling(db: Kysely<any>, dialect: Dialect) {
  const autoId = (col: any) => (dialect === 'postgres' ? col : col.autoIncrement())
  await db.schema
    .createTable('accounts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('plan', 'text', (c) => c.notNull())
    .addColumn('balance_mc', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('rate_limit_rps', 'integer')
    .addColumn('monthly_spend_cap_mc', 'bigint')
    .addColumn('daily_limit_mc', 'bigint')
    .addColumn('member_key_limit_mc', 'bigint')
    .addColumn('webhook_url', 'text')
    .addColumn('webhook_secret', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute()
  await db.schema
    .createTable('users')
    .$call(accountRow)
    .addColumn('email', 'text', (c) => c.notNull().unique())
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('password_hash', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute()
  await db.schema.createIndex('users_account').on('users').column('account_id').execute()
  await db.schema
    .createTable('api_keys')
    .$call(accountRow)
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('prefix', 'text', (c) => c.notNull())
    .addColumn('secret_hash', 'text', (c) => c.notNull().unique())
    .addColumn('credit_limit_mc', 'bigint')
    .addColumn('allow_fallback', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('last_used_at', 'bigint')
    .addColumn('revoked_at', 'bigint')
    .execute()
  await db.schema.createIndex('api_keys_account').on('api_keys').column('account_id').execute()
  await db.schema
    .createTable('usage_counters')
    .addColumn('scope', 'text', (c) => c.notNull())
    .addColumn('scope_id', 'text', (c) => c.notNull())
    .addColumn('period', 'text', (c) => c.notNull())
    .addColumn('credits_mc', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('requests', 'bigint', (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('usage_counters_pk', ['scope', 'scope_id', 'period'])
    .execute()
  await db.schema
    .createTable('ledger')
    .addColumn('id', dialect === 'postgres' ? 'bigserial' : 'integer', (c) => autoId(c.primaryKey()))
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('key_id', 'text')
    .addColumn('request_id', 'text')
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('amount_mc', 'bigint', (c) => c.notNull())
    .addColumn('balance_after_mc', 'bigint', (c) => c.notNull())
    .addColumn('endpoint', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute()
  await db.schema.createIndex('ledger_account').on('ledger').columns(['account_id', 'id']).execute()
  await db.schema
    .createTable('cache_entries')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('value', 'text', (c) => c.notNull())
    .addColumn('stored_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .execute()
  await db.schema.createIndex('cache_entries_expiry').on('cache_entries').column('expires_at').execute()
  await db.schema
    .createTable('reservations')
    .$call(accountRow)
    .addColumn('key_id', 'text', (c) => c.notNull())
    .addColumn('amount_mc', 'bigint', (c) => c.notNull())
    .addColumn('request_id', 'text', (c) => c.notNull())
    .addColumn('endpoint', 'text', (c) => c.notNull())
    .addColumn('period_month', 'text', (c) => c.notNull())
    .addColumn('period_day', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute()
  await db.schema.createIndex('reservations_age').on('reservations').column('created_at').execute()
  await db.schema
    .createTable('sessions')
    .addColumn('id_hash', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id'))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .execute()
}

async function webhookDeliveries(db: Kysely<any>) {
  await db.schema
    .createTable('webhook_deliveries')
    .$call(accountRow)
    .addColumn('event', 'text', (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .$call(leaseColumns)
    .addColumn('last_error', 'text')
    .addColumn('last_status_code', 'integer')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('delivered_at', 'bigint')
    .execute()
  // claimDue's scan: queued rows by due time, and running rows whose lease may have expired.
  await db.schema.createIndex('webhook_deliveries_due').on('webhook_deliveries').columns(['status', 'run_at']).execute()
}

async function crawls(db: Kysely<any>) {
  await createHeldJobTable(db, 'crawls', (t) => t.addColumn('progress', 'text'))
  await createJobIndexes(db, 'crawls')
  // Pages already paid for: a crawl restarted after a crash reads them again for free.
  await db.schema
    .createTable('crawl_pages')
    .addColumn('crawl_id', 'text', (c) => c.notNull())
    .addColumn('url_key', 'text', (c) => c.notNull())
    .addColumn('charged_mc', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('crawl_pages_pk', ['crawl_id', 'url_key'])
    .execute()
}

/** Secrets every process of one installation must share (page-token signing), made once. */
async function serverSecrets(db: Kysely<any>) {
  await db.schema
    .createTable('server_secrets')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('value', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute()
}

async function batchesMonitors(db: Kysely<any>) {
  await db.schema
    .createTable('batch_jobs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('batch_id', 'text', (c) => c.notNull())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('key_id', 'text', (c) => c.notNull())
    .addColumn('request_id', 'text', (c) => c.notNull())
    .addColumn('endpoint', 'text', (c) => c.notNull())
    .addColumn('request', 'text', (c) => c.notNull())
    .$call(leaseColumns)
    .$call(outcomeColumns('credits_charged_mc'))
    .addColumn('completed_at', 'bigint')
    .addColumn('expires_at', 'bigint')
    .execute()
  await createJobIndexes(db, 'batch_jobs')
  await db.schema
    .createTable('monitors')
    .$call(accountRow)
    .addColumn('key_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text')
    .addColumn('endpoint', 'text', (c) => c.notNull())
    .addColumn('request', 'text', (c) => c.notNull())
    .addColumn('metadata', 'text')
    .addColumn('interval_seconds', 'integer', (c) => c.notNull())
    .addColumn('webhook_url', 'text')
    .$call(leaseColumns)
    .addColumn('last_run_at', 'bigint')
    .addColumn('last_status', 'text')
    .addColumn('last_error', 'text')
    .addColumn('last_new_results', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('runs', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('consecutive_failures', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('credits_used_mc', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('baseline', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('content_hash', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute()
  await db.schema.createIndex('monitors_due').on('monitors').columns(['status', 'run_at']).execute()
  await db.schema.createIndex('monitors_account').on('monitors').columns(['account_id']).execute()
  await db.schema
    .createTable('monitor_runs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('monitor_id', 'text', (c) => c.notNull())
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('due_at', 'bigint', (c) => c.notNull())
    .addColumn('started_at', 'bigint', (c) => c.notNull())
    .addColumn('completed_at', 'bigint', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('first_run', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('new_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('results', 'text')
    .addColumn('error', 'text')
    .addColumn('credits_used_mc', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('webhook_delivery_id', 'text')
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .execute()
  await db.schema.createIndex('monitor_runs_monitor').on('monitor_runs').columns(['monitor_id', 'due_at']).execute()
  await db.schema
    .createTable('monitor_seen')
    .addColumn('monitor_id', 'text', (c) => c.notNull())
    .addColumn('baseline', 'integer', (c) => c.notNull())
    .addColumn('link_hash', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('monitor_seen_pk', ['monitor_id', 'baseline', 'link_hash'])
    .execute()
}

/** The dashboard's lists and charts read an account's recent rows by time (docs/dashboard.md). */
async function dashboardIndexes(db: Kysely<any>) {
  await db.schema.createIndex('ledger_account_time').on('ledger').columns(['account_id', 'created_at']).execute()
  await db.schema.createIndex('webhook_deliveries_account').on('webhook_deliveries').columns(['account_id', 'created_at']).execute()
  await db.schema.createIndex('crawls_account_time').on('crawls').columns(['account_id', 'created_at']).execute()
  await db.schema.createIndex('batch_jobs_account_time').on('batch_jobs').columns(['account_id', 'created_at']).execute()
}

/** A delivery's log lines name the request whose work queued it, as crawls and batch jobs do. */
async function webhookRequestId(db: Kysely<any>) {
  await db.schema.alterTable('webhook_deliveries').addColumn('request_id', 'text').execute()
}

/**
 * A crawl writes each page to the store as it is read (its JSON and its place in the result)
 * instead of holding every page until the crawl ends (docs/crawl.md "Memory").
 */
async function crawlPageContent(db: Kysely<any>) {
  await db.schema.alterTable('crawl_pages').addColumn('page', 'text').execute()
  await db.schema.alterTable('crawl_pages').addColumn('seq', 'integer').execute()
  // A result is read back in order, a batch at a time (crawl.store.ts crawlPageBatches).
  await db.schema.createIndex('crawl_pages_order').on('crawl_pages').columns(['crawl_id', 'seq', 'url_key']).execute()
}

/**
 * A job that ends reads its batch's other jobs: when none used anything, the batch's one charge
 * was refunded whole and stops counting as a request (batches.worker.ts).
 */
async function batchJobsBatch(db: Kysely<any>) {
  await db.schema.createIndex('batch_jobs_batch').on('batch_jobs').columns(['batch_id']).execute()
}

/**
 * Dashboard sign-in attempts per email and per client address, taken before the password is
 * checked, when there is no Redis (features/dashboard/login-throttle.ts).
 */
async function loginAttempts(db: Kysely<any>) {
  await db.schema
    .createTable('login_attempts')
    .addColumn('scope', 'text', (c) => c.notNull())
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull())
    .addColumn('resets_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('login_attempts_pk', ['scope', 'key'])
    .execute()
  await db.schema.createIndex('login_attempts_resets').on('login_attempts').columns(['resets_at']).execute()
}

/**
 * Cookies earned at engines' proof-of-work gates, shared by every process so that a deployment
 * solves a challenge once (engines/gates/gate-pass.store.ts).
 */
async function enginePasses(db: Kysely<any>) {
  await db.schema
    .createTable('engine_passes')
    .addColumn('session', 'text', (c) => c.primaryKey())
    .addColumn('cookies', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .execute()
}

/**
 * POST /v1/research: a leased job row whose steps, sources and model usage are written as it goes,
 * so a restarted job resumes where it was and pays for nothing twice.
 */
async function researchJobs(db: Kysely<any>) {
  await createHeldJobTable(db, 'research_jobs', (t) =>
    t
      .addColumn('steps', 'text', (c) => c.notNull())
      .addColumn('sources', 'text', (c) => c.notNull())
      .addColumn('meta', 'text', (c) => c.notNull()),
  )
  await createJobIndexes(db, 'research_jobs')
  await db.schema.createIndex('research_jobs_expires').on('research_jobs').columns(['expires_at']).execute()
}

/** Sign-ups waiting for their email to be proven (features/dashboard/signup-verify.ts). */
async function signupPending(db: Kysely<any>) {
  await db.schema
    .createTable('signup_pending')
    .addColumn('email', 'text', (c) => c.primaryKey())
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('password_hash', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .execute()
}

/** Applies every pending migration; safe to call at every start and from several processes. */
export async function migrateToLatest(db: Kysely<any>, dialect: Dialect): Promise<string[]> {
  const list = migrations(dialect)
  const provider: MigrationProvider = { getMigrations: async () => list }
  const migrator = new Migrator({ db, provider })
  const { error, results } = await migrator.migrateToLatest()
  if (error) throw error
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName)
}
