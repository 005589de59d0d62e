import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest'
import { type FakeUpstream, fakeUpstream, fixture, htmlPage } from './support/fake-upstream.ts'
import { googleFirstPageOnly } from './support/google-pages.ts'
import { testPage as corpusPage } from './support/reading-site.ts'
import { startTrawl, type Trawl } from './support/start-trawl.ts'

const page = (path: string) => fixture(`serp/google/${path}`)
const COFFEE = page('web-desktop/zlurad-coffee.html')

let trawl: Trawl
let upstream: FakeUpstream
let key: string
beforeAll(async () => {
  upstream = await fakeUpstream(htmlPage(COFFEE))
  trawl = await startTrawl({ TRAWL_UPSTREAM_HOSTS: `*=${upstream.url}`, TRAWL_UPSTREAM_TIMEOUT_MS: '800' })
  key = (await trawl.account({ plan: 'enterprise', rate_limit_rps: 1000, credits: 1000 })).key
})
afterAll(async () => {
  await trawl.close()
  await upstream.close()
})
beforeEach(() => {
  upstream.handle(htmlPage(COFFEE))
  upstream.seen.length = 0
})

const search = (query: string, k = key) => fetch(`${trawl.base}/v1/search?${query}`, { headers: { authorization: `Bearer ${k}` } })
const lastUpstreamUrl = () => new URL(upstream.seen.at(-1)!.url, 'https://www.google.com')

describe('/v1/search on the google engine', () => {
  test('parses organic results, sitelinks and feature blocks from a real desktop page', async () => {
    const res = await search('q=coffee')
    expect(res.status).toBe(200)
    const body = await res.json()
    expect(body.results).toHaveLength(10) // the page holds 95; num=10 keeps the first 10
    expect(body.results[0]).toEqual({
      position: 1,
      title: 'Coffee',
      link: 'https://en.wikipedia.org/wiki/Coffee',
      domain: 'en.wikipedia.org',
      displayed_link: 'https://en.wikipedia.org › wiki › Coffee',
      snippet: expect.stringMatching(/^Coffee is a beverage prepared from roasted coffee beans/),
      date: null,
      sitelinks: [
        { title: 'History', link: 'https://en.wikipedia.org/wiki/History_of_coffee' },
        { title: 'Coffee bean', link: 'https://en.wikipedia.org/wiki/Coffee_bean' },
        { title: 'Coffee production', link: 'https://en.wikipedia.org/wiki/Coffee_production' },
        { title: 'Coffee preparation', link: 'https://en.wikipedia.org/wiki/Coffee_preparation' },
      ],
    })
    expect(body.results.map((r: { position: number }) => r.position)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10])
    expect(body.people_also_ask).toHaveLength(4)
    expect(body.related_searches).toHaveLength(8)
    expect(body.knowledge_graph.title).toBe('Coffee')
    expect(body.places).toHaveLength(3)
    expect(body.ads).toBeUndefined()
    expect(body.meta).toMatchObject({ engine: 'google', parse_quality: 'ok', cached: false, resolved_urls: true, credits_used: 1 })
    expect(body.meta.route).toEqual([expect.objectContaining({ engine: 'google', host: 'www.google.com', outcome: 'ok', status: 200 })])
    expect(upstream.seen[0]!.host).toBe('www.google.com')
  })

  test('num=100 is ten pages of 10 (Google ignores num), merged', async () => {
    // The first page holds all 95 results here; the later ones say "no more results".
    upstream.handle(googleFirstPageOnly(COFFEE))
    const body = await (await search('q=coffee&num=100')).json()
    expect(body.results).toHaveLength(95)
    const pages = upstream.seen.map((s) => new URL(s.url, 'https://www.google.com').searchParams)
    expect(pages.map((p) => Number(p.get('start') ?? 0)).sort((a, b) => a - b)).toEqual([0, 10, 20, 30, 40, 50, 60, 70, 80, 90])
    for (const p of pages) expect(p.has('num')).toBe(false)
  })

  test('an engine that ignores num=100 and prints 10 results costs 1 credit, not 7', async () => {
    upstream.handle(htmlPage(page('web-nojs/zlurad-coffee-nojs.html')))
    const res = await search('q=coffee&num=100')
    expect((await res.json()).results).toHaveLength(10)
    expect(res.headers.get('x-credits-used')).toBe('1')
  })

  test('maps every search parameter onto the real engine URL', async () => {
    await search('q=coffee&country=de&language=pt-BR&page=3&time=week&tbs=sbd:1&safe=active&autocorrect=false&exclude_domains=pinterest.com')
    // The feature-phone page (route wml) takes these; it is sent no `lr` (google-routes.test.ts).
    const url = lastUpstreamUrl()
    expect(url.pathname).toBe('/wml/search')
    expect(Object.fromEntries(url.searchParams)).toMatchObject({
      q: 'coffee -site:pinterest.com',
      hl: 'pt-BR',
      gl: 'de',
      start: '20',
      tbs: 'qdr:w,sbd:1',
      safe: 'active',
      nfpr: '1',
    })
    // device=mobile is the plain page's (route web); no language restriction there either (it empties pages).
    await search('q=coffee&location=Austin,Texas,United%20States&device=mobile&include_domains=.gov,example.com/blog')
    const located = lastUpstreamUrl()
    expect(located.pathname).toBe('/search')
    expect(located.searchParams.has('lr')).toBe(false)
    expect(located.searchParams.get('hl')).toBe('en')
    expect(located.searchParams.get('uule')).toMatch(/^w CAIQICI/) // "+" in a query string reads as a space
    expect(located.searchParams.get('gl')).toBe('us')
    expect(located.searchParams.get('q')).toBe('coffee (site:gov OR site:example.com/blog)')
    expect(upstream.seen.at(-1)!.headers['user-agent']).toMatch(/Mobile/)
    const body = await (await search('q=coffee&location=Berlin,Germany')).json()
    expect(body.request).toMatchObject({ location: 'Berlin,Germany', country: 'de' })
  })

  test('include_domains is enforced on the results, not only sent as site: operators', async () => {
    const body = await (await search('q=coffee&include_domains=wikipedia.org')).json()
    expect(body.results.length).toBeGreaterThan(0)
    for (const r of body.results) expect(r.domain).toMatch(/(^|\.)wikipedia\.org$/)
    expect(body.results[0].position).toBe(1)
  })

  test('ads only when ads=true; featured snippet becomes answer_box', async () => {
    upstream.handle(htmlPage(page('web-desktop/zlurad-hotels.html')))
    expect((await (await search('q=hotels')).json()).ads).toBeUndefined()
    const withAds = await (await search('q=hotels&ads=true')).json()
    expect(withAds.ads).toHaveLength(2)
    expect(withAds.ads[0]).toMatchObject({ position: 1, title: expect.any(String), link: expect.stringMatching(/^https?:\/\//) })
    upstream.handle(htmlPage(page('web-desktop/zlurad-featured-snippet.html')))
    const snippet = await (await search('q=featured+snippet')).json()
    expect(snippet.answer_box.type).toBe('featured_snippet')
  })

  test.each([
    ['web-mobile/zlurad-coffee.html', 'https://en.m.wikipedia.org/wiki/Coffee'],
    ['web-nojs/zlurad-coffee-nojs.html', 'https://en.wikipedia.org/wiki/Coffee'],
  ])('parses the %s layout', async (file, firstLink) => {
    upstream.handle(htmlPage(page(file)))
    const body = await (await search('q=coffee')).json()
    expect(body.results[0].link).toBe(firstLink)
    expect(body.meta.parse_quality).toBe('ok')
  })

  test('a CAPTCHA page is 503 upstream_blocked with Retry-After, never results, never billed', async () => {
    upstream.handle(htmlPage(page('web-desktop/zlurad-recaptcha.html')))
    const before = (await (await fetch(`${trawl.base}/v1/account`, { headers: { authorization: `Bearer ${key}` } })).json()).balance
    const res = await search('q=blocked')
    expect(res.status).toBe(503)
    expect(res.headers.get('retry-after')).toBe('30')
    expect(res.headers.get('x-credits-used')).toBe('0')
    expect((await res.json()).error.code).toBe('upstream_blocked')
    upstream.handle((_req, r) => r.writeHead(429).end())
    expect((await (await search('q=blocked')).json()).error.code).toBe('upstream_blocked')
    const after = (await (await fetch(`${trawl.base}/v1/account`, { headers: { authorization: `Bearer ${key}` } })).json()).balance
    expect(after).toBe(before)
  })

  test('a slow engine is 503 upstream_timeout, never 504', async () => {
    upstream.handle(() => {}) // never answers
    const res = await search('q=slow')
    expect(res.status).toBe(503)
    expect(res.headers.get('retry-after')).toBeTruthy()
    expect((await res.json()).error.code).toBe('upstream_timeout')
  })

  test('engine=auto and keys with allow_fallback answer through the fallback chain', async () => {
    const body = await (await search('q=coffee&engine=auto')).json()
    expect(body.request.engine).toBe('auto')
    expect(body.meta.engine).toBe('google')
  })
})

describe('output formats', () => {
  test('format=markdown is text/markdown a person and a model can read', async () => {
    const res = await search('q=coffee&format=markdown')
    expect(res.headers.get('content-type')).toMatch(/^text\/markdown/)
    const md = await res.text()
    expect(md).toMatch(/^# Search: coffee/)
    expect(md).toContain('[Coffee](https://en.wikipedia.org/wiki/Coffee)')
    expect(md).toContain('People also ask')
    expect(md).toContain('Related searches')
    expect(md).not.toMatch(/undefined|null|\[object/)
    expect(Number(res.headers.get('x-tokens-estimate'))).toBeGreaterThan(50)
  })

  test('format=compact and fields= keep the top-level keys and meta, fewer item fields', async () => {
    const compact = await (await search('q=coffee&format=compact')).json()
    expect(Object.keys(compact.results[0]).sort()).toEqual(['link', 'position', 'snippet', 'title'])
    expect(compact.meta.engine).toBe('google')
    const projected = await (await search('q=coffee&fields=results.title,results.link')).json()
    expect(projected.results[0]).toEqual({ title: 'Coffee', link: 'https://en.wikipedia.org/wiki/Coffee' })
    expect(projected.meta.request_id).toBeTruthy()
    const bad = await search('q=coffee&fields=results..title')
    expect(bad.status).toBe(400)
  })
})

describe('include_content', () => {
  // The real desktop capture with its first two result hosts pointed at a local site, so that the
  // pages are read from 127.0.0.1 only (TRAWL_ALLOW_PRIVATE_NETWORK on this instance).
  test('reads the top results as Markdown, +1 credit per page read, failures free and explained', async () => {
    const site = await fakeUpstream((req, res) => {
      if (req.url === '/wiki/Coffee') {
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(corpusPage('wikipedia'))
      } else res.writeHead(500).end()
    })
    const rewritten = COFFEE.toString('utf8')
      .replaceAll('https://en.wikipedia.org/', `${site.url}/`)
      .replaceAll('https://www.coffeebean.com/', `${site.url}/broken/`)
    const engine = await fakeUpstream(htmlPage(rewritten))
    const local = await startTrawl({ TRAWL_UPSTREAM_HOSTS: `*=${engine.url}`, TRAWL_ALLOW_PRIVATE_NETWORK: 'true' })
    try {
      const { key: k } = await local.account({ plan: 'pro', credits: 10 })
      const res = await fetch(`${local.base}/v1/search?q=coffee&include_content=2`, { headers: { authorization: `Bearer ${k}` } })
      expect(res.status).toBe(200)
      const body = await res.json()
      expect(body.results[0].link).toBe(`${site.url}/wiki/Coffee`)
      expect(body.results[0].content.length).toBeGreaterThan(1000)
      expect(body.results[0].content_cached).toBe(false)
      expect(body.results[1].content).toBeUndefined()
      expect(body.results[1].content_error.code).toBe('upstream_error')
      expect(body.results[2].content).toBeUndefined()
      expect(res.headers.get('x-credits-used')).toBe('2') // 1 search + 1 page read; the failed page is free
      expect(body.meta.credits_used).toBe(2)
      const account = await (await fetch(`${local.base}/v1/account`, { headers: { authorization: `Bearer ${k}` } })).json()
      expect(account.balance).toBe(8)
      // A plain search of the same query stays small: page contents are not cached into the search body.
      const again = await (await fetch(`${local.base}/v1/search?q=coffee&max_age=600`, { headers: { authorization: `Bearer ${k}` } })).json()
      expect(again.results[0].content).toBeUndefined()
    } finally {
      await local.close()
      await engine.close()
      await site.close()
    }
  })
})
