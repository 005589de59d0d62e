import type { IncomingMessage, ServerResponse } from 'node:http'
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest'
import { type FakeUpstream, fakeUpstream, fixture } from './support/fake-upstream.ts'
import { startTrawl, type Trawl } from './support/start-trawl.ts'

/**
 * Engine choice through the HTTP API: every provider answered by a fake upstream from its real
 * saved pages, each switchable into CAPTCHA, 429, timeout, empty and layout-changed modes.
 */
type Mode = 'ok' | 'captcha' | '429' | 'timeout' | 'empty' | 'layout' | 'not_a_result_page'

interface ProviderPages {
  host: string
  ok: string
  empty: string
  captcha?: string
}

const PAGES: Record<string, ProviderPages> = {
  google: {
    host: 'www.google.com',
    ok: 'serp/google/web-desktop/zlurad-coffee.html',
    empty: 'serp/google/web-desktop/zlurad-no-results.html',
    captcha: 'serp/google/web-desktop/zlurad-recaptcha.html',
  },
  bing: { host: 'www.bing.com', ok: 'serp/bing/web/zlurad-coffee-nojs.html', empty: 'serp/bing/web/zlurad-no-results-nojs.html' },
  duckduckgo: {
    host: 'html.duckduckgo.com',
    ok: 'serp/duckduckgo/html/eino-eino-results.html',
    empty: 'serp/duckduckgo/html/eino-no-results-eof.html',
    captcha: 'serp/duckduckgo/blocked/ddgcli-anomaly-challenge-2026.html',
  },
  mojeek: { host: 'www.mojeek.com', ok: 'serp/mojeek/web/wsmcp-javascript-tutorial-2026.html', empty: 'serp/mojeek/web/wsmcp-javascript-tutorial-2026.html' },
}

const modes = new Map<string, Mode>()
const hits: string[] = []

/** Class names renamed, headings turned into divs, links moved to a data attribute: a redesign, to a parser. */
const relayout = (html: string) =>
  html
    .replace(/\bclass="/g, 'class="zz')
    .replace(/<a (href=)?/g, '<a data-')
    .replace(/<(\/?)h[1-6]\b/g, '<$1div')
    .replace(/role="heading"/g, '')

function answer(req: IncomingMessage, res: ServerResponse) {
  const host = String(req.headers['x-forwarded-host'] ?? '')
  const name = Object.keys(PAGES).find((n) => PAGES[n]?.host === host)
  const pages = name ? PAGES[name] : undefined
  if (!name || !pages) return res.writeHead(404).end()
  hits.push(name)
  const html = (file: string, status = 200) => res.writeHead(status, { 'content-type': 'text/html; charset=utf-8' }).end(fixture(file))
  if (name === 'bing' && req.url?.startsWith('/images/') && (modes.get(name) ?? 'ok') === 'ok') return html('serp/bing/images/aql-rpg-title-screen.html')
  switch (modes.get(name) ?? 'ok') {
    case 'ok':
      return html(pages.ok)
    case 'empty':
      return html(pages.empty)
    case 'layout':
      return res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(relayout(fixture(pages.ok).toString('utf8')))
    case 'captcha':
      return pages.captcha ? html(pages.captcha, name === 'google' ? 429 : 200) : res.writeHead(403).end('captcha')
    case '429':
      return res.writeHead(429, { 'retry-after': '60' }).end('slow down')
    case 'timeout':
      return setTimeout(() => res.writeHead(200).end('late'), 3000).unref()
    case 'not_a_result_page':
      return res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<html><body><p>Something went wrong.</p></body></html>')
  }
}

let trawl: Trawl
let upstream: FakeUpstream
let key: string
/**
 * Long enough that a loaded machine still asks within it after the last refusal, short enough to
 * wait out between tests.
 */
const COOLDOWN_MS = 1000

beforeAll(async () => {
  upstream = await fakeUpstream(answer)
  trawl = await startTrawl({ TRAWL_UPSTREAM_HOSTS: `*=${upstream.url}`, TRAWL_UPSTREAM_TIMEOUT_MS: '600', TRAWL_ENGINE_COOLDOWN_MS: String(COOLDOWN_MS) })
  key = (await trawl.account({ plan: 'enterprise', rate_limit_rps: 1000, credits: 1000 })).key
})
afterAll(async () => {
  await trawl.close()
  await upstream.close()
})
beforeEach(async () => {
  modes.clear()
  hits.length = 0
  // Each test starts from healthy engines: wait out any cool-down the last one left.
  await new Promise((r) => setTimeout(r, COOLDOWN_MS + 20))
})

const get = (path: string, k = key) => fetch(`${trawl.base}${path}`, { headers: { authorization: `Bearer ${k}` } })
const balance = async (k = key) => ((await (await get('/v1/account', k)).json()) as { balance: number }).balance
type Route = { engine: string; outcome: string; ms: number; reason?: string }

describe('choosing an engine', () => {
  test.each(Object.keys(PAGES))('engine=%s answers from that provider only', async (name) => {
    const res = await get(`/v1/search?q=coffee&engine=${name}`)
    expect(res.status).toBe(200)
    const body = await res.json()
    expect(body.results.length).toBeGreaterThan(0)
    expect(body.request.engine).toBe(name)
    expect(body.meta.engine).toBe(name)
    expect(body.meta.credits_used).toBe(1)
    expect(new Set(hits)).toEqual(new Set([name]))
    for (const r of body.results) expect(r.link).toMatch(/^https?:\/\//)
  })

  test('unknown names are a 400 listing the valid ones; consensus is search only; a mode stands alone', async () => {
    const bad = await get('/v1/search?q=x&engine=altavista')
    expect(bad.status).toBe(400)
    expect((await bad.json()).error.message).toMatch(/google, bing, duckduckgo, brave, mojeek, startpage, wikipedia, searxng, serper, auto, consensus/)
    const consensus = await get('/v1/images?q=x&engine=consensus')
    expect((await consensus.json()).error.message).toBe('engine consensus is only supported on /v1/search')
    const mixed = await get('/v1/search?q=x&engine=auto,bing')
    expect(mixed.status).toBe(400)
    expect(hits).toEqual([])
  })

  test('a parameter the named engine does not take is a 400 naming the engines that do, before any credit moves', async () => {
    const before = await balance()
    const res = await get('/v1/search?q=x&engine=mojeek&device=mobile')
    expect(res.status).toBe(400)
    expect((await res.json()).error.message).toMatch(/^device is not supported by engine mojeek on \/v1\/search; engines that take it: google/)
    expect(hits).toEqual([])
    expect(await balance()).toBe(before)
  })

  test('a list restricts to those providers, in that order, falling back along it', async () => {
    modes.set('duckduckgo', '429')
    const res = await get('/v1/search?q=coffee&engine=duckduckgo,mojeek')
    const body = await res.json()
    expect(res.status).toBe(200)
    expect(body.request.engine).toBe('duckduckgo,mojeek')
    expect(body.meta.engine).toBe('mojeek')
    // DuckDuckGo's first route (html) is refused; its other routes (lite, djs) are on hosts this fake does not serve.
    expect(body.meta.route.map((r: Route) => [r.engine, r.outcome])).toEqual([
      ['duckduckgo', 'blocked'],
      ['duckduckgo', 'error'],
      ['duckduckgo', 'error'],
      ['mojeek', 'ok'],
    ])
    expect(hits).not.toContain('google')
  })

  test('JSON array bodies name a list too', async () => {
    const res = await fetch(`${trawl.base}/v1/search`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ q: 'coffee', engine: ['mojeek', 'duckduckgo'] }),
    })
    expect((await res.json()).meta.engine).toBe('mojeek')
  })
})

describe('engine=auto', () => {
  test('the primary first; on a CAPTCHA, a 429 and a timeout the next provider answers; billed once', async () => {
    modes.set('google', 'captcha')
    modes.set('bing', '429')
    modes.set('duckduckgo', 'timeout')
    const before = await balance()
    const res = await get('/v1/search?q=coffee&engine=auto')
    expect(res.status).toBe(200)
    const body = await res.json()
    const answered = body.meta.engine
    expect(answered).not.toMatch(/google|bing|duckduckgo/)
    const route = body.meta.route as Route[]
    // Google refuses on each of its web-search routes (wml, web) before the next provider is asked.
    expect(route.slice(0, 4).map((r) => [r.engine, r.outcome])).toEqual([
      ['google', 'blocked'],
      ['google', 'blocked'],
      ['bing', 'blocked'],
      ['duckduckgo', 'timeout'],
    ])
    expect(route.at(-1)).toMatchObject({ engine: answered, outcome: 'ok' })
    for (const r of route) expect(typeof r.ms).toBe('number')
    expect(body.meta.credits_used).toBe(1)
    expect(await balance()).toBe(before - 1)
  })

  test('every provider blocked is 503 upstream_blocked and costs nothing', async () => {
    for (const name of ['google', 'bing', 'duckduckgo', 'mojeek', 'brave', 'startpage']) modes.set(name, '429')
    const before = await balance()
    const res = await get('/v1/search?q=coffee&engine=auto')
    expect(res.status).toBe(503)
    expect(res.headers.get('retry-after')).toBeTruthy()
    expect((await res.json()).error.code).toBe('upstream_blocked')
    expect(await balance()).toBe(before)
  })

  test('a key with fallback on and no engine behaves as auto; one that names an engine is unaffected', async () => {
    const email = `fallback-${Date.now()}@example.test`
    const acct = await trawl.account({ credits: 50, email, password: 'owner-password' })
    const login = await fetch(`${trawl.base}/app/api/v1/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, password: 'owner-password' }),
    })
    const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0] ?? ''
    const dashboard = (method: string, path: string, body?: unknown) =>
      fetch(`${trawl.base}/app/api${path}`, {
        method,
        headers: { cookie, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      })
    const { keys } = (await (await dashboard('GET', '/v1/keys')).json()) as { keys: { id: string }[] }
    expect((await dashboard('PATCH', `/v1/keys/${keys[0]?.id}`, { allow_fallback: true })).status).toBe(200)
    modes.set('google', '429')
    const auto = await (await get('/v1/search?q=coffee', acct.key)).json()
    expect(auto.request.engine).toBe('auto')
    expect(auto.meta.engine).not.toBe('google')
    const named = await get('/v1/search?q=coffee&engine=google', acct.key)
    expect(named.status).toBe(503)
  })

  test('a real "no results" page is an answer, not a failure: no fallback, free', async () => {
    modes.set('google', 'empty')
    const before = await balance()
    const body = await (await get('/v1/search?q=coffee&engine=auto')).json()
    expect(body.meta).toMatchObject({ engine: 'google', parse_quality: 'empty', credits_used: 0 })
    expect(body.results).toEqual([])
    expect(hits).toEqual(['google'])
    expect(await balance()).toBe(before)
  })

  test('a provider answering a page it cannot read is passed over for the next one', async () => {
    modes.set('google', 'layout')
    const body = await (await get('/v1/search?q=coffee&engine=auto')).json()
    expect(body.meta.engine).not.toBe('google')
    expect(body.results.length).toBeGreaterThan(0)
  })
})

describe('verticals', () => {
  test('images from a named provider, domain filters enforced, positions from the page offset', async () => {
    const res = await get('/v1/images?q=rpg+title+screen&engine=bing&page=2')
    expect(res.status).toBe(200)
    const body = await res.json()
    expect(body.meta.engine).toBe('bing')
    expect(body.results.length).toBeGreaterThan(0)
    expect(body.results[0].position).toBe(11)
    expect(new URL(upstream.seen.at(-1)?.url ?? '', 'https://www.bing.com').pathname).toBe('/images/async')
  })

  test('a provider without the vertical is a 400 naming the ones that have it', async () => {
    const res = await get('/v1/videos?q=x&engine=mojeek')
    expect((await res.json()).error.message).toMatch(/^engine mojeek does not offer \/v1\/videos; engines that do: google/)
    expect(hits).toEqual([])
  })
})

describe('a page that is not a result page', () => {
  test('is a 503 upstream_error, not "no results"; engine=auto moves on to the next provider', async () => {
    modes.set('google', 'not_a_result_page')
    const alone = await get('/v1/search?q=coffee&engine=google')
    expect(alone.status).toBe(503)
    expect((await alone.json()).error).toMatchObject({
      code: 'upstream_error',
      message: expect.stringContaining('google answered a page that is not a result page'),
    })
    const auto = await (await get('/v1/search?q=coffee&engine=auto')).json()
    expect(auto.meta.engine).not.toBe('google')
    expect(auto.results.length).toBeGreaterThan(0)
    expect(auto.meta.route[0]).toMatchObject({ engine: 'google', status: 200 })
    // Google's real no-results page is still a 200 with no results, free.
    modes.set('google', 'empty')
    const empty = await get('/v1/search?q=coffee&engine=google')
    expect(empty.status).toBe(200)
    expect((await empty.json()).meta.parse_quality).toBe('empty')
  })
})

describe('engine=consensus', () => {
  test('asks providers in parallel, merges by URL with sources, bills one page per provider with results', async () => {
    modes.set('bing', '429')
    const before = await balance()
    const res = await get('/v1/search?q=coffee&engine=consensus')
    expect(res.status).toBe(200)
    const body = await res.json()
    const providers = Object.keys(body.meta.providers)
    expect(providers.length).toBeGreaterThanOrEqual(2)
    expect(providers).not.toContain('bing')
    expect(body.meta.engine).toBe(providers.join(','))
    expect(body.meta.route.some((r: Route) => r.engine === 'bing' && r.outcome === 'blocked')).toBe(true)
    expect(body.meta.credits_used).toBe(providers.length)
    expect(await balance()).toBe(before - providers.length)
    const links = body.results.map((r: { link: string }) => r.link)
    expect(new Set(links).size).toBe(links.length)
    for (const r of body.results) {
      expect(r.sources.length).toBeGreaterThan(0)
      for (const s of r.sources) expect(providers).toContain(s.engine)
    }
    expect(body.results.map((r: { position: number }) => r.position)).toEqual(body.results.map((_: unknown, i: number) => i + 1))
  })

  test('a provider stopped by the deadline is in the route as a timeout', async () => {
    modes.set('mojeek', 'timeout')
    const body = await (await get('/v1/search?q=coffee&engine=consensus')).json()
    expect(body.meta.engine).not.toContain('mojeek')
    expect(body.meta.route.find((r: Route) => r.engine === 'mojeek')).toMatchObject({ outcome: 'timeout' })
  })
})

describe('health and drift', () => {
  test('a layout change is seen as drift: auto skips the provider, /v1/engines shows it, a clean probe brings it back', async () => {
    // Clean answers first, so the rise is visible.
    modes.set('google', 'ok')
    for (let i = 0; i < 3; i++) await get('/v1/search?q=coffee&engine=google')
    modes.set('google', 'layout')
    for (let i = 0; i < 8; i++) await get('/v1/search?q=coffee&engine=google')
    const engines = await (await get('/v1/engines')).json()
    const google = engines.engines.find((e: { name: string }) => e.name === 'google')
    expect(google).toMatchObject({ state: 'drifting', primary: true })
    expect(google.layouts[0]).toMatchObject({ layout: 'search', state: 'drifting' })
    expect(google.layouts[0].unreadable_rate).toBeGreaterThan(0.5)
    // Drift never fails readiness: 200, `degraded` while every route of the primary is still cooling
    // down (a short cool-down here, so either; test/engines-check.test.ts pins `degraded`).
    const healthz = await fetch(`${trawl.base}/healthz`)
    expect(healthz.status).toBe(200)
    const health = await healthz.json()
    expect(['ok', 'degraded']).toContain(health.status)
    expect(health.engines.drifting).toBe(1)

    hits.length = 0
    const skipped = await (await get('/v1/search?q=coffee&engine=auto')).json()
    expect(skipped.meta.route[0]).toMatchObject({ engine: 'google', outcome: 'skipped' })
    expect(hits).not.toContain('google')

    modes.set('google', 'ok')
    await new Promise((r) => setTimeout(r, COOLDOWN_MS + 20))
    const probe = await (await get('/v1/search?q=coffee&engine=auto')).json()
    expect(probe.meta.engine).toBe('google')
    const after = await (await get('/v1/engines')).json()
    expect(after.engines.find((e: { name: string }) => e.name === 'google').state).toBe('healthy')
  })

  test('pages that say nothing matched are answers, not drift: a run of them leaves Google, DuckDuckGo and their routes healthy', async () => {
    const started = Date.now()
    const names = ['google', 'duckduckgo']
    for (const name of names) modes.set(name, 'empty')
    for (let i = 0; i < 8; i++) {
      for (const name of names) {
        const body = await (await get(`/v1/search?q=zlurad+${i}&engine=${name}`)).json()
        expect(body.meta).toMatchObject({ engine: name, parse_quality: 'empty', credits_used: 0 })
        expect(Object.keys(body)).not.toContain('saysNoResults')
      }
    }
    const engines = await (await get('/v1/engines')).json()
    for (const name of names) {
      const engine = engines.engines.find((e: { name: string }) => e.name === name)
      expect(engine.state).toBe('healthy')
      // What this test asked: earlier tests leave other routes' records behind.
      type Figures = { last_at: string | null }
      const asked = (f: Figures | null) => f !== null && f.last_at !== null && Date.parse(f.last_at) >= started
      const figures = [...engine.layouts, ...engine.routes.map((r: { health: Figures | null }) => r.health)].filter(asked)
      expect(figures.length).toBeGreaterThan(1)
      for (const f of figures) expect(f).toMatchObject({ state: 'healthy', unreadable_rate: 0 })
    }
    hits.length = 0
    const auto = await (await get('/v1/search?q=zlurad&engine=auto')).json()
    expect(auto.meta.route[0]).toMatchObject({ engine: 'google', status: 200 })
    expect(hits[0]).toBe('google')
  })

  test('GET /v1/engines lists every provider with its verticals, parameters and figures; it needs a key and is free', async () => {
    expect((await fetch(`${trawl.base}/v1/engines`)).status).toBe(401)
    const before = await balance()
    const body = await (await get('/v1/engines')).json()
    expect(body.engines.map((e: { name: string }) => e.name)).toEqual(['google', 'bing', 'duckduckgo', 'brave', 'mojeek', 'startpage', 'wikipedia'])
    for (const e of body.engines) {
      expect(e.verticals).toContain('search')
      expect(['healthy', 'degraded', 'blocked', 'drifting']).toContain(e.state)
    }
    expect(await balance()).toBe(before)
  })
})

describe('domain filters on every engine', () => {
  test('include_domains is sent as site: and enforced on what comes back', async () => {
    upstream.seen.length = 0
    const body = await (await get('/v1/search?q=coffee&engine=google&include_domains=wikipedia.org')).json()
    expect(new URL(upstream.seen.at(-1)?.url ?? '', 'https://www.google.com').searchParams.get('q')).toBe('coffee site:wikipedia.org')
    expect(body.results.length).toBeGreaterThan(0)
    for (const r of body.results) expect(r.domain).toMatch(/wikipedia\.org$/)
    expect(body.results[0].position).toBe(1)
  })
})
