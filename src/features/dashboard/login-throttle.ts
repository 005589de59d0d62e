import type { Redis } from 'ioredis'
import { type RateLimiterAbstract, RateLimiterMemory, RateLimiterRedis, type RateLimiterRes } from 'rate-limiter-flexible'
import { ApiError } from '../../errors.ts'

/** Failed logins allowed per email address, and per client IP, within the window, before 429 rate_limited. */
export const LOGIN_FAILURES_PER_EMAIL = 10
export const LOGIN_FAILURES_PER_IP = 30
export const LOGIN_WINDOW_S = 15 * 60

export interface LoginThrottle {
  /** Throws 429 rate_limited (with Retry-After) while the IP or the email is over its failures. */
  check(ip: string, email: string): Promise<void>
  /** Counts a failed attempt against both. */
  failed(ip: string, email: string): Promise<void>
  /** A successful login clears the email's count (not the IP's, so one good account cannot reset a guessing IP). */
  succeeded(email: string): Promise<void>
}

/**
 * Login throttling (docs/dashboard.md): 10 failures per 15 minutes per email address (guessing one
 * account's password) and 30 per client IP (one client trying many accounts; higher, since an
 * office behind one NAT address shares it), counted in Redis when configured (shared by every
 * process), in memory otherwise. Only failures count, so typing the right password never uses any up.
 */
export function createLoginThrottle(redis: Redis | null): LoginThrottle {
  const make = (keyPrefix: string, points: number): RateLimiterAbstract => {
    const opts = { points, duration: LOGIN_WINDOW_S, keyPrefix }
    return redis
      ? new RateLimiterRedis({ ...opts, storeClient: redis, rejectIfRedisNotReady: true, insuranceLimiter: new RateLimiterMemory(opts) })
      : new RateLimiterMemory(opts)
  }
  const byIp = make('trawl:login:ip', LOGIN_FAILURES_PER_IP)
  const byEmail = make('trawl:login:email', LOGIN_FAILURES_PER_EMAIL)
  const normal = (email: string) => email.trim().toLowerCase()

  const refuse = (res: RateLimiterRes | null, allowed: number) => {
    if (!res || res.consumedPoints < allowed) return
    const seconds = Math.max(1, Math.ceil(res.msBeforeNext / 1000))
    throw new ApiError('rate_limited', `too many failed logins; try again in ${Math.ceil(seconds / 60)} min`, { retryAfterSeconds: seconds })
  }
  return {
    async check(ip, email) {
      const [a, b] = await Promise.all([byIp.get(ip), byEmail.get(normal(email))])
      refuse(a, LOGIN_FAILURES_PER_IP)
      refuse(b, LOGIN_FAILURES_PER_EMAIL)
    },
    async failed(ip, email) {
      // penalty() counts without throwing when over: check() is what refuses.
      await Promise.all([byIp.penalty(ip, 1), byEmail.penalty(normal(email), 1)])
    },
    async succeeded(email) {
      await byEmail.delete(normal(email))
    },
  }
}
