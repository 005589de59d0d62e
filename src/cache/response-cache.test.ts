import { describe, expect, it } from 'vitest'
import { type CachedValue, type ResponseCache, withMemory } from './response-cache.ts'

/** A shared cache that counts its reads, so a test sees which gets the memory layer answered. */
function countingStore() {
  const rows = new Map<string, string>()
  let reads = 0
  const cache: ResponseCache = {
    async get<T>(key: string) {
      reads++
      const json = rows.get(key)
      return json === undefined ? null : ({ value: JSON.parse(json), storedAt: 0, jsonChars: json.length } as CachedValue<T>)
    },
    async set(key, value, _ttl, json = JSON.stringify(value)) {
      rows.set(key, json)
    },
    prune: async () => 0,
  }
  return { cache, reads: () => reads }
}

describe('memory layer over the response cache', () => {
  it('remembers what is read back, frozen, and answers it again without a read', async () => {
    const store = countingStore()
    const cache = withMemory(store.cache)
    await cache.set('k', { a: [1, 2], b: 'x' }, 60_000)
    expect(store.reads()).toBe(0)
    expect((await cache.get('k'))?.value).toEqual({ a: [1, 2], b: 'x' })
    const hit = await cache.get<{ a: number[] }>('k')
    expect(Object.isFrozen(hit?.value.a)).toBe(true)
    expect(store.reads()).toBe(1)
    // A new value under the key is not hidden by the remembered one.
    await cache.set('k', { a: [3], b: 'y' }, 60_000)
    expect((await cache.get('k'))?.value).toEqual({ a: [3], b: 'y' })
    expect(store.reads()).toBe(2)
  })

  it('keeps to its JSON budget: the oldest entries go first and are read from the store again', async () => {
    const store = countingStore()
    const cache = withMemory(store.cache, { maxEntries: 100, ttlMs: 60_000, maxJsonChars: 1000 })
    const page = (n: number) => ({ n, text: 'x'.repeat(200) })
    for (let n = 0; n < 10; n++) {
      await cache.set(`p${n}`, page(n), 60_000)
      await cache.get(`p${n}`)
    }
    expect(store.reads()).toBe(10)
    // About 210 characters each: the last four fit in 1,000.
    for (let n = 6; n < 10; n++) expect((await cache.get<{ n: number }>(`p${n}`))?.value.n).toBe(n)
    expect(store.reads()).toBe(10)
    expect((await cache.get<{ n: number }>('p0'))?.value.n).toBe(0)
    expect(store.reads()).toBe(11)
  })

  it('does not remember an entry larger than a quarter of the budget', async () => {
    const store = countingStore()
    const cache = withMemory(store.cache, { maxEntries: 100, ttlMs: 60_000, maxJsonChars: 1000 })
    await cache.set('big', { text: 'y'.repeat(400) }, 60_000)
    await cache.get('big')
    expect((await cache.get<{ text: string }>('big'))?.value.text).toHaveLength(400)
    expect(store.reads()).toBe(2)
  })

  it('drops entries past their time', async () => {
    const store = countingStore()
    const cache = withMemory(store.cache, { maxEntries: 100, ttlMs: 0, maxJsonChars: 1000 })
    await cache.set('old', { v: 1 }, 60_000)
    await cache.get('old')
    expect((await cache.get<{ v: number }>('old'))?.value.v).toBe(1)
    expect(store.reads()).toBe(2)
  })
})
