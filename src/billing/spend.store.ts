import { sql } from 'kysely'
import type { Db } from '../store/database.ts'

/**
 * Reads of what accounts and keys spent, for the screens that show it (the dashboard's usage and
 * keys, Tavily's /usage). The ledger and the usage counters are written by credits.store.ts.
 */

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

/** Ledger rows newest first, `before` an id for the next page. */
export function ledgerPage(db: Db, accountId: string, limit: number, before?: number) {
  let q = db
    .selectFrom('ledger')
    .select(['id', 'kind', 'amount_mc', 'balance_after_mc', 'endpoint', 'key_id', 'request_id', 'created_at'])
    .where('account_id', '=', accountId)
  if (before !== undefined) q = q.where('id', '<', before)
  return q.orderBy('id', 'desc').limit(limit).execute()
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
