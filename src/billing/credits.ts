import { randomUUID } from 'node:crypto'
import { ApiError } from '../errors.ts'
import type { AuthContext } from '../http/auth.ts'
import { metrics } from '../metrics/metrics.ts'
import type { Store, Tx } from '../store/database.ts'
import type { ReservationRow } from '../store/schema.ts'
import { batchLedger, bumpCounters, findCounter, insertReservation, lockAccount, moveBalance, staleReservations, takeReservation } from './credits.store.ts'
import { periods, toCredits } from './money.ts'

export interface Payer {
  accountId: string
  keyId: string
  keyLimitMc: number | null
}

/** Who pays for a call made with an API key: its account, within the key's own monthly limit. */
export const payerOf = (auth: AuthContext): Payer => ({ accountId: auth.accountId, keyId: auth.keyId, keyLimitMc: auth.keyLimitMc })

export interface Reservation {
  id: string
  payer: Payer
  amountMc: number
  requestId: string
  endpoint: string
  month: string
  day: string
}

const fmt = (mc: number) => String(toCredits(mc))

/**
 * Holds `amountMc` before any work starts. Every limit is checked against what is already spent plus
 * what is held by calls in flight, under the account's write lock, so concurrent calls can never
 * overdraw the balance, a key's monthly limit, the spend cap or the daily limit.
 */
export async function reserve(store: Store, payer: Payer, amountMc: number, requestId: string, endpoint: string): Promise<Reservation> {
  const r = await debit(store, payer, amountMc, requestId, endpoint, true)
  metrics.creditsDebited(endpoint, amountMc) // metrics: counted once committed
  return r
}

/**
 * Debits `amountMc` for work that is already done (a cache hit) or held by a job row of its own (a
 * crawl): the same checks as reserve() in one transaction (the caller's, when given), with no
 * reservation row. Returns the balance after.
 */
export async function charge(store: Store, payer: Payer, amountMc: number, requestId: string, endpoint: string, tx?: Tx): Promise<number> {
  const r = await debit(store, payer, amountMc, requestId, endpoint, false, tx)
  metrics.creditsDebited(endpoint, amountMc) // metrics: counted once committed (or once in the caller's transaction)
  return r.balanceAfterMc
}

/** What the limit checks read: the account's money settings and, for each limit set, what is used. */
interface Standing {
  balanceMc: number
  spendCapMc: number | null
  dailyLimitMc: number | null
  /** Spent this period on the key, the account (month) and the account (day); read only when a limit is set. */
  used(scope: 'key' | 'account' | 'account_day'): number
}

/** The refusal for a debit of `amountMc`, checked in order (key limit, spend cap, daily limit, balance), or null when it may go ahead. */
function refusal(s: Standing, payer: Payer, amountMc: number): ApiError | null {
  if (payer.keyLimitMc != null) {
    const used = s.used('key')
    if (used + amountMc > payer.keyLimitMc) {
      return new ApiError(
        'key_limit_reached',
        `this key has used ${fmt(used)} of its ${fmt(payer.keyLimitMc)} monthly credits; this call costs ${fmt(amountMc)}`,
      )
    }
  }
  if (s.spendCapMc != null) {
    const used = s.used('account')
    if (used + amountMc > s.spendCapMc) {
      return new ApiError(
        'spend_cap_reached',
        `the account has spent ${fmt(used)} of its ${fmt(s.spendCapMc)} monthly spend cap; raise it or wait for the next UTC month`,
      )
    }
  }
  if (s.dailyLimitMc != null) {
    const used = s.used('account_day')
    if (used + amountMc > s.dailyLimitMc) {
      return new ApiError(
        'daily_limit_reached',
        `the account has used ${fmt(used)} of its ${fmt(s.dailyLimitMc)} daily credits; it resets at 00:00 UTC or when a credit pack is bought`,
      )
    }
  }
  if (s.balanceMc < amountMc) return new ApiError('insufficient_credits', `balance is ${fmt(s.balanceMc)} credits; this call costs ${fmt(amountMc)}`)
  return null
}

const counterScopes = (row: Pick<ReservationRow, 'account_id' | 'key_id' | 'period_month' | 'period_day'>) => [
  { scope: 'key' as const, scope_id: row.key_id, period: row.period_month },
  { scope: 'account' as const, scope_id: row.account_id, period: row.period_month },
  { scope: 'account_day' as const, scope_id: row.account_id, period: row.period_day },
]

async function debit(store: Store, payer: Payer, amountMc: number, requestId: string, endpoint: string, hold: boolean, outer?: Tx) {
  const now = Date.now()
  const { month, day } = periods(new Date(now))
  // A charge keeps no reservation row: its id is never read, so none is drawn.
  const reservation = { id: hold ? randomUUID() : '', payer, amountMc, requestId, endpoint, month, day, balanceAfterMc: 0 }
  const row: ReservationRow = {
    id: reservation.id,
    account_id: payer.accountId,
    key_id: payer.keyId,
    amount_mc: amountMc,
    request_id: requestId,
    endpoint,
    period_month: month,
    period_day: day,
    created_at: now,
  }
  const entry = { kind: hold ? ('reserve' as const) : ('charge' as const), key_id: payer.keyId, request_id: requestId, endpoint }
  const scopeIds = { key: [payer.keyId, month], account: [payer.accountId, month], account_day: [payer.accountId, day] } as const

  if (store.groupCommit && !outer) {
    // SQLite: the checks and writes run synchronously in a group-commit batch; the promise settles
    // after the batch's COMMIT, so the debit is on disk before any response is sent. A charge
    // writes only its ledger row (balance and counters move in memory after it): no savepoint.
    const writes = { oneStatement: !hold }
    reservation.balanceAfterMc = await store.groupCommit.run((raw, batch) => {
      const ledger = batchLedger(raw, batch)
      const account = ledger.account(payer.accountId)
      if (!account) throw new ApiError('unauthorized', 'API key belongs to a deleted account')
      const refused = refusal(
        {
          balanceMc: account.balance_mc,
          spendCapMc: account.monthly_spend_cap_mc,
          dailyLimitMc: account.daily_limit_mc,
          used: (scope) => ledger.counterMc(scope, ...scopeIds[scope]),
        },
        payer,
        amountMc,
      )
      if (refused) throw refused
      if (hold) ledger.insertReservation(row)
      const after = ledger.moveBalance(payer.accountId, -amountMc, entry, now)
      ledger.bumpCounters(counterScopes(row), amountMc, 1)
      return after
    }, writes)
    return reservation
  }

  const run = (fn: (tx: Tx) => Promise<void>) => (outer ? fn(outer) : store.transaction(fn))
  await run(async (tx) => {
    const account = await lockAccount(tx, payer.accountId)
    if (!account) throw new ApiError('unauthorized', 'API key belongs to a deleted account')
    const used: Partial<Record<keyof typeof scopeIds, number>> = {}
    for (const scope of ['key', 'account', 'account_day'] as const) {
      const limited = scope === 'key' ? payer.keyLimitMc : scope === 'account' ? account.monthly_spend_cap_mc : account.daily_limit_mc
      if (limited != null) used[scope] = (await findCounter(tx, scope, ...scopeIds[scope]))?.credits_mc ?? 0
    }
    const refused = refusal(
      { balanceMc: account.balance_mc, spendCapMc: account.monthly_spend_cap_mc, dailyLimitMc: account.daily_limit_mc, used: (scope) => used[scope] ?? 0 },
      payer,
      amountMc,
    )
    if (refused) throw refused
    if (hold) await insertReservation(tx, row)
    reservation.balanceAfterMc = await moveBalance(tx, payer.accountId, -amountMc, entry, now)
    await countUsage(tx, row, amountMc, 1)
  })
  return reservation
}

/**
 * Ends a reservation: keeps `usedMc` (0 for failed, empty or blocked calls) and refunds the rest.
 * Returns the balance after, or null when the reservation was already settled or swept.
 */
export async function settle(store: Store, r: Reservation, usedMc: number): Promise<number | null> {
  const after = await settleReservation(store, r, usedMc)
  if (after != null) metrics.creditsRefunded(r.endpoint, r.amountMc - Math.min(usedMc, r.amountMc)) // metrics: only a settle that happened
  return after
}

async function settleReservation(store: Store, r: Reservation, usedMc: number): Promise<number | null> {
  const refund = r.amountMc - Math.min(usedMc, r.amountMc)
  const row = { account_id: r.payer.accountId, key_id: r.payer.keyId, period_month: r.month, period_day: r.day }
  const entry = { kind: 'refund' as const, key_id: r.payer.keyId, request_id: r.requestId, endpoint: r.endpoint }
  // A call that cost nothing is not counted as a request.
  const requests = usedMc > 0 ? 0 : -1
  if (store.groupCommit) {
    return store.groupCommit.run((raw, batch) => {
      const ledger = batchLedger(raw, batch)
      const account = ledger.account(r.payer.accountId)
      if (!account || !ledger.takeReservation(r.id)) return null
      if (refund <= 0) return account.balance_mc
      const after = ledger.moveBalance(r.payer.accountId, refund, entry, Date.now())
      ledger.bumpCounters(counterScopes(row), -refund, requests) // last: memory moves only once every statement succeeded
      return after
    })
  }
  return store.transaction(async (tx) => {
    const account = await lockAccount(tx, r.payer.accountId)
    if (!account || !(await takeReservation(tx, r.id))) return null
    if (refund > 0) {
      await countUsage(tx, row, -refund, requests)
      return moveBalance(tx, r.payer.accountId, refund, entry, Date.now())
    }
    return account.balance_mc
  })
}

/**
 * Gives back the unused part of a charge() that held credits for long work (a crawl reserves its
 * `limit` up front). Counted against the period of the original charge. Returns the balance after.
 */
export async function refund(
  store: Store,
  payer: Omit<Payer, 'keyLimitMc'>,
  amountMc: number,
  charge: { at: number; requestId: string; endpoint: string; wholeCharge: boolean },
  /** Run inside the caller's transaction (a crawl's final state and its refund commit together). */
  tx?: Tx,
) {
  const { requestId, endpoint } = charge
  const { month, day } = periods(new Date(charge.at))
  const run = <T>(fn: (tx: Tx) => Promise<T>) => (tx ? fn(tx) : store.transaction(fn))
  const after = await run(async (tx) => {
    await lockAccount(tx, payer.accountId)
    // Refunding the whole charge means the call cost nothing: it stops counting as a request.
    await countUsage(tx, { account_id: payer.accountId, key_id: payer.keyId, period_month: month, period_day: day }, -amountMc, charge.wholeCharge ? -1 : 0)
    return moveBalance(tx, payer.accountId, amountMc, { kind: 'refund', key_id: payer.keyId, request_id: requestId, endpoint }, Date.now())
  })
  metrics.creditsRefunded(endpoint, amountMc) // metrics
  return after
}

async function countUsage(
  tx: Parameters<typeof bumpCounters>[0],
  row: Pick<ReservationRow, 'account_id' | 'key_id' | 'period_month' | 'period_day'>,
  mc: number,
  requests: number,
) {
  await bumpCounters(tx, counterScopes(row), mc, requests)
}

/**
 * Refunds reservations whose request can no longer be running (the process died mid-call).
 * Realtime calls are bounded well under this age by their timeouts.
 */
export const STALE_RESERVATION_MS = 10 * 60_000

export async function refundStaleReservations(store: Store, now = Date.now()): Promise<number> {
  let refunded = 0
  for (const row of await staleReservations(store.db, now - STALE_RESERVATION_MS)) {
    const done = await settle(
      store,
      {
        id: row.id,
        payer: { accountId: row.account_id, keyId: row.key_id, keyLimitMc: null },
        amountMc: row.amount_mc,
        requestId: row.request_id,
        endpoint: row.endpoint,
        month: row.period_month,
        day: row.period_day,
      },
      0,
    )
    if (done != null) refunded++
  }
  return refunded
}
