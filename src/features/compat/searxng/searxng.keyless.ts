import type { Redis } from 'ioredis'
import { ApiError } from '../../../errors.ts'
import { createPlaygroundLimiter, type PlaygroundLimiter, type PlaygroundWindow } from '../../playground/playground.limits.ts'

/**
 * TRAWL_SEARXNG_KEYLESS=true: searches without a key, limited per client address (IPv6 by its
 * /64) in fixed windows, in Redis when configured. Roomier than the playground's 5 a minute, since
 * a local agent searches in bursts; still small enough that an exposed server cannot be drained.
 */
export const SEARXNG_KEYLESS_WINDOWS: readonly PlaygroundWindow[] = [
  { name: 'minute', points: 30, seconds: 60 },
  { name: 'day', points: 500, seconds: 86_400 },
]

export function createKeylessLimiter(redis: Redis | null, windows: readonly PlaygroundWindow[] = SEARXNG_KEYLESS_WINDOWS): PlaygroundLimiter {
  const limiter = createPlaygroundLimiter(redis, windows, 'trawl:searxng-keyless')
  return {
    async consume(client) {
      try {
        await limiter.consume(client)
      } catch (err) {
        if (!(err instanceof ApiError) || err.code !== 'rate_limited') throw err
        const seconds = err.opts.retryAfterSeconds ?? 60
        const window = windows.find((w) => err.message.includes(`per ${w.name}`)) ?? windows[0]
        throw new ApiError(
          'rate_limited',
          `keyless SearXNG searches are limited to ${window?.points} per ${window?.name} from one address; retry in ${seconds} s, or send a Trawl API key`,
          { retryAfterSeconds: seconds },
        )
      }
    },
  }
}
