import { readFileSync } from 'node:fs'
import { request as httpRequest } from 'node:http'
import { tavily } from '@tavily/core'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { expectBooksBalanced } from './support/books.ts'
import { type CrawlSite, startCrawlSite } from './support/crawl-site.ts'
import { type FakeUpstream, fakeUpstream, fixture } from './support/fake-upstream.ts'
import { type LocalSite, startLocalSite } from './support/reading-site.ts'
import { serpRouter } from './support/serp-router.ts'
import { startTrawl, type Trawl } from './support/start-trawl.ts'

/**
 * Tavily's API at /compat/tavily, exercised through Tavily's own JavaScript client (@tavily/core,
 * which takes `apiBaseURL`) with only the base URL and the key changed, against the fake engine
 * upstream, a local reading site and a local crawl site.
 */

let site: LocalSite
let crawlSite: CrawlSite
let upstream: FakeUpstream
let trawl: Trawl

beforeAll(async () => {
  site = await startLocalSite()
  crawlSite = await startCrawlSite()
  // The real desktop capture, its first two results pointed at the local site: pages are read from 127.0.0.1 only.
  const coffee = fixture('serp/google/web-desktop/zlurad-coffee.html')
    .toString('utf8')
    .replaceAll('https://en.wikipedia.org/wiki/Coffee', `${site.url}/article/wiki`)
    .replaceAll('https://www.coffeebean.com/', `${site.url}/article/bbc`)
  upstream = await fakeUpstream(
    serpRouter([
      { host: 'www.google.com', path: '/search', query: { tbm: 'isch' }, body: fixture('serp/google/images/aql-green-capital-energy-basic.html') },
      {
        host: 'news.google.com',
        path: '/rss/search',
        body: readFileSync(new URL('fixtures/google/news/news-rss-ai-regulation.constructed.xml', import.meta.url)),
        type: 'application/rss+xml; charset=utf-8',
      },
      { host: 'www.google.com', path: '/search', body: coffee },
    ]),
  )
  trawl = await startTrawl(
    { TRAWL_UPSTREAM_HOSTS: `*=${upstream.url}`, TRAWL_ALLOW_PRIVATE_NETWORK: 'true', TRAWL_SCHEDULER_POLL_MS: '100' },
    { workers: true },
  )
})
afterAll(async () => {
  await trawl?.close()
  await upstream?.close()
  await site?.close()
  await crawlSite?.close()
})

const base = () => `${trawl.base}/compat/tavily`
const client = (key: string) => tavily({ apiKey: key, apiBaseURL: base() })
const bearer = (key: string) => ({ authorization: `Bearer ${key}` })
const balance = async (key: string) => (await (await fetch(`${trawl.base}/v1/account`, { headers: bearer(key) })).json()).balance as number
const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${base()}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) })

describe('POST /search', () => {
  test('through @tavily/core: results, scores, an extractive answer, usage and favicons; billed as /v1/search', async () => {
    const { id, key } = await trawl.account({ credits: 100 })
    const found = await client(key).search('coffee', { maxResults: 5, includeAnswer: true, includeUsage: true, includeFavicon: true })
    expect(found.query).toBe('coffee')
    expect(found.results).toHaveLength(5)
    expect(found.results[0]).toMatchObject({
      title: 'Coffee',
      url: `${site.url}/article/wiki`,
      content: expect.stringContaining('Coffee is a beverage prepared from roasted coffee beans'),
      rawContent: null,
      favicon: `${site.url}/favicon.ico`,
    })
    for (const r of found.results) {
      expect(r.score).toBeGreaterThan(0)
      expect(r.score).toBeLessThanOrEqual(1)
    }
    // Extractive: a sentence of the results, word for word.
    expect(found.answer).toEqual(expect.any(String))
    const sentence = found.answer!.slice(0, 40)
    expect(found.results.some((r) => r.content.replace(/\s+/g, ' ').includes(sentence))).toBe(true)
    expect(found.images).toEqual([])
    expect(found.usage).toEqual({ credits: 1 })
    expect(found.requestId).toMatch(/^req_/)
    expect(found.responseTime).toEqual(expect.any(Number))
    // The equivalent Trawl call costs the same.
    const direct = await fetch(`${trawl.base}/v1/search?q=coffee`, { headers: bearer(key) })
    expect(direct.headers.get('x-credits-used')).toBe('1')
    expect(await balance(key)).toBe(98)
    await expectBooksBalanced(trawl, id)
  })

  test('fields Tavily’s server does not know are ignored, as it ignores them, and named in X-Trawl-Ignored-Parameters', async () => {
    const { key } = await trawl.account({ credits: 10 })
    // @langchain/tavily's body: camelCase options as snake_case, plus its client_source.
    const res = await post(
      '/search',
      { query: 'coffee', max_results: 2, search_depth: 'basic', client_source: 'langchain-js', bogus: 1, 'odd\nname': true },
      bearer(key),
    )
    expect(res.status).toBe(200)
    expect(res.headers.get('x-trawl-ignored-parameters')).toBe('bogus, oddname')
    expect((await res.json()).results).toHaveLength(2)
  })

  test('the key may come as api_key in the body; the answer carries the billing headers and Tavily’s keys', async () => {
    const { key } = await trawl.account({ credits: 10 })
    const res = await post('/search', { api_key: key, query: 'coffee', max_results: 3, include_answer: false, include_domains: [], time_range: null })
    expect(res.status).toBe(200)
    const body = await res.json()
    expect(res.headers.get('x-credits-used')).toBe('1')
    expect(res.headers.get('x-credits-remaining')).toBe('9')
    expect(res.headers.get('x-cache')).toBe('MISS')
    expect(Number(res.headers.get('x-tokens-estimate'))).toBeGreaterThan(0)
    expect(res.headers.get('x-request-id')).toBe(body.request_id)
    expect(Object.keys(body).sort()).toEqual(['answer', 'follow_up_questions', 'images', 'query', 'request_id', 'response_time', 'results'])
    expect(body).toMatchObject({ query: 'coffee', answer: null, follow_up_questions: null, images: [] })
    expect(body.results).toHaveLength(3)
    expect(Object.keys(body.results[0]).sort()).toEqual(['content', 'raw_content', 'score', 'title', 'url'])
  })

  test('include_raw_content reads the result pages (+1 credit each); search_depth advanced answers their best chunks', async () => {
    const { id, key } = await trawl.account({ credits: 100 })
    const raw = await client(key).search('coffee', { maxResults: 2, includeRawContent: 'markdown', includeUsage: true })
    expect(raw.results.map((r) => r.url)).toEqual([`${site.url}/article/wiki`, `${site.url}/article/bbc`])
    expect(raw.results[0]!.rawContent).toContain('Mozilla')
    expect(raw.results[1]!.rawContent).toContain('Obama')
    expect(raw.usage).toEqual({ credits: 3 }) // 1 search + 2 pages, as /v1/search include_content=2
    const advanced = await client(key).search('mozilla firefox browser', { maxResults: 2, searchDepth: 'advanced', chunksPerSource: 2, includeUsage: true })
    const [first, second] = advanced.results
    expect(first!.content).toMatch(/Firefox/)
    expect(first!.content).not.toContain('Coffee is a beverage')
    expect(first!.rawContent).toBeNull()
    // No passage of the second page matches: its snippet stays the content.
    expect(second!.content).toContain('Coffee Bean')
    expect(advanced.usage).toEqual({ credits: 3 })
    expect(await balance(key)).toBe(94)
    await expectBooksBalanced(trawl, id)
  })

  test('topic news is /v1/news, with published dates; include_images is a /v1/images call', async () => {
    const { id, key } = await trawl.account({ credits: 100 })
    const news = await client(key).search('ai regulation', { topic: 'news', maxResults: 3, timeRange: 'week', includeUsage: true })
    expect(news.results).toHaveLength(3)
    expect(news.results[0]!.publishedDate).toEqual(expect.any(String))
    expect(news.usage).toEqual({ credits: 1 })
    expect(upstream.seen.at(-1)?.host).toBe('news.google.com')
    const direct = await fetch(`${trawl.base}/v1/news?q=ai+regulation&time=week`, { headers: bearer(key) })
    expect(direct.headers.get('x-credits-used')).toBe('1')

    const withImages = await client(key).search('green capital energy', {
      maxResults: 1,
      includeImages: true,
      includeImageDescriptions: true,
      includeUsage: true,
    })
    expect(withImages.images.length).toBeGreaterThan(0)
    expect(withImages.images[0]).toMatchObject({ url: expect.stringMatching(/^https:\/\//), description: expect.any(String) })
    expect(withImages.usage).toEqual({ credits: 2 })
    expect(await balance(key)).toBe(96)
    await expectBooksBalanced(trawl, id)
  })
})

describe('errors in Tavily’s statuses and body', () => {
  test('the client reports detail.error; nothing is billed', async () => {
    const { id, key } = await trawl.account({ credits: 10 })
    await expect(client(`trawl_live_${'x'.repeat(32)}`).search('coffee')).rejects.toThrow('invalid API key')
    await expect(client(key).search('coffee', { maxResults: 50 })).rejects.toThrow('max_results must be between 0 and 20')
    await expect(client(key).search('coffee', { country: 'atlantis' } as never)).rejects.toThrow(/country: atlantis is not a country name/)
    expect(await balance(key)).toBe(10)
    await expectBooksBalanced(trawl, id)
  })

  test('401, 432 (out of credits, key limit), 433 (spend cap), 404: {detail: {error}} with X-Credits-Used: 0', async () => {
    const noKey = await post('/search', { query: 'coffee' })
    expect(noKey.status).toBe(401)
    expect(await noKey.json()).toEqual({ detail: { error: expect.stringMatching(/^missing API key/) } })
    expect(noKey.headers.get('x-credits-used')).toBe('0')
    expect(noKey.headers.get('x-trawl-error-code')).toBe('unauthorized')

    const broke = await trawl.account({ credits: 0 })
    const empty = await post('/search', { query: 'coffee' }, bearer(broke.key))
    expect(empty.status).toBe(432)
    expect((await empty.json()).detail.error).toMatch(/credit/)
    await expect(client(broke.key).search('coffee')).rejects.toThrow(/credit/)

    const capped = await trawl.account({ credits: 100, monthly_spend_cap: 0.5 })
    const overCap = await post('/search', { query: 'coffee' }, bearer(capped.key))
    expect(overCap.status).toBe(433)
    expect(overCap.headers.get('x-trawl-error-code')).toBe('spend_cap_reached')

    const owner = await trawl.account({ credits: 100 })
    const limited = await (await trawl.admin('POST', `/admin/v1/accounts/${owner.id}/keys`, { name: 'tiny', credit_limit: 0.5 })).json()
    const overLimit = await post('/search', { query: 'coffee' }, bearer(limited.secret))
    expect(overLimit.status).toBe(432)
    expect(overLimit.headers.get('x-trawl-error-code')).toBe('key_limit_reached')

    const missing = await post('/research', { input: 'x' }, bearer(owner.key))
    expect(missing.status).toBe(404)
    expect((await missing.json()).detail.error).toMatch(/no route POST \/compat\/tavily\/research/)
    for (const acct of [broke, capped, owner]) await expectBooksBalanced(trawl, acct.id)
  })

  test('429 with Retry-After past the key’s rate', async () => {
    const { key } = await trawl.account({ credits: 10, rate_limit_rps: 1 })
    const answers = await Promise.all(Array.from({ length: 4 }, () => post('/search', {}, bearer(key))))
    const limited = answers.find((r) => r.status === 429)
    expect(limited).toBeDefined()
    expect(limited!.headers.get('retry-after')).toMatch(/^\d+$/)
    const bodies = await Promise.all(answers.map((r) => r.json()))
    for (const body of bodies) expect(body.detail.error).toEqual(expect.any(String))
  })
})

describe('POST /extract, /map, /crawl and GET /usage', () => {
  test('extract through the client: pages and failures, billed as /v1/extract; query picks chunks', async () => {
    const { id, key } = await trawl.account({ credits: 100 })
    const read = await client(key).extract([`${site.url}/article/ars`, `${site.url}/empty`], { includeUsage: true, includeFavicon: true })
    expect(read.results).toHaveLength(1)
    expect(read.results[0]).toMatchObject({ url: `${site.url}/article/ars`, favicon: `${site.url}/favicon.ico` })
    expect(read.results[0]!.rawContent.length).toBeGreaterThan(500)
    expect(read.failedResults).toEqual([{ url: `${site.url}/empty`, error: 'page has no readable content' }])
    expect(read.usage).toEqual({ credits: 1 })
    const whole = await client(key).extract([`${site.url}/article/wiki`], { format: 'text' })
    const focused = await client(key).extract([`${site.url}/article/wiki`], { query: 'firefox web browser', chunksPerSource: 2 })
    expect(focused.results[0]!.rawContent).toMatch(/Firefox/)
    expect(focused.results[0]!.rawContent.length).toBeLessThan(whole.results[0]!.rawContent.length / 2)
    expect(await balance(key)).toBe(97)
    await expectBooksBalanced(trawl, id)
  })

  test('a page that never loads: the answer comes before the client stops waiting, with the pages read', async () => {
    const { id, key } = await trawl.account({ credits: 100 })
    const read = await client(key).extract([`${site.url}/article/ars`, `${site.url}/slow`], { timeout: 3 })
    expect(read.results.map((r) => r.url)).toEqual([`${site.url}/article/ars`])
    expect(read.failedResults.map((f) => f.url)).toEqual([`${site.url}/slow`])
    expect(await balance(key)).toBe(99)
    await expectBooksBalanced(trawl, id)
  })

  test('map through the client: the site’s URLs, select_paths kept, 1 credit', async () => {
    const { id, key } = await trawl.account({ credits: 100 })
    const mapped = await client(key).map(`${crawlSite.url}/`, { limit: 50, selectPaths: ['^/blog/'], includeUsage: true })
    expect(mapped.baseUrl).toBe(`${crawlSite.url}/`)
    expect(mapped.results.length).toBeGreaterThan(0)
    for (const url of mapped.results) expect(new URL(url).pathname).toMatch(/^\/blog\//)
    expect(mapped.usage).toEqual({ credits: 1 })
    const all = await client(key).map(`${crawlSite.url}/`, { excludeDomains: ['^127\\.'] })
    expect(all.results).toEqual([])
    expect(await balance(key)).toBe(98)
    await expectBooksBalanced(trawl, id)
  })

  test('crawl through the client: answered when the crawl ends, billed as /v1/crawl (limit held, unread part refunded)', async () => {
    const { id, key } = await trawl.account({ credits: 100 })
    const crawled = await client(key).crawl(`${crawlSite.url}/`, { limit: 4, maxDepth: 1, includeUsage: true, timeout: 60 })
    expect(crawled.baseUrl).toBe(`${crawlSite.url}/`)
    expect(crawled.results.length).toBeGreaterThan(1)
    expect(crawled.results.length).toBeLessThanOrEqual(4)
    expect(crawled.results[0]).toMatchObject({ url: `${crawlSite.url}/`, images: [] })
    expect(crawled.results.some((r) => r.rawContent.includes('paragraph 1'))).toBe(true)
    const credits = (crawled.usage as { credits: number }).credits
    expect(credits).toBe(crawled.results.length)
    expect(await balance(key)).toBe(100 - credits)
    await expectBooksBalanced(trawl, id)
  })

  test('crawl past its timeout, or left by its client, is canceled: the pages read are charged, the rest refunded', async () => {
    const { id, key } = await trawl.account({ credits: 100 })
    crawlSite.set('/about', { status: 200, body: '<html><body><article><p>slow</p></article></body></html>', delayMs: 3000 })
    try {
      const started = Date.now()
      const res = await post('/crawl', { url: `${crawlSite.url}/`, limit: 30, max_depth: 3, timeout: 1, include_usage: true }, bearer(key))
      expect(res.status).toBe(200)
      expect(Date.now() - started).toBeLessThan(15_000)
      const body = await res.json()
      expect(body.usage.credits).toBeLessThan(30)
      expect(res.headers.get('x-credits-used')).toBe(String(body.usage.credits))
      expect(await balance(key)).toBe(100 - body.usage.credits)

      // A client that goes away: its own connection, closed while the crawl runs.
      const gone = post('/crawl', { url: `${crawlSite.url}/`, limit: 30, max_depth: 3 }, bearer(key))
      await new Promise<void>((resolve) => {
        const leaving = httpRequest(`${base()}/crawl`, { method: 'POST', headers: { 'content-type': 'application/json', ...bearer(key) } })
        leaving.on('error', () => resolve())
        leaving.end(JSON.stringify({ url: `${crawlSite.url}/`, limit: 30, max_depth: 3 }))
        setTimeout(() => {
          leaving.destroy()
          resolve()
        }, 300)
      })
      await gone
      // Every crawl of the account ends, and every reservation is settled.
      const until = Date.now() + 15_000
      for (;;) {
        const open = await trawl.services.store.db
          .selectFrom('crawls')
          .select('status')
          .where('account_id', '=', id)
          .where('status', 'in', ['queued', 'running'])
          .execute()
        if (open.length === 0 || Date.now() > until) break
        await new Promise((r) => setTimeout(r, 200))
      }
      const statuses = (await trawl.services.store.db.selectFrom('crawls').select('status').where('account_id', '=', id).execute()).map((r) => r.status)
      expect(statuses.sort()).toEqual(['canceled', 'canceled', 'completed'])
      await expectBooksBalanced(trawl, id)
    } finally {
      crawlSite.reset('/about')
    }
  }, 40_000)

  test('GET /usage: this month’s credits for the key and the account, by endpoint; free', async () => {
    const { key } = await trawl.account({ credits: 100, plan: 'starter' })
    await client(key).search('coffee', { maxResults: 1 })
    await client(key).extract([`${site.url}/article/ars`])
    const res = await fetch(`${base()}/usage`, { headers: bearer(key) })
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({
      key: { usage: 2, limit: null, search_usage: 1, extract_usage: 1, crawl_usage: 0, map_usage: 0, research_usage: 0 },
      account: {
        current_plan: 'starter',
        plan_usage: 2,
        plan_limit: null,
        paygo_usage: 0,
        paygo_limit: null,
        balance: 98,
        search_usage: 1,
        extract_usage: 1,
        crawl_usage: 0,
        map_usage: 0,
        research_usage: 0,
      },
    })
    expect(await balance(key)).toBe(98)
  })
})

describe('wrong input', () => {
  const huge = 'x'.repeat(200_000)
  const CASES: [method: string, path: string, body: string | undefined, type?: string][] = [
    ['POST', '/search', '{}'],
    ['POST', '/search', '{"query": 42}'],
    ['POST', '/search', JSON.stringify({ query: huge })],
    ['POST', '/search', '{"query": "   "}'],
    ['POST', '/search', '{"query": "x", "max_results": "5"}'],
    ['POST', '/search', '{"query": "x", "max_results": 1e300}'],
    ['POST', '/search', '{"query": "x", "include_answer": "maybe"}'],
    ['POST', '/search', '{"query": "x", "include_domains": "a.com"}'],
    ['POST', '/search', '{"query": "x", "include_domains": [1]}'],
    ['POST', '/search', JSON.stringify({ query: 'x', include_domains: Array(21).fill('a.com') })],
    ['POST', '/search', '{"query": "x", "topic": "sports"}'],
    ['POST', '/search', '{"query": "x", "country": "atlantis"}'],
    ['POST', '/search', '{"query": "x", "language": "not a language"}'],
    ['POST', '/search', '{"query": "x", "start_date": "yesterday"}'],
    ['POST', '/search', '{"query": "\\ud800"}'],
    ['POST', '/search', '[{"query": "x"}]'],
    ['POST', '/search', 'null'],
    ['POST', '/search', '"coffee"'],
    ['POST', '/search', '{"query": "x",'],
    ['POST', '/search', ''],
    ['POST', '/search', 'query=coffee', 'application/x-www-form-urlencoded'],
    ['POST', '/search', undefined],
    ['GET', '/search', undefined],
    ['POST', '/extract', '{}'],
    ['POST', '/extract', '{"urls": []}'],
    ['POST', '/extract', '{"urls": 5}'],
    ['POST', '/extract', JSON.stringify({ urls: Array(21).fill('https://example.com/') })],
    ['POST', '/extract', '{"urls": "https://example.com/", "timeout": "soon"}'],
    ['POST', '/extract', '{"urls": "https://example.com/", "chunks_per_source": 9}'],
    ['POST', '/extract', JSON.stringify({ urls: 'https://example.com/', query: huge })],
    ['POST', '/map', '{}'],
    ['POST', '/map', '{"url": "ftp://example.com/"}'],
    ['POST', '/map', '{"url": "https://example.com/", "select_paths": ["("]}'],
    ['POST', '/map', '{"url": "https://example.com/", "limit": 0}'],
    ['POST', '/map', JSON.stringify({ url: `https://${huge}.com/` })],
    ['POST', '/crawl', '{}'],
    ['POST', '/crawl', '{"url": "not a url"}'],
    ['POST', '/crawl', '{"url": "https://example.com/", "limit": 100000}'],
    ['POST', '/crawl', '{"url": "https://example.com/", "select_domains": ["("]}'],
    ['POST', '/crawl', '{"url": "https://example.com/", "max_depth": -1}'],
    ['GET', '/usage?x=1', undefined],
  ]

  test('wrong types, huge strings, missing fields and bad JSON: 4xx in Tavily’s body, never 5xx, nothing billed', async () => {
    const { id, key } = await trawl.account({ credits: 100, plan: 'enterprise', rate_limit_rps: 1000 })
    for (const [method, path, body, type] of CASES) {
      const res = await fetch(`${base()}${path}`, {
        method,
        headers: { ...bearer(key), ...(body !== undefined ? { 'content-type': type ?? 'application/json' } : {}) },
        body,
      })
      const label = `${method} ${path} ${body?.slice(0, 80)}`
      if (path.startsWith('/usage')) {
        expect(res.status, label).toBe(200) // extra query parameters do not matter on a GET without parameters
        continue
      }
      expect(res.status, label).toBeGreaterThanOrEqual(400)
      expect(res.status, label).toBeLessThan(500)
      const answer = await res.json()
      expect(answer, label).toEqual({ detail: { error: expect.any(String) } })
      expect(res.headers.get('x-request-id'), label).toMatch(/^req_/)
    }
    expect(await balance(key)).toBe(100)
    await expectBooksBalanced(trawl, id)
  })
})

describe('OpenAPI', () => {
  test('the routes are listed under their own tag with Tavily’s statuses', async () => {
    const doc = await (await fetch(`${trawl.base}/v1/openapi.json`)).json()
    for (const [method, path, operationId] of [
      ['post', '/compat/tavily/search', 'tavilySearch'],
      ['post', '/compat/tavily/extract', 'tavilyExtract'],
      ['post', '/compat/tavily/map', 'tavilyMap'],
      ['post', '/compat/tavily/crawl', 'tavilyCrawl'],
      ['get', '/compat/tavily/usage', 'tavilyUsage'],
    ]) {
      const op = doc.paths[path!][method!]
      expect(op.operationId).toBe(operationId)
      expect(op.tags).toEqual(['compat-tavily'])
      expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['200', '400', '401', '429', '432', '433']))
      expect(op.responses['432'].content['application/json'].schema.$ref).toBe('#/components/schemas/TavilyError')
    }
    expect(doc.paths['/compat/tavily/search'].post.responses['200'].content['application/json'].schema.$ref).toBe('#/components/schemas/TavilySearchResponse')
  })
})
