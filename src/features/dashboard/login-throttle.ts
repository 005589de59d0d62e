import type { Redis } from 'ioredis'
import { ApiError } from '../../errors.ts'
import { sha256 } from '../../security/secrets.ts'
import type { Store } from '../../store/database.ts'
import { type AttemptScope, attemptsResetAt, clearAttempts, giveAttemptBack, takeAttempt } from './login-throttle.store.ts'

/** Sign-in attempts checked per email address, and per client IP, within the window, before 429 rate_limited. */
export const LOGIN_FAILURES_PER_EMAIL = 10
export const LOGIN_FAILURES_PER_IP = 30
export const LOGIN_WINDOW_S = 15 * 60

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
export function createLoginThrottle(deps: { redis: Redis | null; store: Store }): LoginThrottle {
  const backend = deps.redis ? redisBudgets(deps.redis) : databaseBudgets(deps.store)
  return {
    async take(ip, email) {
      const attempt = { ip, email: sha256(email.trim().toLowerCase()) }
      const refused = await backend.take(attempt)
      if (refused) {
        const seconds = Math.max(1, Math.ceil(refused.retryAfterMs / 1000))
        throw new ApiError('rate_limited', `too many failed logins; try again in ${Math.ceil(seconds / 60)} min`, { retryAfterSeconds: seconds })
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

const WINDOW_MS = LOGIN_WINDOW_S * 1000

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
function redisBudgets(redis: Redis): Budgets {
  const keys = (a: LoginAttempt) => [`trawl:login-attempts:ip:${a.ip}`, `trawl:login-attempts:email:${a.email}`]
  return {
    async take(attempt) {
      const [spent, ttlMs] = (await redis.eval(TAKE_SCRIPT, 2, ...keys(attempt), LOGIN_FAILURES_PER_IP, LOGIN_FAILURES_PER_EMAIL, WINDOW_MS)) as [
        number,
        number,
      ]
      return spent === 0 ? null : { retryAfterMs: ttlMs > 0 ? ttlMs : WINDOW_MS }
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
function databaseBudgets(store: Store): Budgets {
  return {
    async take(attempt) {
      const now = Date.now()
      try {
        await store.transaction(async (tx) => {
          // Always the IP's row before the email's: concurrent takers lock in one order, never deadlock.
          if (!(await takeAttempt(tx, 'ip', attempt.ip, LOGIN_FAILURES_PER_IP, now, WINDOW_MS))) throw new Spent('ip')
          if (!(await takeAttempt(tx, 'email', attempt.email, LOGIN_FAILURES_PER_EMAIL, now, WINDOW_MS))) throw new Spent('email')
        })
        return null
      } catch (err) {
        if (!(err instanceof Spent)) throw err
        const resetsAt = await attemptsResetAt(store.db, err.scope, err.scope === 'ip' ? attempt.ip : attempt.email)
        return { retryAfterMs: resetsAt !== undefined && resetsAt > now ? resetsAt - now : WINDOW_MS }
      }
    },
    async succeeded(attempt) {
      await giveAttemptBack(store.db, 'ip', attempt.ip, Date.now())
      await clearAttempts(store.db, 'email', attempt.email)
    },
  }
}
