import type { Redis } from 'ioredis'
import { HEALTH_WINDOW, type HealthEvent, type HealthShare } from './health.ts'

const PREFIX = 'trawl:engine-health:'
const KEYS = `${PREFIX}keys`
const TTL_MS = 24 * 3600_000

/**
 * Engine health shared by every process through Redis: each event is appended to a capped list
 * per provider and layout, and each process reads the lists back in the background, so a block or
 * a drift one process sees steers `auto` in all of them. Redis failures only cost the sharing.
 */
export function redisHealthShare(redis: Redis, onError: (err: unknown) => void): HealthShare {
  return {
    push(key, event) {
      redis
        .multi()
        .sadd(KEYS, key)
        .rpush(PREFIX + key, JSON.stringify(event))
        .ltrim(PREFIX + key, -HEALTH_WINDOW, -1)
        .pexpire(PREFIX + key, TTL_MS)
        .exec()
        .catch(onError)
    },
    async pull() {
      const keys = await redis.smembers(KEYS)
      const out = new Map<string, HealthEvent[]>()
      if (!keys.length) return out
      const pipeline = redis.pipeline()
      for (const key of keys) pipeline.lrange(PREFIX + key, 0, -1)
      const lists = (await pipeline.exec()) ?? []
      for (const [i, key] of keys.entries()) {
        const [err, items] = lists[i] ?? []
        if (err || !Array.isArray(items)) continue
        out.set(
          key,
          (items as string[]).map((s) => JSON.parse(s) as HealthEvent),
        )
      }
      return out
    },
  }
}
