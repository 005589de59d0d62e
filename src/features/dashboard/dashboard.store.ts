import { sql } from 'kysely'
import type { Db, Tx } from '../../store/database.ts'
import type { SessionRow } from '../../store/schema.ts'

/**
 * SQL of the dashboard: its login sessions, and the reads behind its screens (usage, ledger,
 * deliveries, work lists). Rules and views live in the *.service.ts files beside it; other
 * features' rows are written only through their own stores.
 */

export const insertSession = (db: Db, row: SessionRow) => db.insertInto('sessions').values(row).execute()

/** A session with its user, by the token's hash. */
export const findSession = (db: Db, idHash: string) =>
  db
    .selectFrom('sessions as s')
    .innerJoin('users as u', 'u.id', 's.user_id')
    .select(['u.id', 'u.email', 'u.role', 'u.account_id', 's.expires_at'])
    .where('s.id_hash', '=', idHash)
    .executeTakeFirst()

export const deleteSession = (db: Db, idHash: string) => db.deleteFrom('sessions').where('id_hash', '=', idHash).execute()

/** Signs a user out everywhere (a password set or changed), but for the session `keepIdHash` when given. */
export const deleteUserSessions = (db: Db | Tx, userId: string, keepIdHash?: string) => {
  let q = db.deleteFrom('sessions').where('user_id', '=', userId)
  if (keepIdHash) q = q.where('id_hash', '!=', keepIdHash)
  return q.execute()
}

export const DAY_MS = 86_400_000

/** Net credits spent per UTC day, key and endpoint since `sinceMs`: debits minus refunds (purchases excluded). */
export async function spendByDay(db: Db, accountId: string, sinceMs: number) {
  // created_at is BIGINT epoch ms: integer division gives the UTC day number on both engines.
  const day = sql<number>`${sql.ref('created_at')} / ${sql.lit(DAY_MS)}`
  const rows = await db
    .selectFrom('ledger')
    .select([day.as('day'), 'key_id', 'endpoint', (eb) => eb.fn.sum<number | string>('amount_mc').as('amount_mc')])
    .where('account_id', '=', accountId)
    .where('created_at', '>=', sinceMs)
    .where('kind', 'in', ['reserve', 'refund', 'charge'])
    .groupBy([day, 'key_id', 'endpoint'])
    .execute()
  // PostgreSQL sums BIGINT into NUMERIC, which pg hands back as a string.
  return rows.map((r) => ({ day: Number(r.day), key_id: r.key_id, endpoint: r.endpoint, spent_mc: -Number(r.amount_mc) }))
}

/** Ledger rows newest first, `before` an id for the next page, with the key's name (revoked keys too). */
export function ledgerPage(db: Db, accountId: string, limit: number, before?: number) {
  let q = db
    .selectFrom('ledger as l')
    .leftJoin('api_keys as k', 'k.id', 'l.key_id')
    .select(['l.id', 'l.kind', 'l.amount_mc', 'l.balance_after_mc', 'l.endpoint', 'l.key_id', 'l.request_id', 'l.created_at', 'k.name as key_name'])
    .where('l.account_id', '=', accountId)
  if (before !== undefined) q = q.where('l.id', '<', before)
  return q.orderBy('l.id', 'desc').limit(limit).execute()
}

/** Credits each of these keys used in `month` (keys without a counter row are absent). */
export const keysMonthUsage = (db: Db, keyIds: string[], month: string) =>
  db
    .selectFrom('usage_counters')
    .select(['scope_id', 'credits_mc'])
    .where('scope', '=', 'key')
    .where('period', '=', month)
    // `in ()` is not valid SQL: an empty list matches no key instead.
    .where('scope_id', 'in', keyIds.length ? keyIds : [''])
    .execute()

/** Every key the account ever had (revoked ones keep their usage history), for chart labels. */
export const accountKeyNames = (db: Db, accountId: string) =>
  db.selectFrom('api_keys').select(['id', 'name', 'revoked_at']).where('account_id', '=', accountId).execute()

/** Live keys a user may bill: their own first (oldest first), then the account's. */
export const liveKeysOf = (db: Db, accountId: string) =>
  db
    .selectFrom('api_keys')
    .select(['id', 'name', 'prefix', 'user_id', 'created_at'])
    .where('account_id', '=', accountId)
    .where('revoked_at', 'is', null)
    .orderBy('created_at', 'asc')
    .orderBy('id', 'asc')
    .execute()

export const recentDeliveries = (db: Db, accountId: string, limit: number) =>
  db
    .selectFrom('webhook_deliveries')
    .select(['id', 'event', 'url', 'status', 'attempts', 'last_status_code', 'last_error', 'created_at', 'delivered_at', 'run_at'])
    .where('account_id', '=', accountId)
    .orderBy('created_at', 'desc')
    .limit(limit)
    .execute()

/** Recent crawls without their (large) result; the list shows progress, the detail call the result. */
export async function recentCrawls(db: Db, accountId: string, limit: number) {
  const rows = await db
    .selectFrom('crawls')
    .select([
      'id',
      'account_id',
      'key_id',
      'request_id',
      'request',
      'status',
      'run_at',
      'lease_owner',
      'lease_expires_at',
      'attempts',
      'cancel_requested',
      'progress',
      'error',
      'credits_reserved_mc',
      'credits_used_mc',
      'webhook_url',
      'webhook_delivery_id',
      'created_at',
      'started_at',
      'completed_at',
      'expires_at',
    ])
    .where('account_id', '=', accountId)
    .orderBy('created_at', 'desc')
    .limit(limit)
    .execute()
  return rows.map((r) => ({ ...r, result: null }))
}

/** Recent batch jobs without their results. */
export async function recentBatchJobs(db: Db, accountId: string, limit: number) {
  const rows = await db
    .selectFrom('batch_jobs')
    .select([
      'id',
      'batch_id',
      'account_id',
      'key_id',
      'request_id',
      'endpoint',
      'request',
      'status',
      'run_at',
      'lease_owner',
      'lease_expires_at',
      'attempts',
      'error',
      'credits_charged_mc',
      'credits_used_mc',
      'webhook_url',
      'webhook_delivery_id',
      'created_at',
      'completed_at',
      'expires_at',
    ])
    .where('account_id', '=', accountId)
    .orderBy('created_at', 'desc')
    .limit(limit)
    .execute()
  return rows.map((r) => ({ ...r, result: null }))
}
