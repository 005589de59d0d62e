import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest'
import { parseBingSearch } from '../src/engines/bing/bing.parse.ts'
import { DDG_CHROME_MAJOR, DDG_USER_AGENT } from '../src/engines/duckduckgo/duckduckgo.request.ts'
import { clearDuckDuckGoTokens } from '../src/engines/duckduckgo/duckduckgo.search.ts'
import { secChUa } from '../src/engines/upstream/browser-headers.ts'
import { BING_OFF_TOPIC, BING_PAGES, type BingUpstream, bingUpstream } from './support/bing-upstream.ts'
import { type DuckDuckGoUpstream, duckDuckGoUpstream, NO_RESULTS_QUERY, vqdFor } from './support/duckduckgo-upstream.ts'
import { fixture } from './support/fake-upstream.ts'
import { startTrawl, type Trawl } from './support/start-trawl.ts'

/**
 * Engines' identity and blocks through the HTTP API (docs/engines.md, duckduckgo and bing):
 * /v1/search with engine=duckduckgo and engine=bing, the real server pointed by
 * TRAWL_UPSTREAM_HOSTS at a fake DuckDuckGo that answers 202 on each trigger DuckDuckGo uses
 * (test/support/duckduckgo-upstream.ts) and a fake Bing that answers off-topic results to a
 * mixed-up locale (test/support/bing-upstream.ts). Every request goes to 127.0.0.1.
 */

let ddg: DuckDuckGoUpstream
let bing: BingUpstream
let trawl: Trawl
let key: string

beforeAll(async () => {
  ddg = await duckDuckGoUpstream()
  bing = await bingUpstream()
  const hosts = ['html.duckduckgo.com', 'lite.duckduckgo.com', 'duckduckgo.com', 'links.duckduckgo.com'].map((h) => `${h}=${ddg.url}`)
  trawl = await startTrawl({
    // Any other host ends at the fake DuckDuckGo's 404: nothing leaves the machine.
    TRAWL_UPSTREAM_HOSTS: [...hosts, `www.bing.com=${bing.url}`, `*=${ddg.url}`].join(','),
    // Routes are asked again at once: each test sees its own answers, not the last test's cool-down.
    TRAWL_ENGINE_COOLDOWN_MS: '1',
  })
  key = (await trawl.account({ plan: 'enterprise', rate_limit_rps: 1000, credits: 1000 })).key
})

afterAll(async () => {
  await trawl?.close()
  await ddg?.close()
  await bing?.close()
})

beforeEach(() => {
  // The server runs in this process: each test starts without the vqd tokens and d.js links kept before.
  clearDuckDuckGoTokens()
  ddg.requests.length = 0
  ddg.blocked = {}
  bing.requests.length = 0
})

const get = (path: string) => fetch(`${trawl.base}${path}`, { headers: { authorization: `Bearer ${key}` } })
const balance = async () => ((await (await get('/v1/account')).json()) as { balance: number }).balance

interface Route {
  engine: string
  route?: string
  host: string
  status?: number
  outcome: string
  reason?: string
}
interface SearchBody {
  results: { position: number; title: string; link: string }[]
  meta: { engine: string; parse_quality: string; credits_used: number; route: Route[] }
}

async function search(query: string) {
  const res = await get(`/v1/search?${query}`)
  return { status: res.status, body: (await res.json()) as SearchBody & { error?: { code: string; message: string } } }
}

const routeOf = (body: SearchBody) => body.meta.route.map((r) => [r.route, r.host, r.status, r.outcome, r.reason])

describe('the fake DuckDuckGo answers 202 on each trigger it can see', () => {
  /** One request straight to the fake, as the engine host `host` would get it. */
  const ask = (host: string, path: string, headers: Record<string, string>, form?: Record<string, string>) =>
    fetch(`${ddg.url}${path}`, {
      method: form ? 'POST' : 'GET',
      headers: { 'x-forwarded-host': host, ...headers },
      ...(form ? { body: new URLSearchParams(form).toString() } : {}),
    })
  const chrome = (major: number) => `Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/${major}.0.0.0 Safari/537.36`
  const good = { 'user-agent': DDG_USER_AGENT, 'sec-ch-ua': secChUa(DDG_CHROME_MAJOR), 'content-type': 'application/x-www-form-urlencoded; charset=utf-8' }
  const post = (headers: Record<string, string>, form: Record<string, string> = { q: 'rust programming', b: '' }) =>
    ask('html.duckduckgo.com', '/html/', headers, form).then((r) => r.status)

  test("a current Chrome whose hints agree, posting with the form's charset, gets results", async () => {
    const res = await ask('html.duckduckgo.com', '/html/', good, { q: 'rust programming', b: '' })
    expect(res.status).toBe(200)
    expect(await res.text()).toContain(vqdFor(DDG_USER_AGENT))
  })

  test('each trigger alone is a 202', async () => {
    const { 'sec-ch-ua': _, ...noHints } = good
    expect(await post(noHints)).toBe(202) // a Chrome UA without client hints
    expect(await post({ ...good, 'sec-ch-ua': secChUa(142) })).toBe(202) // hints of another version
    expect(await post({ ...good, 'user-agent': 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:141.0) Gecko/20100101 Firefox/141.0' })).toBe(202)
    expect(await post({ ...good, 'user-agent': chrome(124), 'sec-ch-ua': secChUa(124) })).toBe(202) // older than 131
    expect(await post({ ...good, 'user-agent': 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 Version/18.1 Safari/605.1.15' })).toBe(202)
    expect(await post({ ...good, 'content-type': 'application/x-www-form-urlencoded' })).toBe(202)
    expect(await post(good, { q: 'rust programming', s: '10', vqd: vqdFor(chrome(142)) })).toBe(202) // another UA's token
    expect(await post(good, { q: 'rust programming', s: '10', vqd: vqdFor(DDG_USER_AGENT) })).toBe(200)
    expect(ddg.requests.map((r) => r.trigger)).toEqual([
      `Chrome ${DDG_CHROME_MAJOR} User-Agent without sec-ch-ua`,
      `Chrome ${DDG_CHROME_MAJOR} User-Agent with sec-ch-ua of Chrome 142`,
      'Firefox User-Agent sending sec-ch-ua',
      'Chrome 124 is older than 131',
      expect.stringMatching(/^User-Agent of neither Chrome nor Firefox/),
      'form posted as "application/x-www-form-urlencoded" (no charset=utf-8)',
      'vqd handed to another User-Agent',
      null,
    ])
  })
})

describe('engine=duckduckgo: one Chrome identity, every 202 a block', () => {
  test('html answers: the requests carry the Chrome UA, its own client hints, the form charset; nothing triggers', async () => {
    const { status, body } = await search('q=rust+programming&engine=duckduckgo')
    expect(status).toBe(200)
    expect(routeOf(body)).toEqual([['html', 'html.duckduckgo.com', 200, 'ok', undefined]])
    expect(body.results[0]).toMatchObject({ position: 1, title: 'Rust Programming Language', link: 'https://rust-lang.org/' })
    expect(ddg.requests.map((r) => [r.host, r.status, r.trigger, r.userAgent])).toEqual([['html.duckduckgo.com', 200, null, DDG_USER_AGENT]])
  })

  test('a later page posts the kept vqd with the UA that fetched it, and DuckDuckGo takes it', async () => {
    await search('q=rust+programming&engine=duckduckgo') // page 1: the token is kept
    ddg.requests.length = 0
    const { status, body } = await search('q=rust+programming&engine=duckduckgo&page=2')
    expect(status).toBe(200)
    expect(ddg.requests[0]?.form).toMatchObject({ s: '10', vqd: vqdFor(DDG_USER_AGENT) })
    expect(ddg.requests.every((r) => r.trigger === null && r.userAgent === DDG_USER_AGENT)).toBe(true)
    expect(body.meta.route.every((r) => r.outcome === 'ok')).toBe(true)
  })

  test('html and lite refused with 202: the reasons are in meta.route, djs answers (shell and d.js), billed once', async () => {
    ddg.blocked = { 'html.duckduckgo.com': 'silent', 'lite.duckduckgo.com': 'anomaly' }
    const before = await balance()
    const { status, body } = await search('q=rust+programming&engine=duckduckgo')
    expect(status).toBe(200)
    expect(routeOf(body)).toEqual([
      ['html', 'html.duckduckgo.com', 202, 'blocked', 'DuckDuckGo answered 202 without results (a silent block)'],
      ['lite', 'lite.duckduckgo.com', 202, 'blocked', 'DuckDuckGo answered 202: anomaly page (bot check)'],
      ['djs', 'duckduckgo.com', 200, 'ok', undefined],
      ['djs', 'links.duckduckgo.com', 200, 'ok', undefined],
    ])
    expect(body.results).toHaveLength(10)
    // The d.js link carried the shell's vqd, sent with the shell's UA.
    const djs = ddg.requests.find((r) => r.host === 'links.duckduckgo.com')
    expect(new URL(djs?.url ?? 'https://x/').searchParams.get('vqd')).toBe(vqdFor(DDG_USER_AGENT))
    expect(djs?.trigger).toBeNull()
    expect(body.meta.credits_used).toBe(1)
    expect(await balance()).toBe(before - 1)
  })

  test.each(['anomaly', 'silent'] as const)(
    'a 202 (%s) on every route is a 503 upstream_blocked naming each cause, free, and route health shows the blocks; never 200 with no results',
    async (kind) => {
      ddg.blocked = { 'html.duckduckgo.com': kind, 'lite.duckduckgo.com': kind, 'duckduckgo.com': kind }
      const before = await balance()
      const { status, body } = await search('q=rust+programming&engine=duckduckgo')
      expect(status).toBe(503)
      expect(body.results).toBeUndefined()
      expect(body.error?.code).toBe('upstream_blocked')
      const cause = kind === 'anomaly' ? 'DuckDuckGo answered 202: anomaly page (bot check)' : 'DuckDuckGo answered 202 without results (a silent block)'
      expect(body.error?.message).toBe(`duckduckgo refused the request: html: ${cause}; lite: ${cause}; djs: ${cause}`)
      expect(ddg.requests.map((r) => [r.host, r.status])).toEqual([
        ['html.duckduckgo.com', 202],
        ['lite.duckduckgo.com', 202],
        ['duckduckgo.com', 202],
      ])
      expect(await balance()).toBe(before)

      const engines = (await (await get('/v1/engines')).json()) as {
        engines: { name: string; routes: { name: string; health: { state: string; block_rate: number } | null }[] }[]
      }
      const routes = engines.engines.find((e) => e.name === 'duckduckgo')?.routes ?? []
      expect(routes.map((r) => [r.name, r.health?.state])).toEqual([
        ['html', 'blocked'],
        ['lite', 'blocked'],
        ['djs', 'blocked'],
      ])
      for (const r of routes) expect(r.health?.block_rate).toBeGreaterThan(0)
    },
  )

  test('a real "No results" page (status 200) stays a clean, empty answer', async () => {
    const { status, body } = await search(`q=${encodeURIComponent(NO_RESULTS_QUERY)}&engine=duckduckgo`)
    expect(status).toBe(200)
    expect(body.results).toEqual([])
    expect(body.meta.parse_quality).toBe('empty')
    expect(routeOf(body)).toEqual([['html', 'html.duckduckgo.com', 200, 'ok', undefined]])
  })
})

describe('engine=bing: the market always matches the language and country', () => {
  const onTopic = parseBingSearch(fixture(BING_PAGES['javascript tutorial'] ?? '').toString('utf8')).results.map((r) => r.link)
  const offTopic = parseBingSearch(fixture(BING_OFF_TOPIC).toString('utf8')).results.map((r) => r.link)

  test('the fake Bing answers a mixed-up locale with another query’s results', async () => {
    expect(onTopic.length).toBeGreaterThan(0)
    expect(offTopic.some((l) => onTopic.includes(l))).toBe(false)
    const mixed = await fetch(`${bing.url}/search?q=javascript+tutorial&setlang=pt-BR&cc=PT&mkt=pt-PT`, { headers: { 'x-forwarded-host': 'www.bing.com' } })
    expect(parseBingSearch(await mixed.text()).results.map((r) => r.link)).toEqual(offTopic)
    expect(bing.requests[0]?.mismatch).toMatch(/setlang names country BR/)
  })

  test.each([
    ['en', 'us', 'en-US'],
    ['en', 'gb', 'en-GB'],
    ['en-GB', 'us', 'en-US'],
    ['pt-BR', 'br', 'pt-BR'],
    ['pt-BR', 'pt', 'pt-PT'],
    ['de', 'de', 'de-DE'],
    ['de', 'ch', 'de-CH'],
    ['fr', 'ca', 'fr-CA'],
    ['es', 'us', 'es-US'],
    ['ja', 'jp', 'ja-JP'],
    ['zh-Hant', 'tw', 'zh-TW'],
    ['no', 'no', 'nb-NO'],
    ['en', 'de', null],
    ['pt-BR', 'us', null],
    ['fr', 'jp', null],
  ])('language %s, country %s: mkt %s, and the on-topic page', async (language, country, market) => {
    const { status, body } = await search(`q=javascript+tutorial&engine=bing&language=${language}&country=${country}`)
    expect(status).toBe(200)
    expect(bing.requests).toHaveLength(1)
    expect(bing.requests[0]?.mismatch).toBeNull()
    const sent = new URL(bing.requests[0]?.url ?? '')
    expect(sent.searchParams.get('mkt')).toBe(market)
    expect(sent.searchParams.get('cc')).toBe(country.toUpperCase())
    expect(body.results.map((r) => r.link)).toEqual(onTopic.slice(0, body.results.length))
    expect(body.results.length).toBeGreaterThan(0)
  })
})
