import { randomInt } from 'node:crypto'
import { request } from 'node:http'
import { setTimeout as sleep } from 'node:timers/promises'
import { RateLimiterRedis } from 'rate-limiter-flexible'
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest'
import { clientKey, createPlaygroundLimiter, PLAYGROUND_KEY_PREFIX, type PlaygroundWindow } from '../src/features/playground/playground.limits.ts'
import { type FakeUpstream, fakeUpstream, fixture, htmlPage } from './support/fake-upstream.ts'
import { fetchOpenApi } from './support/openapi-doc.ts'
import { skipWithoutRedis } from './support/servers.ts'
import { startTrawl, type Trawl } from './support/start-trawl.ts'

const COFFEE = fixture('serp/google/web-desktop/zlurad-coffee.html')
const APP = 'https://app.trawl.test'
const SITE = 'https://trawl.test'
const REDIS_URL = 'redis://127.0.0.1:6379'

interface Answer {
  status: number
  headers: Record<string, string | string[] | undefined>
  text: string
  json(): any
}

/**
 * The limits count per client address, so each test calls from its own loopback address
 * (127.x.y.z: every one of them is this machine) and starts with empty windows.
 */
const freshIp = () => `127.${randomInt(1, 255)}.${randomInt(0, 256)}.${randomInt(1, 255)}`

function call(
  base: string,
  method: string,
  path: string,
  opts: { ip: string; origin?: string; body?: unknown; headers?: Record<string, string> },
): Promise<Answer> {
  const url = new URL(path, base)
  const headers: Record<string, string> = { ...opts.headers }
  if (opts.origin !== undefined) headers.origin = opts.origin
  const payload = opts.body === undefined ? undefined : JSON.stringify(opts.body)
  if (payload !== undefined) headers['content-type'] = 'application/json'
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers, localAddress: opts.ip }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8')
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json: () => JSON.parse(text) })
      })
    })
    req.on('error', reject)
    req.end(payload)
  })
}

let upstream: FakeUpstream
let trawl: Trawl
beforeAll(async () => {
  upstream = await fakeUpstream(htmlPage(COFFEE))
  trawl = await startTrawl({ TRAWL_UPSTREAM_HOSTS: `*=${upstream.url}`, TRAWL_APP_URL: `${APP}/app`, TRAWL_SITE_URL: `${SITE}/` })
})
afterAll(async () => {
  await trawl.close()
  await upstream.close()
})
beforeEach(() => {
  upstream.handle(htmlPage(COFFEE))
})

const search = (query: string, opts: { ip: string; origin?: string; headers?: Record<string, string> }) =>
  call(trawl.base, 'GET', `/playground/search?${query}`, opts)

describe('/playground/search: who may call', () => {
  test('the dashboard origin searches without a key; the body is /v1/search’s and nothing is billed', async () => {
    const res = await search('q=coffee&country=de', { ip: freshIp(), origin: APP })
    expect(res.status).toBe(200)
    expect(res.headers['access-control-allow-origin']).toBe(APP)
    expect(res.headers.vary).toMatch(/origin/i)
    expect(res.headers['access-control-expose-headers']).toMatch(/Retry-After/)
    expect(res.headers['x-credits-used']).toBe('0')
    expect(res.headers['x-cost-usd']).toBe('0')
    expect(res.headers['x-credits-remaining']).toBeUndefined()
    const body = res.json()
    expect(body.results).toHaveLength(10)
    expect(body.results[0]).toMatchObject({ position: 1, title: 'Coffee', link: 'https://en.wikipedia.org/wiki/Coffee' })
    expect(body.knowledge_graph.title).toBe('Coffee')
    expect(body.request).toMatchObject({ q: 'coffee', country: 'de', engine: 'google', num: 10, page: 1 })
    expect(body.meta).toMatchObject({ engine: 'google', credits_used: 0, cached: false, request_id: res.headers['x-request-id'] })
  })

  test('the site origin may POST JSON; format=markdown renders the same results', async () => {
    const res = await call(trawl.base, 'POST', '/playground/search', { ip: freshIp(), origin: SITE, body: { q: 'coffee', format: 'markdown' } })
    expect(res.status).toBe(200)
    expect(res.headers['access-control-allow-origin']).toBe(SITE)
    expect(res.headers['content-type']).toMatch(/^text\/markdown/)
    expect(res.text).toContain('Coffee')
  })

  test('a foreign Origin, a look-alike or none at all is 403 forbidden, without CORS headers', async () => {
    const ip = freshIp()
    for (const origin of ['https://evil.test', `${APP}:8443`, 'http://app.trawl.test', 'null', undefined]) {
      const res = await search('q=coffee', { ip, origin })
      expect(res.status, String(origin)).toBe(403)
      expect(res.json().error).toEqual({ code: 'forbidden', message: expect.stringContaining(`${APP} or ${SITE}`), request_id: res.headers['x-request-id'] })
      expect(res.headers['access-control-allow-origin']).toBeUndefined()
    }
    // Before the body is read: a foreign page's broken JSON is refused as foreign.
    const post = await call(trawl.base, 'POST', '/playground/search', { ip, origin: 'https://evil.test', body: '{' })
    expect(post.status).toBe(403)
    // Refusals count nothing: the same address still has its five searches.
    for (let i = 0; i < 5; i++) expect((await search('q=coffee', { ip, origin: APP })).status).toBe(200)
  })

  test('an API key is neither needed nor used', async () => {
    const res = await search('q=coffee', { ip: freshIp(), origin: APP, headers: { authorization: 'Bearer not-a-key' } })
    expect(res.status).toBe(200)
  })

  test('the CORS preflight of a JSON POST is answered for the allowed origins only', async () => {
    const preflight = (origin: string) =>
      call(trawl.base, 'OPTIONS', '/playground/search', {
        ip: freshIp(),
        origin,
        headers: { 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
      })
    for (const origin of [APP, SITE]) {
      const ok = await preflight(origin)
      expect(ok.status).toBe(204)
      expect(ok.headers['access-control-allow-origin']).toBe(origin)
      expect(ok.headers['access-control-allow-methods']).toMatch(/POST/)
      expect(ok.headers['access-control-allow-headers']).toMatch(/content-type/i)
      expect(ok.headers.vary).toMatch(/origin/i)
    }
    const foreign = await preflight('https://evil.test')
    expect(foreign.status).toBe(403)
    expect(foreign.json().error.code).toBe('forbidden')
    expect(foreign.headers['access-control-allow-origin']).toBeUndefined()
    expect(foreign.headers['access-control-allow-methods']).toBeUndefined()
  })
})

describe('/playground/search: parameters', () => {
  test('parameters outside the subset are 400 invalid_request naming them, and spend nothing', async () => {
    const ip = freshIp()
    const refused: [string, RegExp][] = [
      ['include_content=3', /^include_content is not available on the keyless playground/],
      ['max_age=600', /^max_age is not available/],
      ['fields=results.title', /^fields is not available/],
      ['include_domains=example.com', /^include_domains is not available/],
      ['uule=w+CAIQICIGQmVybGlu', /^uule is not available/],
      ['api_key=trawl_live_x', /^api_key: the playground takes no API key/],
      ['num=20', /^num: the playground returns 10 results a page/],
      ['num=15', /^num must be one of 10, 20, 30, 50, 100$/],
      ['engine=consensus', /^engine: consensus is available with an API key/],
      ['engine=google,bing', /^engine: the playground asks one provider or auto/],
      ['engine=yahoo', /^engine yahoo is not known/],
      ['page=11', /^page must be between 1 and 10/],
      ['gl=us', /^unknown parameter gl: use country/],
    ]
    for (const [query, message] of refused) {
      const res = await search(`q=coffee&${query}`, { ip, origin: APP })
      expect(res.status, query).toBe(400)
      expect(res.json().error, query).toMatchObject({ code: 'invalid_request', message: expect.stringMatching(message) })
      expect(res.headers['access-control-allow-origin']).toBe(APP)
    }
    const array = await call(trawl.base, 'POST', '/playground/search', { ip, origin: APP, body: { q: 'coffee', engine: ['google', 'bing'] } })
    expect(array.json().error.message).toMatch(/^engine: the playground asks one provider or auto/)
    const missing = await call(trawl.base, 'POST', '/playground/search', { ip, origin: APP, body: {} })
    expect(missing.json().error.message).toBe('q is required')
    for (let i = 0; i < 5; i++) expect((await search('q=coffee', { ip, origin: APP })).status).toBe(200)
  })

  test('the allowed parameters reach the engine', async () => {
    const seen = upstream.seen.length
    const res = await search('q=espresso&language=pt-BR&page=2&time=week&safe=active&device=mobile&num=10&engine=google', { ip: freshIp(), origin: APP })
    expect(res.status).toBe(200)
    const url = new URL(upstream.seen[seen]!.url, 'https://www.google.com')
    expect(url.searchParams.get('q')).toBe('espresso')
    expect(url.searchParams.get('hl')).toBe('pt-BR')
    expect(url.searchParams.get('start')).toBe('10')
  })

  test('a repeated search is answered from the /v1/search cache, still free', async () => {
    const q = `cached-${Date.now()}`
    const first = await search(`q=${q}`, { ip: freshIp(), origin: APP })
    expect(first.headers['x-cache']).toBe('MISS')
    const seen = upstream.seen.length
    const second = await search(`q=${q}`, { ip: freshIp(), origin: SITE })
    expect(second.headers['x-cache']).toBe('HIT')
    expect(second.json().meta).toMatchObject({ cached: true, credits_used: 0, cached_at: expect.any(String) })
    expect(upstream.seen.length).toBe(seen)
  })
})

describe('/playground/search: limits per client address', () => {
  test('5 searches a minute; the sixth is 429 rate_limited with Retry-After; other addresses are unaffected', async () => {
    const ip = freshIp()
    for (let i = 0; i < 5; i++) expect((await search(`q=coffee+${i}`, { ip, origin: APP })).status).toBe(200)
    const limited = await search('q=coffee', { ip, origin: APP })
    expect(limited.status).toBe(429)
    expect(limited.json().error).toMatchObject({ code: 'rate_limited', message: expect.stringMatching(/5 searches per minute/) })
    const retryAfter = Number(limited.headers['retry-after'])
    expect(retryAfter).toBeGreaterThanOrEqual(1)
    expect(retryAfter).toBeLessThanOrEqual(60)
    // A browser on the allowed page can read the refusal and its Retry-After.
    expect(limited.headers['access-control-allow-origin']).toBe(APP)
    expect((await search('q=coffee', { ip: freshIp(), origin: APP })).status).toBe(200)
  })

  test('no account, no ledger row, no reservation, no usage counter is ever written', async () => {
    await search('q=ledger', { ip: freshIp(), origin: APP })
    const db = trawl.services.store.db
    for (const table of ['accounts', 'api_keys', 'ledger', 'reservations', 'usage_counters'] as const) {
      expect(await db.selectFrom(table).selectAll().execute(), table).toEqual([])
    }
  })

  test('the limiter: 5 per minute and 20 per day, each refusal with the time until its window frees (short windows)', async () => {
    await dayLimitScenario(createPlaygroundLimiter(null, SHORT_WINDOWS))
  })

  test('IPv6 clients count per /64; IPv4-mapped addresses as IPv4', () => {
    expect(clientKey('203.0.113.7')).toBe('203.0.113.7')
    expect(clientKey('::ffff:203.0.113.7')).toBe('203.0.113.7')
    expect(clientKey('2001:db8:1:2:aaaa::1')).toBe('2001:db8:1:2::/64')
    expect(clientKey('2001:0db8:0001:0002:ffff:0:0:9')).toBe('2001:db8:1:2::/64')
    expect(clientKey('2001:db8::1')).toBe('2001:db8:0:0::/64')
    expect(clientKey('fe80::1%eth0')).toBe('fe80:0:0:0::/64')
    expect(clientKey('::1')).toBe('0:0:0:0::/64')
  })
})

/** The real windows with their lengths shrunk: a "minute" of 1 s and a "day" of 30 s. */
const SHORT_WINDOWS: PlaygroundWindow[] = [
  { name: 'minute', points: 5, seconds: 1 },
  { name: 'day', points: 20, seconds: 30 },
]

async function dayLimitScenario(limiter: ReturnType<typeof createPlaygroundLimiter>) {
  const ip = freshIp()
  for (let minute = 0; minute < 4; minute++) {
    for (let i = 0; i < 5; i++) await limiter.consume(ip)
    await expect(limiter.consume(ip)).rejects.toMatchObject({
      code: 'rate_limited',
      message: expect.stringMatching(/per minute/),
      opts: { retryAfterSeconds: 1 },
    })
    await sleep(1100)
  }
  // 20 counted: the minute window is free again, the day's is full until it ends.
  const refused = await limiter.consume(ip).catch((e) => e)
  expect(refused).toMatchObject({ code: 'rate_limited', message: expect.stringMatching(/20 searches per day/) })
  expect(refused.opts.retryAfterSeconds).toBeGreaterThan(20)
  expect(refused.opts.retryAfterSeconds).toBeLessThanOrEqual(30)
}

describe.skipIf(skipWithoutRedis)('/playground/search with Redis', () => {
  let a: Trawl
  let b: Trawl
  const used: string[] = []
  beforeAll(async () => {
    // Two processes of one deployment: one database, one Redis.
    const env = { TRAWL_REDIS_URL: REDIS_URL, TRAWL_UPSTREAM_HOSTS: `*=${upstream.url}`, TRAWL_APP_URL: `${APP}/app` }
    a = await startTrawl(env)
    b = await startTrawl({ ...env, TRAWL_DATABASE_URL: a.services.config.databaseUrl })
    // Until its connection is up, each process counts in its own insurance limiter.
    for (const t of [a, b]) while (t.services.redis!.status !== 'ready') await sleep(20)
  })
  afterAll(async () => {
    const redis = a.services.redis!
    for (const window of ['minute', 'day']) {
      const limiter = new RateLimiterRedis({ storeClient: redis, keyPrefix: `${PLAYGROUND_KEY_PREFIX}:${window}`, points: 1, duration: 1 })
      for (const ip of used) await limiter.delete(ip)
    }
    await a.close()
    await b.close()
  })
  const ip = () => {
    const fresh = freshIp()
    used.push(fresh)
    return fresh
  }

  test('every process counts the same windows', async () => {
    const client = ip()
    for (const server of [a, a, a, b, b]) expect((await call(server.base, 'GET', '/playground/search?q=coffee', { ip: client, origin: APP })).status).toBe(200)
    const limited = await call(a.base, 'GET', '/playground/search?q=coffee', { ip: client, origin: APP })
    expect(limited.status).toBe(429)
    expect(limited.json().error.code).toBe('rate_limited')
    const minute = new RateLimiterRedis({ storeClient: a.services.redis!, keyPrefix: `${PLAYGROUND_KEY_PREFIX}:minute`, points: 5, duration: 60 })
    expect((await minute.get(client))?.consumedPoints).toBe(6)
  })

  test('a full day window refuses with the time until it ends', async () => {
    const client = ip()
    // Twenty searches already counted today, e.g. by other processes over the past hours.
    const day = new RateLimiterRedis({ storeClient: a.services.redis!, keyPrefix: `${PLAYGROUND_KEY_PREFIX}:day`, points: 20, duration: 86_400 })
    await day.set(client, 20, 86_400)
    const limited = await call(b.base, 'GET', '/playground/search?q=coffee', { ip: client, origin: APP })
    expect(limited.status).toBe(429)
    expect(limited.json().error.message).toMatch(/20 searches per day/)
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(86_000)
  })

  test('the limiter in Redis: 5 per minute and 20 per day (short windows)', async () => {
    const prefix = `trawl:test-playground:${Date.now()}`
    await dayLimitScenario(createPlaygroundLimiter(a.services.redis, SHORT_WINDOWS, prefix))
  })
})

describe('OpenAPI', () => {
  test('documents GET and POST under the playground tag, keyless, with /v1/search’s response', async () => {
    const doc = await fetchOpenApi(trawl.base)
    const path = doc.paths['/playground/search']
    expect(Object.keys(path).sort()).toEqual(['get', 'post'])
    for (const op of [path.get, path.post]) {
      expect(op.tags).toEqual(['playground'])
      expect(op.security).toEqual([])
      expect(op.responses['200'].content['application/json'].schema.properties.results.type).toBe('array')
      expect(op.responses['4XX'].content['application/json'].schema.properties.error).toBeTruthy()
    }
    expect(path.get.parameters.map((p: { name: string }) => p.name).sort()).toEqual(
      ['country', 'device', 'engine', 'format', 'language', 'location', 'num', 'page', 'q', 'safe', 'time'].sort(),
    )
    expect(path.post.requestBody.content['application/json'].schema.properties.include_content).toBeUndefined()
    // The one depth the playground serves, where /v1/search lists five.
    expect(path.post.requestBody.content['application/json'].schema.properties.num).toMatchObject({ enum: [10] })
  })
})
