import { Redis } from 'ioredis'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createLimiter } from '../src/http/rate-limit.ts'
import { type FakeUpstream, fakeUpstream, fixture, htmlPage } from './support/fake-upstream.ts'
import { skipWithoutRedis } from './support/servers.ts'
import { startTrawl, type Trawl } from './support/start-trawl.ts'
import { waitFor } from './support/webhook-receiver.ts'

/** The machine's Redis (CI starts it): cache and rate limits move there when TRAWL_REDIS_URL is set. */
const REDIS_URL = 'redis://127.0.0.1:6379'

const COFFEE = fixture('serp/google/web-desktop/zlurad-coffee.html')
let upstream: FakeUpstream
beforeAll(async () => {
  upstream = await fakeUpstream(htmlPage(COFFEE))
})
afterAll(() => upstream.close())

describe.skipIf(skipWithoutRedis)('with Redis', () => {
  let a: Trawl
  let b: Trawl
  beforeAll(async () => {
    // Two API instances sharing one database and one Redis, as two processes of one deployment would.
    a = await startTrawl({ TRAWL_REDIS_URL: REDIS_URL, TRAWL_UPSTREAM_HOSTS: `*=${upstream.url}` })
    b = await startTrawl({ TRAWL_REDIS_URL: REDIS_URL, TRAWL_UPSTREAM_HOSTS: `*=${upstream.url}`, TRAWL_DATABASE_URL: a.services.config.databaseUrl })
  })
  afterAll(async () => {
    await a.close()
    await b.close()
  })

  test('a result cached by one process is a max_age hit in another', async () => {
    const q = `redis-${Date.now()}`
    const ka = (await a.account({ plan: 'pro' })).key
    const kb = (await a.account({ plan: 'pro' })).key
    const first = await fetch(`${a.base}/v1/search?q=${q}`, { headers: { authorization: `Bearer ${ka}` } })
    expect(first.headers.get('x-cache')).toBe('MISS')
    const seen = upstream.seen.length
    const second = await fetch(`${b.base}/v1/search?q=${q}&max_age=600`, { headers: { authorization: `Bearer ${kb}` } })
    expect(second.headers.get('x-cache')).toBe('HIT')
    expect(second.headers.get('x-credits-used')).toBe('0.5')
    expect(upstream.seen.length).toBe(seen)
    // The entry lives in Redis, not in the shared database's cache table.
    expect(await a.services.store.db.selectFrom('cache_entries').selectAll().execute()).toEqual([])
    expect((await a.services.redis!.keys('trawl:cache:search:*')).length).toBeGreaterThan(0)
  })

  test("one key's rate limit is shared by every process through Redis", async () => {
    // Two limiters over one Redis stand for two API processes; calls alternate between them.
    const first = createLimiter(a.services.redis)
    const second = createLimiter(b.services.redis)
    const id = `key-${Date.now()}`
    await first.consume(id, 3)
    await second.consume(id, 3)
    await first.consume(id, 3)
    const refused = await second.consume(id, 3).catch((e) => e)
    expect(refused).toMatchObject({ code: 'rate_limited', opts: { retryAfterSeconds: 1 } })
  })

  test('the HTTP API limits through Redis', async () => {
    const key = (await a.account({ plan: 'free' })).key
    const burst = await Promise.all(
      Array.from({ length: 30 }, (_, i) => fetch(`${(i % 2 ? a : b).base}/v1/search?q=rl`, { headers: { authorization: `Bearer ${key}` } })),
    )
    expect(burst.filter((r) => r.status === 429).length).toBeGreaterThan(0)
    expect(burst.filter((r) => r.status === 200).length).toBeGreaterThanOrEqual(5)
  })

  test('engine health is shared: a provider blocked in one process is skipped by auto in another', async () => {
    await forgetBingHealth()
    const key = (await a.account({ plan: 'pro' })).key
    const engines = async (t: Trawl) => (await (await fetch(`${t.base}/v1/engines`, { headers: { authorization: `Bearer ${key}` } })).json()).engines
    const bing = async (t: Trawl) => (await engines(t)).find((e: { name: string }) => e.name === 'bing')
    expect((await bing(b)).state).toBe('healthy')
    upstream.handle((req, res) => (req.headers['x-forwarded-host'] === 'www.bing.com' ? res.writeHead(429).end() : htmlPage(COFFEE)(req, res)))
    try {
      const blocked = await fetch(`${a.base}/v1/search?q=coffee&engine=bing`, { headers: { authorization: `Bearer ${key}` } })
      expect(blocked.status).toBe(503)
      // b reads the shared record on /v1/engines (and every 2 s in the background).
      expect(await waitFor(async () => (await bing(b)).state === 'blocked')).toBe(true)
      const seen = upstream.seen.length
      const res = await fetch(`${b.base}/v1/search?q=coffee&engine=bing,google`, { headers: { authorization: `Bearer ${key}` } })
      const body = await res.json()
      expect(body.meta.engine).toBe('google')
      expect(body.meta.route[0]).toMatchObject({ engine: 'bing', outcome: 'skipped' })
      expect(upstream.seen.slice(seen).map((s) => s.host)).toEqual(['www.google.com'])
    } finally {
      upstream.handle(htmlPage(COFFEE))
      await forgetBingHealth()
    }
  })

  async function forgetBingHealth() {
    const redis = new Redis(REDIS_URL)
    await redis.pipeline().del('trawl:engine-health:bing:search').srem('trawl:engine-health:keys', 'bing:search').exec()
    redis.disconnect()
  }

  test('/healthz reports the cache', async () => {
    expect(await (await fetch(`${a.base}/healthz`)).json()).toMatchObject({ status: 'ok', checks: { database: 'ok', cache: 'ok' } })
  })
})

test('when Redis is down, /healthz is 503 and searches still work (limits fall back to memory)', async () => {
  const t = await startTrawl({ TRAWL_REDIS_URL: 'redis://127.0.0.1:1', TRAWL_UPSTREAM_HOSTS: `*=${upstream.url}` })
  try {
    const health = await fetch(`${t.base}/healthz`)
    expect(health.status).toBe(503)
    expect((await health.json()).checks.cache).toMatch(/^down/)
    const key = (await t.account({ plan: 'free' })).key
    const res = await fetch(`${t.base}/v1/search?q=coffee`, { headers: { authorization: `Bearer ${key}` } })
    expect(res.status).toBe(200)
    const burst = await Promise.all(Array.from({ length: 8 }, () => fetch(`${t.base}/v1/search?q=x`, { headers: { authorization: `Bearer ${key}` } })))
    expect(burst.some((r) => r.status === 429)).toBe(true)
  } finally {
    await t.close()
  }
})
