import type { Redis } from 'ioredis'
import type { Store } from '../store/database.ts'
import { deleteExpiredCacheEntries, findCacheEntry, upsertCacheEntry } from './response-cache.store.ts'

/** How long a search result or read page is kept; `max_age` can only reach back this far. */
export const CACHE_TTL_MS = 24 * 3600_000

export interface CachedValue<T = unknown> {
  value: T
  storedAt: number
  /** Length of the stored JSON, where the store knows it: what the memory layer budgets by. */
  jsonChars?: number
}

/** Finished responses keyed by their normalised request; read back only when the caller sends max_age. */
export interface ResponseCache {
  get<T>(key: string): Promise<CachedValue<T> | null>
  /** `json`: the value's JSON, when the caller has made it already. */
  set(key: string, value: unknown, ttlMs: number, json?: string): Promise<void>
  /** Drops expired entries; returns how many. */
  prune(): Promise<number>
}

export function databaseCache(store: Store): ResponseCache {
  return {
    async get(key) {
      const row = await findCacheEntry(store, key)
      if (!row || row.expires_at <= Date.now()) return null
      return { value: JSON.parse(row.value), storedAt: row.stored_at, jsonChars: row.value.length }
    },
    async set(key, value, ttlMs, json = JSON.stringify(value)) {
      const now = Date.now()
      await upsertCacheEntry(store, { key, value: json, stored_at: now, expires_at: now + ttlMs })
    },
    prune: () => deleteExpiredCacheEntries(store, Date.now()),
  }
}

export function redisCache(redis: Redis): ResponseCache {
  return {
    async get(key) {
      const raw = await redis.get(`trawl:cache:${key}`)
      return raw ? { ...(JSON.parse(raw) as CachedValue<never>), jsonChars: raw.length } : null
    },
    async set(key, value, ttlMs, json = JSON.stringify(value)) {
      await redis.set(`trawl:cache:${key}`, `{"value":${json},"storedAt":${Date.now()}}`, 'PX', ttlMs)
    },
    prune: async () => 0, // Redis expires keys itself
  }
}

/**
 * A small in-process layer over the shared cache: hot entries skip the database or Redis round trip
 * and the JSON parse. Entries are immutable once stored, and deep-frozen to say so: callers copy
 * before changing anything, and the renderer keeps the completed shape and JSON text of frozen
 * values (output/stable-shape.ts), so a replayed body is not serialised again. A remembered entry
 * is at most `ttlMs` behind what another process wrote since. Memory is bounded by entries and by
 * JSON size, and entries past `ttlMs` are dropped as new ones come.
 */
export function withMemory(inner: ResponseCache, opts = { maxEntries: 2000, ttlMs: 10_000, maxJsonChars: 8_000_000 }): ResponseCache {
  // Insertion order is age order: every entry lives `ttlMs`, so the oldest are first to expire.
  const memory = new Map<string, { hit: CachedValue; until: number; chars: number }>()
  let chars = 0
  const forget = (key: string) => {
    const entry = memory.get(key)
    if (!entry) return
    chars -= entry.chars
    memory.delete(key)
  }
  const remember = (key: string, hit: CachedValue, size: number) => {
    forget(key)
    if (size > opts.maxJsonChars / 4) return // one page must not push out everything else
    const now = Date.now()
    for (const [oldest, entry] of memory) {
      if (entry.until > now && memory.size < opts.maxEntries && chars + size <= opts.maxJsonChars) break
      forget(oldest)
    }
    memory.set(key, { hit, until: now + opts.ttlMs, chars: size })
    chars += size
  }
  return {
    async get<T>(key: string) {
      const entry = memory.get(key)
      if (entry && entry.until > Date.now()) return entry.hit as CachedValue<T>
      const hit = await inner.get<T>(key)
      if (hit) remember(key, { value: deepFreeze(hit.value), storedAt: hit.storedAt }, hit.jsonChars ?? 0)
      else forget(key)
      return hit
    },
    // Only what is read back is remembered: most stored values (a crawl's pages, searches asked
    // once) never are, and copying each into memory would cost the copy and the memory for nothing.
    async set(key, value, ttlMs, json?: string) {
      forget(key)
      await inner.set(key, value, ttlMs, json)
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
