import { randomUUID } from 'node:crypto'
import { ApiError } from '../../errors.ts'
import type { Store, Tx } from '../../store/database.ts'
import type { ReservationRow } from '../../store/schema.ts'
import { bumpCounters, findCounter, insertReservation, lockAccount, moveBalance, staleReservations, takeReservation } from './credits.store.ts'
import { periods, toCredits } from './money.ts'

export interface Payer {
  accountId: string
  keyId: string
  keyLimitMc: number | null
}

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
  return debit(store, payer, amountMc, requestId, endpoint, true)
}

/**
 * Debits `amountMc` for work that is already done (a cache hit) or held by a job row of its own (a
 * crawl): the same checks as reserve() in one transaction (the caller's, when given), with no
 * reservation row. Returns the balance after.
 */
export async function charge(store: Store, payer: Payer, amountMc: number, requestId: string, endpoint: string, tx?: Tx): Promise<number> {
  const r = await debit(store, payer, amountMc, requestId, endpoint, false, tx)
  return r.balanceAfterMc
}

async function debit(store: Store, payer: Payer, amountMc: number, requestId: string, endpoint: string, hold: boolean, outer?: Tx) {
  const now = Date.now()
  const { month, day } = periods(new Date(now))
  const reservation = { id: randomUUID(), payer, amountMc, requestId, endpoint, month, day, balanceAfterMc: 0 }
  const run = (fn: (tx: Tx) => Promise<void>) => (outer ? fn(outer) : store.transaction(fn))
  await run(async (tx) => {
    const account = await lockAccount(tx, payer.accountId)
    if (!account) throw new ApiError('unauthorized', 'API key belongs to a deleted account')
    if (payer.keyLimitMc != null) {
      const used = (await findCounter(tx, 'key', payer.keyId, month))?.credits_mc ?? 0
      if (used + amountMc > payer.keyLimitMc) {
        throw new ApiError(
          'key_limit_reached',
          `this key has used ${fmt(used)} of its ${fmt(payer.keyLimitMc)} monthly credits; this call costs ${fmt(amountMc)}`,
        )
      }
    }
    if (account.monthly_spend_cap_mc != null) {
      const used = (await findCounter(tx, 'account', payer.accountId, month))?.credits_mc ?? 0
      if (used + amountMc > account.monthly_spend_cap_mc) {
        throw new ApiError(
          'spend_cap_reached',
          `the account has spent ${fmt(used)} of its ${fmt(account.monthly_spend_cap_mc)} monthly spend cap; raise it or wait for the next UTC month`,
        )
      }
    }
    if (account.daily_limit_mc != null) {
      const used = (await findCounter(tx, 'account_day', payer.accountId, day))?.credits_mc ?? 0
      if (used + amountMc > account.daily_limit_mc) {
        throw new ApiError(
          'daily_limit_reached',
          `the account has used ${fmt(used)} of its ${fmt(account.daily_limit_mc)} daily credits; it resets at 00:00 UTC or when a credit pack is bought`,
        )
      }
    }
    if (account.balance_mc < amountMc) {
      throw new ApiError('insufficient_credits', `balance is ${fmt(account.balance_mc)} credits; this call costs ${fmt(amountMc)}`)
    }
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
    if (hold) await insertReservation(tx, row)
    reservation.balanceAfterMc = await moveBalance(
      tx,
      payer.accountId,
      -amountMc,
      { kind: hold ? 'reserve' : 'charge', key_id: payer.keyId, request_id: requestId, endpoint },
      now,
    )
    await countUsage(tx, row, amountMc, 1)
  })
  return reservation
}

/**
 * Ends a reservation: keeps `usedMc` (0 for failed, empty or blocked calls) and refunds the rest.
 * Returns the balance after, or null when the reservation was already settled or swept.
 */
export async function settle(store: Store, r: Reservation, usedMc: number): Promise<number | null> {
  const refund = r.amountMc - Math.min(usedMc, r.amountMc)
  return store.transaction(async (tx) => {
    const account = await lockAccount(tx, r.payer.accountId)
    if (!account || !(await takeReservation(tx, r.id))) return null
    const row = { account_id: r.payer.accountId, key_id: r.payer.keyId, period_month: r.month, period_day: r.day } as ReservationRow
    if (refund > 0) {
      await countUsage(tx, row, -refund, usedMc > 0 ? 0 : -1) // a call that cost nothing is not counted as a request
      return moveBalance(tx, r.payer.accountId, refund, { kind: 'refund', key_id: r.payer.keyId, request_id: r.requestId, endpoint: r.endpoint }, Date.now())
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
  return run(async (tx) => {
    await lockAccount(tx, payer.accountId)
    // Refunding the whole charge means the call cost nothing: it stops counting as a request.
    await countUsage(tx, { account_id: payer.accountId, key_id: payer.keyId, period_month: month, period_day: day }, -amountMc, charge.wholeCharge ? -1 : 0)
    return moveBalance(tx, payer.accountId, amountMc, { kind: 'refund', key_id: payer.keyId, request_id: requestId, endpoint }, Date.now())
  })
}

async function countUsage(
  tx: Parameters<typeof bumpCounters>[0],
  row: Pick<ReservationRow, 'account_id' | 'key_id' | 'period_month' | 'period_day'>,
  mc: number,
  requests: number,
) {
  const counters = [
    { scope: 'key' as const, scope_id: row.key_id, period: row.period_month },
    { scope: 'account' as const, scope_id: row.account_id, period: row.period_month },
    { scope: 'account_day' as const, scope_id: row.account_id, period: row.period_day },
  ]
  await bumpCounters(tx, counters, mc, requests)
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
