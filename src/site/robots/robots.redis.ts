import type { Redis } from 'ioredis'
import { z } from 'zod'
import type { SharedRobots, StoredRobots } from './robots.cache.ts'

const PREFIX = 'trawl:robots:'

const Stored = z.object({
  status: z.enum(['found', 'not_found', 'error', 'unreachable']),
  statusText: z.string(),
  text: z.string().optional(),
  url: z.string().optional(),
  fetchedAt: z.number(),
})

/** robots.txt files shared by every process through Redis, each kept for its TTL. */
export function redisRobots(redis: Redis): SharedRobots {
  return {
    async get(origin) {
      const raw = await redis.get(PREFIX + origin)
      if (!raw) return null
      const parsed = Stored.safeParse(JSON.parse(raw))
      return parsed.success ? (parsed.data as StoredRobots) : null
    },
    async set(origin, file, ttlMs) {
      await redis.set(PREFIX + origin, JSON.stringify(file), 'PX', ttlMs)
    },
  }
}
