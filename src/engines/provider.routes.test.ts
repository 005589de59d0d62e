import { describe, expect, test } from 'vitest'
import type { ParsedSearchPage, SearchRequest } from './engine.types.ts'
import { EngineHealth } from './health.ts'
import { bindProvider } from './provider.engine.ts'
import type { EngineWebSearch, Provider } from './provider.types.ts'
import type { FetchPageRequest } from './upstream/upstream.types.ts'
import type { UpstreamClient } from './upstream/upstream-client.ts'
import { upstreamErrorFor } from './upstream/upstream-error.ts'

/** The route walk of provider.routes.ts, on routes whose upstream answers are scripted by URL. */
const req: SearchRequest = {
  endpoint: 'search',
  engine: 'google',
  q: 'coffee',
  country: 'us',
  language: 'en',
  num: 10,
  page: 1,
  safe: 'off',
  device: 'desktop',
}
const page = (n: number, quality: ParsedSearchPage['parse_quality'] = 'ok'): ParsedSearchPage => ({
  results: Array.from({ length: n }, (_, i) => ({ position: i + 1, title: `t${i}`, link: `https://example.com/${i}`, domain: 'example.com' })),
  parse_quality: quality,
})

function setup(answers: Record<string, 'ok' | 'captcha' | 'refused'>, pages: Record<string, ParsedSearchPage>) {
  const asked: string[] = []
  const upstream: UpstreamClient = {
    async fetchPage(r: FetchPageRequest) {
      const path = new URL(r.url).pathname
      asked.push(path)
      const attempt = { engine: r.engine, host: 'www.google.com', pool: null, ms: 1 }
      if (answers[path] === 'captcha')
        throw upstreamErrorFor('upstream_blocked', r.engine, [{ ...attempt, status: 200, outcome: 'blocked', reason: 'CAPTCHA page' }])
      if (answers[path] === 'refused') throw upstreamErrorFor('upstream_error', r.engine, [{ ...attempt, outcome: 'error', reason: 'connection refused' }])
      return { status: 200, url: r.url, body: path, attempts: [{ ...attempt, status: 200, outcome: 'ok' }] }
    },
    browserRefusal: () => null,
    poolHealth: () => [],
    gateStats: () => [],
    close: async () => {},
  }
  const route = (name: string, params?: EngineWebSearch['params']): EngineWebSearch => ({
    route: name,
    params,
    async run(_req, fetch) {
      const fetched = await fetch(`https://www.google.com/${name}`, {})
      return structuredClone(pages[new URL(fetched.url).pathname] ?? page(0))
    },
  })
  const provider: Provider = {
    name: 'google',
    capabilities: { verticals: ['search'], params: ['page', 'ads'], siteOperator: true },
    search: route('wml', ['page']),
    fallbackRoutes: [route('web'), route('browser')],
    verticals: {},
    detectBlock: () => null,
  }
  let now = 0
  const health = new EngineHealth({ cooldownMs: 1000, now: () => now })
  return { engine: bindProvider(upstream, provider, health), asked, health, advance: (ms: number) => (now += ms) }
}

describe('routes of one provider', () => {
  test('a refused route and an unreadable page pass the request on inside the same call; both cool down at once', async () => {
    const { engine, asked, health } = setup({ '/wml': 'captcha' }, { '/web': page(0, 'partial'), '/browser': page(3) })
    const answer = await engine.search(req)
    expect(asked).toEqual(['/wml', '/web', '/browser'])
    expect(answer.page.results).toHaveLength(3)
    expect(answer.attempts.map((a) => [a.route, a.outcome])).toEqual([
      ['wml', 'blocked'],
      ['web', 'ok'],
      ['web', 'error'],
      ['browser', 'ok'],
    ])
    expect(health.state('google', 'search@wml')).toBe('blocked')
    expect(health.state('google', 'search@web')).toBe('drifting')
    expect(health.state('google', 'search@browser')).toBe('healthy')
    // The provider's own layouts do not list routes; routes() does.
    expect(health.layouts('google')).toEqual([])
    expect(health.routes('google').map((l) => l.layout)).toEqual(['search@browser', 'search@web', 'search@wml'])
  })

  test('cooling routes are skipped (and say so) until the cool-down ends; then one probe each', async () => {
    const { engine, asked, advance } = setup({ '/wml': 'captcha' }, { '/web': page(0, 'partial'), '/browser': page(3) })
    await engine.search(req)
    asked.length = 0
    const second = await engine.search(req)
    expect(asked).toEqual(['/browser'])
    expect(second.attempts.filter((a) => a.outcome === 'skipped').map((a) => a.route)).toEqual(['wml', 'web'])
    advance(1000)
    asked.length = 0
    await engine.search(req)
    expect(asked).toEqual(['/wml', '/web', '/browser'])
  })

  test('a route that does not take a parameter sent is passed over; a named route is asked alone, health aside', async () => {
    const { engine, asked } = setup({}, { '/wml': page(2), '/web': page(4) })
    expect((await engine.search({ ...req, ads: true })).page.results).toHaveLength(4)
    expect(asked).toEqual(['/web'])
    expect(engine.takes('search', 'ads')).toBe(true)
    asked.length = 0
    await engine.search(req, { route: 'browser' })
    expect(asked).toEqual(['/browser'])
  })

  test('every route failing: one 503 whose message names each route and its reason; two network failures make a route down', async () => {
    const { engine, health } = setup({ '/wml': 'captcha', '/web': 'refused', '/browser': 'refused' }, {})
    const err = await engine.search(req).catch((e) => e)
    expect(err.code).toBe('upstream_blocked')
    expect(err.message).toBe('google refused the request: wml: CAPTCHA page; web: connection refused; browser: connection refused')
    expect(health.state('google', 'search@web')).not.toBe('down')
    await engine.search(req).catch(() => {})
    expect(health.state('google', 'search@web')).toBe('down')
  })
})
