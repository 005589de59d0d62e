import type { Db, Tx } from '../../store/database.ts'
import type { LedgerRow, ReservationRow, UsageCounterRow } from '../../store/schema.ts'

type Scope = UsageCounterRow['scope']

/**
 * Takes the account's write lock for the rest of the transaction and returns the row. An UPDATE
 * first locks the row on PostgreSQL and takes SQLite's database write lock, so concurrent debits of
 * one account run one after another on both engines (no read-then-write race).
 */
export function lockAccount(tx: Tx, accountId: string) {
  return tx
    .updateTable('accounts')
    .set((eb) => ({ balance_mc: eb.ref('balance_mc') }))
    .where('id', '=', accountId)
    .returningAll()
    .executeTakeFirst()
}

export async function moveBalance(
  tx: Tx,
  accountId: string,
  amountMc: number,
  entry: Pick<LedgerRow, 'kind' | 'key_id' | 'request_id' | 'endpoint'>,
  now: number,
) {
  const row = await tx
    .updateTable('accounts')
    .set((eb) => ({ balance_mc: eb('balance_mc', '+', amountMc) }))
    .where('id', '=', accountId)
    .returning('balance_mc')
    .executeTakeFirstOrThrow()
  await tx
    .insertInto('ledger')
    .values({ account_id: accountId, amount_mc: amountMc, balance_after_mc: row.balance_mc, created_at: now, ...entry })
    .execute()
  return row.balance_mc
}

export const recordPurchase = (tx: Tx, accountId: string, amountMc: number, now: number) =>
  moveBalance(tx, accountId, amountMc, { kind: 'purchase', key_id: null, request_id: null, endpoint: null }, now)

export const findCounter = (db: Db | Tx, scope: Scope, scopeId: string, period: string) =>
  db.selectFrom('usage_counters').selectAll().where('scope', '=', scope).where('scope_id', '=', scopeId).where('period', '=', period).executeTakeFirst()

/** Adds to several counters in one statement (a billed call moves three: key, account, account day). */
export async function bumpCounters(tx: Tx, counters: Pick<UsageCounterRow, 'scope' | 'scope_id' | 'period'>[], creditsMc: number, requests: number) {
  await tx
    .insertInto('usage_counters')
    .values(counters.map((c) => ({ ...c, credits_mc: creditsMc, requests })))
    .onConflict((oc) =>
      oc.columns(['scope', 'scope_id', 'period']).doUpdateSet((eb) => ({
        credits_mc: eb('usage_counters.credits_mc', '+', eb.ref('excluded.credits_mc')),
        requests: eb('usage_counters.requests', '+', eb.ref('excluded.requests')),
      })),
    )
    .execute()
}

export const insertReservation = (tx: Tx, row: ReservationRow) => tx.insertInto('reservations').values(row).execute()

/** Deletes the reservation and reports whether this call was the one that removed it. */
export async function takeReservation(tx: Tx, id: string) {
  const result = await tx.deleteFrom('reservations').where('id', '=', id).executeTakeFirst()
  return Number(result.numDeletedRows) === 1
}

export const staleReservations = (db: Db, olderThan: number) =>
  db.selectFrom('reservations').selectAll().where('created_at', '<', olderThan).limit(500).execute()
