import type { Redis } from 'ioredis'
import { type RateLimiterAbstract, RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible'
import { ApiError } from '../errors.ts'

/** Per-key requests-per-second limits, by rate plan (billing/plans.ts). In memory by default; in Redis when configured. */
export interface Limiter {
  /** Counts one request for `key`; throws 429 rate_limited with Retry-After when over `rps`. */
  consume(key: string, rps: number): Promise<void>
}

export function createLimiter(redis: Redis | null): Limiter {
  const limiters = new Map<number, RateLimiterAbstract>()
  const limiterFor = (rps: number) => {
    let limiter = limiters.get(rps)
    if (!limiter) {
      const opts = { points: rps, duration: 1, keyPrefix: `trawl:rl:${rps}` }
      // The insurance limiter keeps limits in force (per process) while Redis is unreachable.
      limiter = redis
        ? new RateLimiterRedis({ ...opts, storeClient: redis, rejectIfRedisNotReady: true, insuranceLimiter: new RateLimiterMemory(opts) })
        : new RateLimiterMemory(opts)
      limiters.set(rps, limiter)
    }
    return limiter
  }
  return {
    async consume(key, rps) {
      try {
        await limiterFor(rps).consume(key, 1)
      } catch (e) {
        if (!(e instanceof RateLimiterRes)) throw e
        const seconds = Math.max(1, Math.ceil(e.msBeforeNext / 1000))
        throw new ApiError('rate_limited', `more than ${rps} requests per second for this key; retry in ${seconds} s`, { retryAfterSeconds: seconds })
      }
    },
  }
}
