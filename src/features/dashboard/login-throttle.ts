import type { Redis } from 'ioredis'
import ipaddr from 'ipaddr.js'
import { ApiError } from '../../errors.ts'
import { sha256 } from '../../security/secrets.ts'
import type { Store } from '../../store/database.ts'
import { type AttemptScope, attemptsResetAt, clearAttempts, giveAttemptBack, takeAttempt } from './login-throttle.store.ts'

/** Sign-in attempts checked per email address, and per client IP, within the window, before 429 rate_limited. */
export const LOGIN_FAILURES_PER_EMAIL = 10
export const LOGIN_FAILURES_PER_IP = 30
export const LOGIN_WINDOW_S = 15 * 60

/**
 * Two budgets per window: per client address and per email. Sign-in (and the password change's
 * check) uses LOGIN; sign-up has budgets of its own (`signupBudgets`), so sign-ups from a shared
 * address or with someone else's email never lock anyone out of sign-in.
 */
export interface Budget {
  /** Names the counters: 'login' keeps the names it always had. */
  name: 'login' | 'signup'
  perIp: number
  perEmail: number
  windowMs: number
  /** The 429's message, given the minutes to wait. */
  refusal(minutes: number): string
}

export const LOGIN: Budget = {
  name: 'login',
  perIp: LOGIN_FAILURES_PER_IP,
  perEmail: LOGIN_FAILURES_PER_EMAIL,
  windowMs: LOGIN_WINDOW_S * 1000,
  refusal: (minutes) => `too many failed logins; try again in ${minutes} min`,
}

/** Sign-ups: `perHour` accounts per client address (an IPv6 client counts as its /64) and one per email address an hour. */
export function signupBudgets(perHour: number): Budget {
  return { name: 'signup', perIp: perHour, perEmail: 1, windowMs: 3_600_000, refusal: (minutes) => `too many sign-ups from here; try again in ${minutes} min` }
}

/**
 * The client's budget key: its address, or for IPv6 its /64 (one subscriber's prefix: a client
 * that owns a /64 would otherwise have 2^64 budgets).
 */
export function clientKey(ip: string): string {
  if (!ipaddr.isValid(ip)) return ip
  const parsed = ipaddr.process(ip)
  if (parsed.kind() === 'ipv4') return parsed.toString()
  return `${(parsed as ipaddr.IPv6).parts
    .slice(0, 4)
    .map((p) => p.toString(16))
    .join(':')}::/64`
}

/** One mailbox however it is spelled: lowercased, and a `+tag` before the @ left out. */
export function mailboxOf(email: string): string {
  const at = email.trim().toLowerCase()
  const [local = '', domain = ''] = at.split(/@(?=[^@]*$)/)
  return `${local.replace(/\+.*$/, '')}@${domain}`
}

/** The budgets one sign-in attempt was taken from. */
export interface LoginAttempt {
  ip: string
  /** SHA-256 of the normalised email: the counters never hold the address itself, nor one of any length. */
  email: string
}

export interface LoginThrottle {
  /**
   * Takes one attempt from the email's budget and the client IP's, both or neither, BEFORE the
   * password is checked. Throws 429 rate_limited (with Retry-After) when either is spent.
   */
  take(ip: string, email: string): Promise<LoginAttempt>
  /**
   * The password was right: the IP gets its attempt back and the email's count is cleared (not the
   * IP's, so one good account cannot reset a guessing IP). A wrong password keeps its attempt.
   */
  succeeded(attempt: LoginAttempt): Promise<void>
}

/**
 * Login throttling (docs/dashboard.md): 10 attempts per 15 minutes per email address (guessing one
 * account's password) and 30 per client IP (one client trying many accounts; higher, since an
 * office behind one NAT address shares it). The attempt is taken atomically before the password
 * is checked, so at most the limit is ever checked, however many guesses arrive at once and in
 * however many processes: counted in Redis when configured (one script takes from both budgets),
 * in the database otherwise (one conditional upsert per budget, in one transaction).
 */
export function createLoginThrottle(deps: { redis: Redis | null; store: Store }, budget: Budget = LOGIN): LoginThrottle {
  const backend = deps.redis ? redisBudgets(deps.redis, budget) : databaseBudgets(deps.store, budget)
  return {
    async take(ip, email) {
      const attempt = { ip: clientKey(ip), email: sha256(budget.name === 'signup' ? mailboxOf(email) : email.trim().toLowerCase()) }
      const refused = await backend.take(attempt)
      if (refused) {
        const seconds = Math.max(1, Math.ceil(refused.retryAfterMs / 1000))
        throw new ApiError('rate_limited', budget.refusal(Math.ceil(seconds / 60)), { retryAfterSeconds: seconds })
      }
      return attempt
    },
    succeeded: (attempt) => backend.succeeded(attempt),
  }
}

interface Budgets {
  /** Null when taken from both; else how long until the spent budget's window ends. */
  take(attempt: LoginAttempt): Promise<{ retryAfterMs: number } | null>
  succeeded(attempt: LoginAttempt): Promise<void>
}

/**
 * KEYS: the IP's and the email's counters; ARGV: their limits and the window. Takes from both or
 * neither; answers {0} when taken, else {spent counter's index, its milliseconds left}.
 */
const TAKE_SCRIPT = `
local limits = { tonumber(ARGV[1]), tonumber(ARGV[2]) }
for i = 1, 2 do
  if tonumber(redis.call('GET', KEYS[i]) or '0') >= limits[i] then
    return { i, redis.call('PTTL', KEYS[i]) }
  end
end
for i = 1, 2 do
  if redis.call('INCR', KEYS[i]) == 1 or redis.call('PTTL', KEYS[i]) < 0 then
    redis.call('PEXPIRE', KEYS[i], ARGV[3])
  end
end
return { 0, 0 }
`

/** KEYS: the IP's and the email's counters: one attempt back to the IP (while its window runs), the email's cleared. */
const SUCCEEDED_SCRIPT = `
if tonumber(redis.call('GET', KEYS[1]) or '0') > 0 then redis.call('DECR', KEYS[1]) end
redis.call('DEL', KEYS[2])
return 0
`

/** Shared by every process using the Redis; while Redis does not answer, sign-in is a 503 (never unthrottled). */
function redisBudgets(redis: Redis, budget: Budget): Budgets {
  const keys = (a: LoginAttempt) => [`trawl:${budget.name}-attempts:ip:${a.ip}`, `trawl:${budget.name}-attempts:email:${a.email}`]
  return {
    async take(attempt) {
      const [spent, ttlMs] = (await redis.eval(TAKE_SCRIPT, 2, ...keys(attempt), budget.perIp, budget.perEmail, budget.windowMs)) as [number, number]
      return spent === 0 ? null : { retryAfterMs: ttlMs > 0 ? ttlMs : budget.windowMs }
    },
    async succeeded(attempt) {
      await redis.eval(SUCCEEDED_SCRIPT, 2, ...keys(attempt))
    },
  }
}

/** Thrown inside the transaction to roll back the IP's attempt when the email's budget is spent. */
class Spent extends Error {
  constructor(readonly scope: AttemptScope) {
    super(`login attempts spent: ${scope}`)
  }
}

/** Shared by every process on the database (SQLite or PostgreSQL). */
function databaseBudgets(store: Store, budget: Budget): Budgets {
  // The login budgets keep their scope names ('ip', 'email'); the sign-up budgets have their own.
  const scopes: Record<'ip' | 'email', AttemptScope> = budget.name === 'login' ? { ip: 'ip', email: 'email' } : { ip: 'signup-ip', email: 'signup-email' }
  return {
    async take(attempt) {
      const now = Date.now()
      try {
        await store.transaction(async (tx) => {
          // Always the IP's row before the email's: concurrent takers lock in one order, never deadlock.
          if (!(await takeAttempt(tx, scopes.ip, attempt.ip, budget.perIp, now, budget.windowMs))) throw new Spent(scopes.ip)
          if (!(await takeAttempt(tx, scopes.email, attempt.email, budget.perEmail, now, budget.windowMs))) throw new Spent(scopes.email)
        })
        return null
      } catch (err) {
        if (!(err instanceof Spent)) throw err
        const resetsAt = await attemptsResetAt(store.db, err.scope, err.scope === scopes.ip ? attempt.ip : attempt.email)
        return { retryAfterMs: resetsAt !== undefined && resetsAt > now ? resetsAt - now : budget.windowMs }
      }
    },
    async succeeded(attempt) {
      await giveAttemptBack(store.db, scopes.ip, attempt.ip, Date.now())
      await clearAttempts(store.db, scopes.email, attempt.email)
    },
  }
}
