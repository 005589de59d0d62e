import type { Redis } from 'ioredis'
import { type RateLimiterAbstract, RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible'
import { ApiError } from '../../errors.ts'

/** One counting window: `points` searches per `seconds`, named in the 429 message. */
export interface PlaygroundWindow {
  name: string
  points: number
  seconds: number
}

/** The keyless playground: 5 searches per minute and 20 per day per IP (docs/playground.md). */
export const PLAYGROUND_WINDOWS: readonly PlaygroundWindow[] = [
  { name: 'minute', points: 5, seconds: 60 },
  { name: 'day', points: 20, seconds: 86_400 },
]

export const PLAYGROUND_KEY_PREFIX = 'trawl:playground'

export interface PlaygroundLimiter {
  /** Counts one search for `client` in every window; throws 429 rate_limited with Retry-After when one is full. */
  consume(client: string): Promise<void>
}

/**
 * Fixed windows per client (rate-limiter-flexible): the first search opens a window of
 * `seconds`, and the window frees all its points when it ends. In Redis when configured, so every
 * process counts together, with an in-memory insurance limiter while Redis is unreachable (as
 * http/rate-limit.ts). `windows` and `keyPrefix` are parameters for tests only.
 */
export function createPlaygroundLimiter(
  redis: Redis | null,
  windows: readonly PlaygroundWindow[] = PLAYGROUND_WINDOWS,
  keyPrefix = PLAYGROUND_KEY_PREFIX,
): PlaygroundLimiter {
  const limiters = windows.map((window): [PlaygroundWindow, RateLimiterAbstract] => {
    const opts = { points: window.points, duration: window.seconds, keyPrefix: `${keyPrefix}:${window.name}` }
    const limiter = redis
      ? new RateLimiterRedis({ ...opts, storeClient: redis, rejectIfRedisNotReady: true, insuranceLimiter: new RateLimiterMemory(opts) })
      : new RateLimiterMemory(opts)
    return [window, limiter]
  })
  return {
    async consume(client) {
      // Shortest window first: a search the minute refuses spends nothing of the day's twenty.
      for (const [window, limiter] of limiters) {
        try {
          await limiter.consume(client, 1)
        } catch (e) {
          if (!(e instanceof RateLimiterRes)) throw e
          const seconds = Math.max(1, Math.ceil(e.msBeforeNext / 1000))
          throw new ApiError(
            'rate_limited',
            `the keyless playground allows ${window.points} searches per ${window.name} from one address; retry in ${seconds} s, or use /v1/search with an API key`,
            { retryAfterSeconds: seconds },
          )
        }
      }
    },
  }
}

/**
 * The address the limits count: IPv4 as is (also when IPv4-mapped, ::ffff:a.b.c.d), IPv6 by its
 * /64, since one subscriber is usually handed a whole /64 and could otherwise rotate addresses.
 */
export function clientKey(ip: string): string {
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(ip)
  if (mapped?.[1]) return mapped[1]
  if (!ip.includes(':')) return ip
  const address = ip.split('%')[0] ?? ip // drop a zone id (fe80::1%eth0)
  const [head = '', tail] = address.split('::')
  const left = head ? head.split(':') : []
  let groups = left
  if (tail !== undefined) {
    const right = tail ? tail.split(':') : []
    // An embedded IPv4 tail (::ffff:1.2.3.4 forms) fills two groups.
    const width = right.reduce((n, g) => n + (g.includes('.') ? 2 : 1), 0)
    groups = [...left, ...Array<string>(Math.max(0, 8 - left.length - width)).fill('0'), ...right]
  }
  const prefix = groups.slice(0, 4).map((g) => (Number.parseInt(g, 16) || 0).toString(16))
  return `${prefix.join(':')}::/64`
}
