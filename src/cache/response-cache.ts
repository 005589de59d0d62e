import type { Redis } from 'ioredis'
import type { Store } from '../store/database.ts'

/** How long a search result or read page is kept; `max_age` can only reach back this far. */
export const CACHE_TTL_MS = 24 * 3600_000

export interface CachedValue<T = unknown> {
  value: T
  storedAt: number
}

/** Finished responses keyed by their normalised request; read back only when the caller sends max_age. */
export interface ResponseCache {
  get<T>(key: string): Promise<CachedValue<T> | null>
  set(key: string, value: unknown, ttlMs: number): Promise<void>
  /** Drops expired entries; returns how many. */
  prune(): Promise<number>
}

export function databaseCache(store: Store): ResponseCache {
  return {
    async get(key) {
      const row = await store.db.selectFrom('cache_entries').selectAll().where('key', '=', key).executeTakeFirst()
      if (!row || row.expires_at <= Date.now()) return null
      return { value: JSON.parse(row.value), storedAt: row.stored_at }
    },
    async set(key, value, ttlMs) {
      const now = Date.now()
      const row = { key, value: JSON.stringify(value), stored_at: now, expires_at: now + ttlMs }
      await store.db
        .insertInto('cache_entries')
        .values(row)
        .onConflict((oc) => oc.column('key').doUpdateSet({ value: row.value, stored_at: row.stored_at, expires_at: row.expires_at }))
        .execute()
    },
    async prune() {
      const result = await store.db.deleteFrom('cache_entries').where('expires_at', '<=', Date.now()).executeTakeFirst()
      return Number(result.numDeletedRows)
    },
  }
}

export function redisCache(redis: Redis): ResponseCache {
  return {
    async get(key) {
      const raw = await redis.get(`trawl:cache:${key}`)
      return raw ? (JSON.parse(raw) as CachedValue<never>) : null
    },
    async set(key, value, ttlMs) {
      await redis.set(`trawl:cache:${key}`, JSON.stringify({ value, storedAt: Date.now() }), 'PX', ttlMs)
    },
    prune: async () => 0, // Redis expires keys itself
  }
}

/**
 * A small in-process layer over the shared cache: hot entries skip the database or Redis round trip
 * and the JSON parse. Entries are immutable once stored, and deep-frozen to say so: callers copy
 * before changing anything, and the renderer keeps the completed shape and JSON text of frozen
 * values (output/stable-shape.ts), so a replayed body is not serialised again. A remembered entry
 * is at most `ttlMs` behind what another process wrote since.
 */
export function withMemory(inner: ResponseCache, opts = { maxEntries: 2000, ttlMs: 10_000 }): ResponseCache {
  const memory = new Map<string, { hit: CachedValue; until: number }>()
  const remember = (key: string, hit: CachedValue) => {
    if (memory.size >= opts.maxEntries) memory.delete(memory.keys().next().value as string) // oldest first
    memory.set(key, { hit, until: Date.now() + opts.ttlMs })
  }
  return {
    async get<T>(key: string) {
      const entry = memory.get(key)
      if (entry && entry.until > Date.now()) return entry.hit as CachedValue<T>
      const hit = await inner.get<T>(key)
      if (hit) remember(key, { value: deepFreeze(hit.value), storedAt: hit.storedAt })
      else memory.delete(key)
      return hit
    },
    async set(key, value, ttlMs) {
      await inner.set(key, value, ttlMs)
      // A copy: the caller still holds (and may change) the value it stored.
      remember(key, { value: deepFreeze(structuredClone(value)), storedAt: Date.now() })
    },
    prune: () => inner.prune(),
  }
}

/** Freezes a JSON-like value and everything in it; returns it. */
function deepFreeze<T>(value: T): T {
  const stack: unknown[] = [value]
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    if (next === null || typeof next !== 'object' || Object.isFrozen(next) || ArrayBuffer.isView(next)) continue
    Object.freeze(next)
    for (const child of Object.values(next)) stack.push(child)
  }
  return value
}
