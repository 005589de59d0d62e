import { findCounter } from '../../billing/credits.store.ts'
import { periods, toCredits } from '../../billing/money.ts'
import { rateLimitFor } from '../../billing/plans.ts'
import { DAY_MS, ledgerPage, spendByDay } from '../../billing/spend.store.ts'
import { ApiError } from '../../errors.ts'
import type { Store } from '../../store/database.ts'
import { accountKeyNames, findAccount } from '../accounts/accounts.store.ts'
import type { SessionUser } from './sessions.service.ts'

/**
 * The usage screen's data (docs/dashboard.md). Every user of the account reads it: members already
 * see the account's keys and, through any key, GET /v1/account's balance and month.
 */

const credits = (mc: number | null | undefined) => (mc == null ? null : toCredits(mc))

/** Who is signed in and the account's balance, plan, limits and this month's and today's usage. */
export async function accountSummary(store: Store, user: SessionUser) {
  const row = await findAccount(store.db, user.accountId)
  if (!row) throw new ApiError('unauthorized', 'account no longer exists: log in again')
  const { month, day } = periods()
  const [m, d] = await Promise.all([findCounter(store.db, 'account', row.id, month), findCounter(store.db, 'account_day', row.id, day)])
  return {
    user: { id: user.id, email: user.email, role: user.role },
    account: {
      id: row.id,
      plan: row.plan,
      balance: toCredits(row.balance_mc),
      rate_limit_rps: rateLimitFor(row.plan, row.rate_limit_rps),
      monthly_spend_cap: credits(row.monthly_spend_cap_mc),
      daily_limit: credits(row.daily_limit_mc),
      member_key_limit: credits(row.member_key_limit_mc),
      month: { period: month, credits: toCredits(m?.credits_mc ?? 0), requests: m?.requests ?? 0 },
      today: { period: day, credits: toCredits(d?.credits_mc ?? 0), requests: d?.requests ?? 0 },
    },
  }
}

interface Series {
  credits: number[]
  total: number
}

/**
 * Credits spent per UTC day over the last `days` days (today included), by key and by endpoint:
 * debits minus refunds from the ledger, so a refunded failure counts 0 and a request still in
 * flight counts what it holds.
 */
export async function usageSeries(store: Store, user: SessionUser, days: number, now = Date.now()) {
  const today = Math.floor(now / DAY_MS)
  const first = today - days + 1
  const [rows, keys] = await Promise.all([spendByDay(store.db, user.accountId, first * DAY_MS), accountKeyNames(store.db, user.accountId)])
  const names = new Map(keys.map((k) => [k.id, k]))
  const byKey = new Map<string, Series & { id: string | null; name: string; revoked: boolean }>()
  const byEndpoint = new Map<string, Series & { endpoint: string }>()
  const total = new Array<number>(days).fill(0)
  const add = (s: Series, i: number, mc: number) => {
    s.credits[i] = (s.credits[i] ?? 0) + mc
    s.total += mc
  }
  for (const r of rows) {
    const i = r.day - first
    if (i < 0 || i >= days || r.spent_mc === 0) continue
    const keyId = r.key_id ?? ''
    let k = byKey.get(keyId)
    if (!k) {
      const named = r.key_id ? names.get(r.key_id) : undefined
      k = { id: r.key_id, name: named?.name ?? 'no key', revoked: named?.revoked_at != null, credits: new Array(days).fill(0), total: 0 }
      byKey.set(keyId, k)
    }
    const endpoint = r.endpoint ?? 'other'
    let e = byEndpoint.get(endpoint)
    if (!e) {
      e = { endpoint, credits: new Array(days).fill(0), total: 0 }
      byEndpoint.set(endpoint, e)
    }
    add(k, i, r.spent_mc)
    add(e, i, r.spent_mc)
    total[i] = (total[i] ?? 0) + r.spent_mc
  }
  const out = <S extends Series>(s: S) => ({ ...s, credits: s.credits.map(toCredits), total: toCredits(s.total) })
  const bySize = (a: Series, b: Series) => b.total - a.total
  return {
    days: Array.from({ length: days }, (_, i) => new Date((first + i) * DAY_MS).toISOString().slice(0, 10)),
    total: total.map(toCredits),
    by_key: [...byKey.values()].sort(bySize).map(out),
    by_endpoint: [...byEndpoint.values()].sort(bySize).map(out),
  }
}

/** The ledger newest first: purchases, reservations (debits), refunds and charges, with the key's name (revoked keys too). */
export async function ledger(store: Store, user: SessionUser, limit: number, before?: number) {
  const [rows, keys] = await Promise.all([ledgerPage(store.db, user.accountId, limit, before), accountKeyNames(store.db, user.accountId)])
  const names = new Map(keys.map((k) => [k.id, k.name]))
  const last = rows.at(-1)
  return {
    entries: rows.map((r) => ({
      id: r.id,
      created_at: new Date(r.created_at).toISOString(),
      kind: r.kind,
      amount: toCredits(r.amount_mc),
      balance_after: toCredits(r.balance_after_mc),
      endpoint: r.endpoint,
      key_id: r.key_id,
      key_name: r.key_id ? (names.get(r.key_id) ?? null) : null,
      request_id: r.request_id,
    })),
    next_before: rows.length === limit && last ? last.id : null,
  }
}
