import type { IncomingMessage, ServerResponse } from 'node:http'
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest'
import { searxngAnswer } from '../src/engines/searxng/searxng.fixture.ts'
import { SERPER_ANSWERS } from '../src/engines/serper/serper.fixture.ts'
import { type FakeUpstream, fakeUpstream } from './support/fake-upstream.ts'
import { startTrawl, type Trawl } from './support/start-trawl.ts'

/**
 * Bring your own upstream, through the HTTP API: the operator's SearXNG instance
 * (TRAWL_SEARXNG_URL) and Serper key (TRAWL_SERPER_API_KEY), answered by one loopback server that
 * speaks both services' documented shapes; every scraped engine host answers 429 there.
 */
const SEARX_HOST = 'searx.test:8888'
const SERPER_HOST = 'google.serper.dev'
const SERPER_KEY = 'serper-key-0123456789abcdef'

type SearxMode = 'ok' | 'json_disabled' | 'engines_failed'
type SerperMode = 'ok' | 'bad_key' | 'rate_limited' | 'no_credits'
let searxMode: SearxMode = 'ok'
let serperMode: SerperMode = 'ok'
const hits: string[] = []

const json = (res: ServerResponse, status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body))

function answer(req: IncomingMessage, res: ServerResponse) {
  const host = String(req.headers['x-forwarded-host'] ?? '')
  const url = new URL(req.url ?? '/', 'http://x')
  hits.push(host)
  if (host === SEARX_HOST) {
    if (url.pathname !== '/search') return res.writeHead(404).end()
    // SearXNG: a format missing from settings.yml search.formats is a 403 (webapp.py flask.abort(403)).
    if (searxMode === 'json_disabled' || url.searchParams.get('format') !== 'json')
      return res.writeHead(403, { 'content-type': 'text/html' }).end('<h1>Forbidden</h1>')
    if (searxMode === 'engines_failed') return json(res, 200, searxngAnswer({ results: [], infoboxes: [], unresponsive_engines: [['google', 'CAPTCHA']] }))
    const category = url.searchParams.get('categories')
    if (category === 'images') {
      return json(
        res,
        200,
        searxngAnswer({
          results: [
            { url: 'https://photos.example/cup', title: 'A cup', img_src: 'https://photos.example/cup.jpg', resolution: '800 x 600', template: 'images.html' },
          ],
        }),
      )
    }
    return json(res, 200, searxngAnswer())
  }
  if (host === SERPER_HOST) {
    if (serperMode === 'bad_key' || req.headers['x-api-key'] !== SERPER_KEY) return json(res, 403, { message: 'Unauthorized.', statusCode: 403 })
    if (serperMode === 'rate_limited') return json(res, 429, { message: 'Too many requests', statusCode: 429 })
    if (serperMode === 'no_credits') return json(res, 400, { message: 'Not enough credits', statusCode: 400 })
    const body = SERPER_ANSWERS[url.pathname.slice(1)]
    return body ? json(res, 200, body) : res.writeHead(404).end()
  }
  // Every scraped engine refuses.
  res.writeHead(429, { 'retry-after': '60' }).end('slow down')
}

let upstream: FakeUpstream
let trawl: Trawl
let plain: Trawl
let key: string
let plainKey: string

beforeAll(async () => {
  upstream = await fakeUpstream(answer)
  const env = { TRAWL_UPSTREAM_HOSTS: `*=${upstream.url}`, TRAWL_UPSTREAM_TIMEOUT_MS: '2000', TRAWL_BROWSER: 'off' }
  trawl = await startTrawl({ ...env, TRAWL_SEARXNG_URL: `http://${SEARX_HOST}`, TRAWL_SERPER_API_KEY: SERPER_KEY })
  plain = await startTrawl(env)
  key = (await trawl.account({ plan: 'enterprise', rate_limit_rps: 1000, credits: 1000 })).key
  plainKey = (await plain.account({ plan: 'enterprise', rate_limit_rps: 1000, credits: 1000 })).key
})
afterAll(async () => {
  await trawl?.close()
  await plain?.close()
  await upstream?.close()
})
beforeEach(() => {
  searxMode = 'ok'
  serperMode = 'ok'
  hits.length = 0
  upstream.seen.length = 0
})

const get = (path: string, server = trawl, k = key) => fetch(`${server.base}${path}`, { headers: { authorization: `Bearer ${k}` } })
type Route = { engine: string; outcome: string; reason?: string }
const seenAt = (host: string) => upstream.seen.filter((s) => s.host === host).map((s) => ({ url: new URL(s.url, 'http://x'), headers: s.headers }))

describe('configured: TRAWL_SEARXNG_URL and TRAWL_SERPER_API_KEY', () => {
  test('GET /v1/engines lists both right after the primary, in auto, not in consensus', async () => {
    const body = await (await get('/v1/engines')).json()
    const names = body.engines.map((e: { name: string }) => e.name)
    expect(names.slice(0, 3)).toEqual(['google', 'searxng', 'serper'])
    const row = (name: string) => body.engines.find((e: { name: string }) => e.name === name)
    expect(row('searxng')).toMatchObject({ auto: true, consensus: false, primary: false, verticals: ['search', 'news', 'images', 'videos'] })
    expect(row('serper')).toMatchObject({
      auto: true,
      consensus: false,
      verticals: ['search', 'news', 'images', 'videos', 'places', 'shopping', 'scholar', 'autocomplete'],
    })
    expect(row('serper').routes).toEqual([expect.objectContaining({ name: 'api', available: true })])
  })

  test("engine=searxng asks the instance's JSON API and answers in Trawl's shape", async () => {
    const res = await get('/v1/search?q=espresso&engine=searxng')
    expect(res.status).toBe(200)
    const body = await res.json()
    expect(body.meta).toMatchObject({ engine: 'searxng', credits_used: 1 })
    expect(body.results.map((r: { link: string }) => r.link)).toEqual([
      'https://en.wikipedia.org/wiki/Espresso',
      'https://www.example.com/guide',
      'https://untitled.example.org/page',
    ])
    expect(body.results[1]).toMatchObject({ position: 2, title: 'How to pull a shot', snippet: 'A step by step guide & tips.', domain: 'example.com' })
    expect(body.knowledge_graph).toMatchObject({ title: 'Espresso', website: 'https://espresso.example/' })
    expect(body.answer_box).toMatchObject({ type: 'answer', answer: 'Espresso: 63 mg of caffeine per shot' })
    expect(body.related_searches).toEqual([{ query: 'espresso machine' }, { query: 'espresso martini' }])
    const [sent] = seenAt(SEARX_HOST)
    expect(sent?.url.pathname).toBe('/search')
    expect(Object.fromEntries(sent?.url.searchParams ?? [])).toEqual({
      q: 'espresso',
      format: 'json',
      categories: 'general',
      pageno: '1',
      language: 'en-US',
      safesearch: '0',
    })
    expect(hits.filter((h) => h !== SEARX_HOST)).toEqual([])
  })

  test('engine=serper asks google.serper.dev with the key in X-API-KEY and answers in Trawl’s shape', async () => {
    const res = await get('/v1/search?q=apple%20inc&engine=serper&time=week')
    expect(res.status).toBe(200)
    const body = await res.json()
    expect(body.meta).toMatchObject({ engine: 'serper', credits_used: 1 })
    expect(body.results.map((r: { title: string }) => r.title)).toEqual(['Apple', 'Apple Inc. - Wikipedia'])
    expect(body.results[0].sitelinks).toHaveLength(2)
    expect(body.knowledge_graph).toMatchObject({ title: 'Apple', source: { name: 'Wikipedia' } })
    expect(body.answer_box).toMatchObject({ type: 'answer', answer: 'April 1, 1976' })
    expect(body.people_also_ask[0].question).toBe('What does Apple Inc do?')
    const [sent] = seenAt(SERPER_HOST)
    expect(sent?.url.pathname).toBe('/search')
    expect(Object.fromEntries(sent?.url.searchParams ?? [])).toEqual({ q: 'apple inc', gl: 'us', hl: 'en', num: '10', tbs: 'qdr:w' })
    expect(sent?.headers['x-api-key']).toBe(SERPER_KEY)
  })

  test('verticals: images from SearXNG, news from Serper', async () => {
    const images = await (await get('/v1/images?q=cup&engine=searxng')).json()
    expect(images.meta.engine).toBe('searxng')
    expect(images.results[0]).toMatchObject({ position: 1, title: 'A cup', image_url: 'https://photos.example/cup.jpg', image_width: 800, image_height: 600 })
    expect(seenAt(SEARX_HOST)[0]?.url.searchParams.get('categories')).toBe('images')
    const news = await (await get('/v1/news?q=solar%20power&engine=serper')).json()
    expect(news.meta.engine).toBe('serper')
    expect(news.results[0]).toMatchObject({ title: 'Solar power hits a record', source: 'Example News', date: '3 hours ago' })
    expect(seenAt(SERPER_HOST).map((s) => s.url.pathname)).toEqual(['/news'])
  })

  test('auto: when the scraped primary is refused SearXNG answers; when SearXNG cannot, Serper does', async () => {
    const viaSearx = await (await get('/v1/search?q=espresso&engine=auto')).json()
    expect(viaSearx.meta.engine).toBe('searxng')
    expect(viaSearx.meta.credits_used).toBe(1)
    const route = viaSearx.meta.route as Route[]
    expect(route[0]).toMatchObject({ engine: 'google' })
    expect(['blocked', 'skipped']).toContain(route[0]?.outcome)
    expect(route.at(-1)).toMatchObject({ engine: 'searxng', outcome: 'ok' })

    searxMode = 'json_disabled'
    const viaSerper = await (await get('/v1/search?q=apple%20inc&engine=auto')).json()
    expect(viaSerper.meta.engine).toBe('serper')
    const searx = (viaSerper.meta.route as Route[]).filter((r) => r.engine === 'searxng')
    expect(searx.map((r) => r.outcome)).not.toContain('ok')
    expect(searx.some((r) => /does not allow format=json/.test(r.reason ?? ''))).toBe(true)
  })

  test('a list falls back along it: bing refused, then serper', async () => {
    const body = await (await get('/v1/search?q=apple%20inc&engine=bing,serper')).json()
    expect(body.meta.engine).toBe('serper')
    expect((body.meta.route as Route[]).map((r) => [r.engine, r.outcome])).toEqual([
      ['bing', 'blocked'],
      ['serper', 'ok'],
    ])
  })

  test('consensus never asks them: they repeat other engines’ results', async () => {
    const res = await get('/v1/search?q=espresso&engine=consensus')
    expect(res.status).toBe(503)
    expect(hits).not.toContain(SEARX_HOST)
    expect(hits).not.toContain(SERPER_HOST)
  })

  test('a refused Serper key is a 503 whose message says so, on search and on a vertical; nothing is billed', async () => {
    serperMode = 'bad_key'
    const res = await get('/v1/search?q=x&engine=serper')
    expect(res.status).toBe(503)
    const error = (await res.json()).error
    expect(error.code).toBe('upstream_error')
    expect(error.message).toContain('Serper refused the API key; check TRAWL_SERPER_API_KEY')
    expect(res.headers.get('x-credits-used')).toBe('0')
    const news = await get('/v1/news?q=x&engine=serper')
    expect(news.status).toBe(503)
    expect((await news.json()).error.message).toContain('Serper refused the API key')
  })

  test('Serper out of credits or rate limited is a block (503 upstream_blocked) that says which', async () => {
    serperMode = 'no_credits'
    const credits = await (await get('/v1/search?q=x&engine=serper')).json()
    expect(credits.error).toMatchObject({ code: 'upstream_blocked' })
    expect(credits.error.message).toContain('the Serper account is out of credits')
    serperMode = 'rate_limited'
    const limited = await (await get('/v1/search?q=x&engine=serper')).json()
    expect(limited.error).toMatchObject({ code: 'upstream_blocked' })
    expect(limited.error.message).toContain('Serper rate limited the key or its credits ran out')
  })

  test('a SearXNG instance with JSON turned off is a 503 that says how to turn it on', async () => {
    searxMode = 'json_disabled'
    const res = await get('/v1/search?q=x&engine=searxng')
    expect(res.status).toBe(503)
    const error = (await res.json()).error
    expect(error.code).toBe('upstream_error')
    expect(error.message).toContain('the SearXNG instance does not allow format=json; enable it in settings.yml search.formats')
    const images = await get('/v1/images?q=x&engine=searxng')
    expect(images.status).toBe(503)
    expect((await images.json()).error.message).toContain('does not allow format=json')
  })

  test("no results while the instance's engines failed is a 503 naming them, not an empty answer", async () => {
    searxMode = 'engines_failed'
    const res = await get('/v1/search?q=x&engine=searxng')
    expect(res.status).toBe(503)
    const error = (await res.json()).error
    expect(error.code).toBe('upstream_blocked')
    expect(error.message).toContain("the SearXNG instance's engines failed: google (CAPTCHA)")
  })
})

describe('not configured', () => {
  test('neither is listed, and naming one is a 400 that lists the engines this server has', async () => {
    const body = await (await get('/v1/engines', plain, plainKey)).json()
    const names = body.engines.map((e: { name: string }) => e.name)
    expect(names).not.toContain('searxng')
    expect(names).not.toContain('serper')
    for (const name of ['serper', 'searxng']) {
      const res = await get(`/v1/search?q=x&engine=${name}`, plain, plainKey)
      expect(res.status).toBe(400)
      const message = (await res.json()).error.message as string
      expect(message).toContain(`engine ${name}`)
      expect(message).toContain(names.join(', '))
    }
    const news = await get('/v1/news?q=x&engine=serper', plain, plainKey)
    expect(news.status).toBe(400)
    expect(hits).toEqual([])
  })
})
