import type SqliteDatabase from 'better-sqlite3'
import type { Db, Tx } from '../store/database.ts'
import type { Batch } from '../store/group-commit.ts'
import type { AccountRow, LedgerRow, ReservationRow, UsageCounterRow } from '../store/schema.ts'

type Scope = UsageCounterRow['scope']

/** The account's balance, millicredits; null for an unknown account. */
export async function readBalance(db: Db, accountId: string): Promise<number | null> {
  const row = await db.selectFrom('accounts').select('balance_mc').where('id', '=', accountId).executeTakeFirst()
  return row?.balance_mc ?? null
}

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

/**
 * The SQLite group-commit path (credits.service): the same reads and writes as above, for one batch
 * of calls (store/group-commit.ts). BEGIN IMMEDIATE holds the database write lock for the whole
 * batch, so nothing else can change an account or a counter meanwhile: each account and counter is
 * read once per batch and then followed in memory, every call writes only its own rows (ledger,
 * reservation), and the balances and usage counters the batch moved are written once, just before
 * its COMMIT. Memory moves only after a call's last statement succeeded, so a call rolled back to
 * its savepoint leaves no trace in the running totals either.
 */
type AccountState = Pick<AccountRow, 'balance_mc' | 'monthly_spend_cap_mc' | 'daily_limit_mc'>

export interface BatchLedger {
  /** The account as this batch has left it so far. */
  account(id: string): AccountState | undefined
  counterMc(scope: Scope, scopeId: string, period: string): number
  /** Writes the ledger row now; the balance is written before COMMIT. Returns the balance after. */
  moveBalance(accountId: string, amountMc: number, entry: Pick<LedgerRow, 'kind' | 'key_id' | 'request_id' | 'endpoint'>, now: number): number
  /** Counted now, written before COMMIT; call it after the call's last statement. */
  bumpCounters(counters: Pick<UsageCounterRow, 'scope' | 'scope_id' | 'period'>[], creditsMc: number, requests: number): void
  insertReservation(row: ReservationRow): void
  takeReservation(id: string): boolean
}

type Statements = ReturnType<typeof prepareLedger>
const prepared = new WeakMap<SqliteDatabase.Database, Statements>()
const open = new WeakMap<Batch, BatchLedger>()

function prepareLedger(raw: SqliteDatabase.Database) {
  return {
    account: raw.prepare('select balance_mc, monthly_spend_cap_mc, daily_limit_mc from accounts where id = ?'),
    counter: raw.prepare('select credits_mc from usage_counters where scope = ? and scope_id = ? and period = ?').pluck(),
    balance: raw.prepare('update accounts set balance_mc = ? where id = ?'),
    entry: raw.prepare(
      'insert into ledger (account_id, amount_mc, balance_after_mc, created_at, kind, key_id, request_id, endpoint) values (?, ?, ?, ?, ?, ?, ?, ?)',
    ),
    reservation: raw.prepare(
      'insert into reservations (id, account_id, key_id, amount_mc, request_id, endpoint, period_month, period_day, created_at) values (?, ?, ?, ?, ?, ?, ?, ?, ?)',
    ),
    take: raw.prepare('delete from reservations where id = ?'),
    bump: raw.prepare(
      'insert into usage_counters (scope, scope_id, period, credits_mc, requests) values (?, ?, ?, ?, ?) on conflict (scope, scope_id, period) do update set credits_mc = usage_counters.credits_mc + excluded.credits_mc, requests = usage_counters.requests + excluded.requests',
    ),
  }
}

/** The ledger of one group-commit batch; the same object for every call of that batch. */
export function batchLedger(raw: SqliteDatabase.Database, batch: Batch): BatchLedger {
  let ledger = open.get(batch)
  if (ledger) return ledger
  let sql = prepared.get(raw)
  if (!sql) {
    sql = prepareLedger(raw)
    prepared.set(raw, sql)
  }
  const q = sql
  const accounts = new Map<string, AccountState & { moved: boolean }>()
  // storedMc: the counter as the database has it, read only when a limit check asks (most debits
  // check no limit); the batch's own additions are written once, before COMMIT, as one upsert each.
  const counters = new Map<string, { scope: Scope; scopeId: string; period: string; storedMc: number | null; addMc: number; addRequests: number }>()
  const counterOf = (scope: Scope, scopeId: string, period: string) => {
    const key = `${scope}\u0000${scopeId}\u0000${period}`
    let counter = counters.get(key)
    if (!counter) {
      counter = { scope, scopeId, period, storedMc: null, addMc: 0, addRequests: 0 }
      counters.set(key, counter)
    }
    return counter
  }
  const accountOf = (id: string) => {
    let account = accounts.get(id)
    if (!account) {
      const row = q.account.get(id) as AccountState | undefined
      if (!row) return undefined
      account = { ...row, moved: false }
      accounts.set(id, account)
    }
    return account
  }
  batch.beforeCommit('credits.ledger', () => {
    for (const [id, account] of accounts) if (account.moved) q.balance.run(account.balance_mc, id)
    for (const c of counters.values()) if (c.addMc !== 0 || c.addRequests !== 0) q.bump.run(c.scope, c.scopeId, c.period, c.addMc, c.addRequests)
  })
  ledger = {
    account: accountOf,
    counterMc(scope, scopeId, period) {
      const counter = counterOf(scope, scopeId, period)
      counter.storedMc ??= Number(q.counter.get(scope, scopeId, period) ?? 0)
      return counter.storedMc + counter.addMc
    },
    moveBalance(accountId, amountMc, e, now) {
      const account = accountOf(accountId)
      if (!account) throw new Error(`account ${accountId} vanished while its balance moved`)
      const after = account.balance_mc + amountMc
      q.entry.run(accountId, amountMc, after, now, e.kind, e.key_id, e.request_id, e.endpoint)
      account.balance_mc = after
      account.moved = true
      return after
    },
    bumpCounters(list, creditsMc, requests) {
      for (const c of list) {
        const counter = counterOf(c.scope, c.scope_id, c.period)
        counter.addMc += creditsMc
        counter.addRequests += requests
      }
    },
    insertReservation(r) {
      q.reservation.run(r.id, r.account_id, r.key_id, r.amount_mc, r.request_id, r.endpoint, r.period_month, r.period_day, r.created_at)
    },
    takeReservation: (id) => q.take.run(id).changes === 1,
  }
  open.set(batch, ledger)
  return ledger
}
