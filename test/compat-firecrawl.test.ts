import { readFileSync } from 'node:fs'
import Firecrawl, { type Document, SdkError } from '@mendable/firecrawl-js'
import { WebSocket as UndiciWebSocket } from 'undici'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { z } from 'zod'
import {
  FirecrawlError,
  FirecrawlJobStarted,
  FirecrawlJobStatus,
  FirecrawlMapResponse,
  FirecrawlScrapeResponse,
  FirecrawlSearchResponse,
} from '../src/features/compat/firecrawl/firecrawl.response.ts'
import { expectBooksBalanced } from './support/books.ts'
import { CHROMIUM_PATH, skipWithoutChromium } from './support/browser.ts'
import { type CrawlSite, startCrawlSite } from './support/crawl-site.ts'
import { type FakeUpstream, fakeUpstream, fixture } from './support/fake-upstream.ts'
import { type LocalSite, startLocalSite } from './support/reading-site.ts'
import { serpRouter } from './support/serp-router.ts'
import { type SpaSite, startSpaSite } from './support/spa-site.ts'
import { startTrawl, type Trawl } from './support/start-trawl.ts'

/**
 * Firecrawl v2 at /compat/firecrawl, exercised through Firecrawl's own JavaScript SDK
 * (@mendable/firecrawl-js, pointed at the server with `apiUrl`; only the URL and the key changed),
 * against the fake engine upstream, a local reading site and a local crawl site.
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
    { TRAWL_UPSTREAM_HOSTS: `*=${upstream.url}`, TRAWL_ALLOW_PRIVATE_NETWORK: 'true', TRAWL_SCHEDULER_POLL_MS: '100', TRAWL_UPSTREAM_TIMEOUT_MS: '2000' },
    { workers: true },
  )
})
afterAll(async () => {
  await trawl?.close()
  await upstream?.close()
  await site?.close()
  await crawlSite?.close()
})

/** An account whose rate limit never gets in the way of polling. */
const account = (credits: number) => trawl.account({ credits, plan: 'enterprise', rate_limit_rps: 1000 })
const apiUrl = () => `${trawl.base}/compat/firecrawl`
/** Firecrawl's SDK with only the URL and the key changed. */
const client = (key: string) => new Firecrawl({ apiKey: key, apiUrl: apiUrl() })
const bearer = (key: string) => ({ authorization: `Bearer ${key}` })
const balance = async (key: string) => (await (await fetch(`${trawl.base}/v1/account`, { headers: bearer(key) })).json()).balance as number
const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${apiUrl()}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) })
const sdkError = async (p: Promise<unknown>) => {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  )
  expect(err).toBeInstanceOf(SdkError)
  return err as SdkError
}

/** `schema` with every object strict (unknown keys fail), at any depth; objects documented as open stay open. */
function strict(schema: z.ZodType): z.ZodType {
  if (schema instanceof z.ZodObject) {
    const shape = Object.fromEntries(Object.entries(schema.shape as Record<string, z.ZodType>).map(([key, field]) => [key, strict(field)]))
    const catchall = schema.def.catchall
    return catchall ? z.object(shape).catchall(catchall) : z.strictObject(shape)
  }
  if (schema instanceof z.ZodArray) return z.array(strict(schema.element as z.ZodType))
  if (schema instanceof z.ZodOptional) return strict(schema.unwrap() as z.ZodType).optional()
  if (schema instanceof z.ZodNullable) return strict(schema.unwrap() as z.ZodType).nullable()
  return schema
}

/** The answer parsed with its published schema, strictly: what is sent is what is documented. */
function shaped<S extends z.ZodType>(schema: S, body: unknown): z.infer<S> {
  const parsed = strict(schema).safeParse(body)
  expect(parsed.error?.issues).toBeUndefined()
  return parsed.data as z.infer<S>
}

describe('POST /v2/scrape', () => {
  test('through the SDK: markdown and links with Firecrawl’s metadata names, 1 credit like /v1/webpage', async () => {
    const { id, key } = await account(100)
    const doc = await client(key).scrape(`${site.url}/article/ars`, { formats: ['markdown', 'links'], onlyMainContent: true })
    expect(doc.markdown).toMatch(/\w{20}/)
    expect(doc.html).toBeUndefined()
    expect(doc.links!.length).toBeGreaterThan(0)
    for (const link of doc.links!) expect(typeof link).toBe('string')
    expect(doc.metadata).toMatchObject({
      sourceURL: `${site.url}/article/ars`,
      url: `${site.url}/article/ars`,
      statusCode: 200,
      cacheState: 'miss',
      creditsUsed: 1,
    })
    expect(doc.metadata!.title).toBeTruthy()
    expect(await balance(key)).toBe(99)
    // The raw answer: Firecrawl's envelope and Trawl's billing headers.
    const res = await post('/v2/scrape', { url: `${site.url}/article/ars` }, bearer(key))
    expect(res.headers.get('x-credits-used')).toBe('1')
    expect(res.headers.get('x-credits-remaining')).toBe('98')
    const body = shaped(FirecrawlScrapeResponse, await res.json())
    expect(Object.keys(body.data).sort()).toEqual(['markdown', 'metadata'])
    await expectBooksBalanced(trawl, id)
  })

  test('markdown, html and rawHtml of one fetch cost one page; maxAge answers from the cache at half price', async () => {
    const { key } = await account(100)
    const fc = client(key)
    const doc = await fc.scrape(`${site.url}/article/bbc`, { formats: ['markdown', 'html', 'rawHtml'] })
    expect(doc.markdown).toMatch(/\w{20}/)
    expect(doc.html).toMatch(/^<|<p>/)
    expect(doc.rawHtml).toMatch(/<html|<!DOCTYPE/i)
    expect(doc.rawHtml!.length).toBeGreaterThan(doc.html!.length)
    expect(await balance(key)).toBe(99)
    const first = await fc.scrape(`${site.url}/article/wiki`, { formats: ['markdown'], maxAge: 600_000 })
    const again = await fc.scrape(`${site.url}/article/wiki`, { formats: ['markdown'], maxAge: 600_000 })
    expect(first.metadata!.cacheState).toBe('miss')
    expect(again.metadata).toMatchObject({ cacheState: 'hit', creditsUsed: 0.5 })
    expect(again.markdown).toBe(first.markdown)
    expect(await balance(key)).toBe(97.5)
  })

  test('a PDF is read; a page with no readable content is free; a page that cannot be fetched is an error in Firecrawl’s shape, refunded', async () => {
    const { id, key } = await account(10)
    const fc = client(key)
    const pdf = await fc.scrape(`${site.url}/doc.pdf`)
    expect(pdf.markdown!.length).toBeGreaterThan(100)
    const empty = await fc.scrape(`${site.url}/empty`)
    expect(empty.markdown).toBe('')
    expect(empty.warning).toMatch(/no readable content/)
    expect(await balance(key)).toBe(9)
    // Nothing listens on port 1: no page at all, Firecrawl's SCRAPE_SITE_ERROR.
    const unreachable = await sdkError(fc.scrape('http://127.0.0.1:1/'))
    expect(unreachable.status).toBe(503)
    expect(unreachable.code).toBe('SCRAPE_SITE_ERROR')
    const raw = await post('/v2/scrape', { url: 'http://127.0.0.1:1/' }, bearer(key))
    expect(raw.headers.get('retry-after')).toBeTruthy()
    // The one error sender's billing headers, as on /v1: nothing used, the balance, the body's estimate.
    expect(raw.headers.get('x-credits-used')).toBe('0')
    expect(raw.headers.get('x-credits-remaining')).toBe('9')
    expect(Number(raw.headers.get('x-tokens-estimate'))).toBeGreaterThan(0)
    expect(shaped(FirecrawlError, await raw.json())).toMatchObject({ success: false, code: 'SCRAPE_SITE_ERROR' })
    expect(await balance(key)).toBe(9)
    await expectBooksBalanced(trawl, id)
  })

  test('a page that answers 404 comes back read, with metadata.statusCode 404 and error, as Firecrawl answers; billed as a read page; REST keeps its 503', async () => {
    const { id, key } = await account(10)
    const missing = await client(key).scrape(`${site.url}/gone`)
    expect(missing.markdown).toMatch(/moved or deleted/)
    expect(missing.metadata).toMatchObject({
      sourceURL: `${site.url}/gone`,
      title: 'Page not found',
      statusCode: 404,
      error: 'Not Found',
      creditsUsed: 1,
    })
    expect(missing.warning).toBeUndefined()
    expect(await balance(key)).toBe(9)
    // Error pages are never cached: asked again with maxAge, the page is fetched again.
    const fetches = site.seen.filter((p) => p === '/gone').length
    const again = await client(key).scrape(`${site.url}/gone`, { maxAge: 600_000 })
    expect(again.metadata).toMatchObject({ statusCode: 404, cacheState: 'miss' })
    expect(site.seen.filter((p) => p === '/gone').length).toBe(fetches + 1)
    expect(await balance(key)).toBe(8)
    // Several formats (one fetch) alike; the raw answer is a 200 with Firecrawl's success envelope.
    const raw = await post('/v2/scrape', { url: `${site.url}/nowhere`, formats: ['markdown', 'rawHtml'] }, bearer(key))
    expect(raw.status).toBe(200)
    expect(raw.headers.get('x-credits-used')).toBe('1')
    const body = shaped(FirecrawlScrapeResponse, await raw.json())
    expect(body.data.rawHtml).toContain('<h1>Not found</h1>')
    expect(body.data.metadata).toMatchObject({ statusCode: 404, error: 'Not Found' })
    expect(await balance(key)).toBe(7)
    // Trawl's own endpoint: a page that answered an error is a failed read (docs/reading.md).
    const rest = await fetch(`${trawl.base}/v1/webpage`, {
      method: 'POST',
      headers: { ...bearer(key), 'content-type': 'application/json' },
      body: JSON.stringify({ url: `${site.url}/nowhere` }),
    })
    expect(rest.status).toBe(503)
    expect((await rest.json()).error).toMatchObject({ code: 'upstream_error', message: 'page answered HTTP 404' })
    expect(await balance(key)).toBe(7)
    await expectBooksBalanced(trawl, id)
  })

  test('several formats go through /v1/webpage: one fetch, one debit like REST, and the second call is served from the cache', async () => {
    const { id, key } = await account(10)
    const path = '/article/images'
    const fetches = () => site.seen.filter((p) => p === path).length
    const before = fetches()
    const scrapeIt = () => client(key).scrape(`${site.url}${path}`, { formats: ['markdown', 'html', 'rawHtml', 'links'], maxAge: 600_000 })
    const first = await scrapeIt()
    expect(first.metadata).toMatchObject({ cacheState: 'miss', creditsUsed: 1, statusCode: 200 })
    expect(first.markdown).toMatch(/\w{20}/)
    expect(first.html).toMatch(/<p>/)
    expect(first.rawHtml).toMatch(/<html|<!DOCTYPE/i)
    const again = await scrapeIt()
    expect(again.metadata).toMatchObject({ cacheState: 'hit', creditsUsed: 0.5 })
    expect([again.markdown, again.html, again.rawHtml, again.links]).toEqual([first.markdown, first.html, first.rawHtml, first.links])
    // The site saw one request for both calls.
    expect(fetches()).toBe(before + 1)
    expect(await balance(key)).toBe(8.5)
    // Debited once per call, as /v1/webpage debits: one ledger row each way, labelled /v1/webpage.
    const rows = await trawl.services.store.db.selectFrom('ledger').selectAll().where('account_id', '=', id).orderBy('created_at').execute()
    const reads = rows.filter((r) => r.amount_mc < 0)
    expect(reads.map((r) => [r.amount_mc, r.endpoint])).toEqual([
      [-1000, '/v1/webpage'],
      [-1000, '/v1/webpage'],
    ])
    await expectBooksBalanced(trawl, id)
  })
})

describe.skipIf(skipWithoutChromium)('POST /v2/scrape with a browser', () => {
  let spa: SpaSite
  let rendering: Trawl
  beforeAll(async () => {
    spa = await startSpaSite()
    rendering = await startTrawl({ TRAWL_ALLOW_PRIVATE_NETWORK: 'true', TRAWL_BROWSER: CHROMIUM_PATH })
  })
  afterAll(async () => {
    await rendering?.close()
    await spa?.close()
  })

  test('a JavaScript shell is drawn (render=auto, as /v1/webpage) and billed like any page', async () => {
    const { key } = await rendering.account({ credits: 10, plan: 'enterprise', rate_limit_rps: 1000 })
    const fc = new Firecrawl({ apiKey: key, apiUrl: `${rendering.base}/compat/firecrawl` })
    const doc = await fc.scrape(`${spa.url}/guide/channels`, { formats: ['markdown', 'html'] })
    expect(doc.metadata).toMatchObject({ title: 'Reading the channels', statusCode: 200, creditsUsed: 1 })
    expect(doc.markdown).toContain('ripples that point inland')
    expect(doc.html).toContain('ripples that point inland')
  })
})

describe('POST /v2/search', () => {
  test('through the SDK: web results as Firecrawl names them, billed like /v1/search at the depth holding limit', async () => {
    const { key } = await account(100)
    const found = await client(key).search('coffee', { limit: 3 })
    expect(found.web).toHaveLength(3)
    expect(found.web![0]).toEqual({
      url: `${site.url}/article/wiki`,
      title: 'Coffee',
      description: expect.stringContaining('Coffee is a beverage'),
      position: 1,
    })
    expect(found.news).toBeUndefined()
    expect(await balance(key)).toBe(99)
    const res = await post('/v2/search', { query: 'coffee', limit: 20 }, bearer(key))
    expect(res.headers.get('x-credits-used')).toBe('2') // 20 results: the 20-deep search
    const body = shaped(FirecrawlSearchResponse, await res.json())
    expect(body.creditsUsed).toBe(2)
    expect(body.id).toBe(res.headers.get('x-request-id'))
  })

  test('web, news and images sources are one call each; scrapeOptions reads the top results as Markdown, +1 credit per page', async () => {
    const { id, key } = await account(100)
    const fc = client(key)
    const all = await fc.search('coffee', { limit: 4, sources: ['web', 'news', 'images'] })
    expect(all.web).toHaveLength(4)
    expect(all.news!.length).toBeGreaterThan(0)
    expect(all.news![0]).toMatchObject({ title: expect.any(String), url: expect.stringMatching(/^https?:/), position: 1 })
    expect(all.images!.length).toBeGreaterThan(0)
    expect(all.images![0]).toMatchObject({ imageUrl: expect.stringMatching(/^https:/), position: 1 })
    expect(await balance(key)).toBe(97)
    const read = await fc.search('coffee', { limit: 2, scrapeOptions: { formats: ['markdown'] } })
    const [wiki, bbc] = read.web as Document[]
    expect(wiki!.markdown).toMatch(/Mozilla/)
    expect(wiki!.metadata).toMatchObject({ sourceURL: `${site.url}/article/wiki`, statusCode: 200 })
    expect(bbc!.markdown!.length).toBeGreaterThan(100)
    expect(await balance(key)).toBe(94) // 1 search + 2 pages
    const html = await sdkError(fc.search('coffee', { scrapeOptions: { formats: ['html'] } }))
    expect(html.status).toBe(400)
    expect(html.message).toMatch(/markdown only/)
    await expectBooksBalanced(trawl, id)
  })
})

describe('POST /v2/map', () => {
  test('through the SDK: the site’s URLs, 1 credit like /v1/map', async () => {
    const { key } = await account(10)
    const mapped = await client(key).map(crawlSite.url, { limit: 50 })
    const urls = mapped.links.map((l) => l.url)
    expect(urls).toEqual(expect.arrayContaining([`${crawlSite.url}/about`, `${crawlSite.url}/blog/post-1`, `${crawlSite.url}/docs/guide`]))
    expect(await balance(key)).toBe(9)
    const res = await post('/v2/map', { url: crawlSite.url, search: 'gardening post' }, bearer(key))
    expect(res.headers.get('x-credits-used')).toBe('1')
    shaped(FirecrawlMapResponse, await res.json())
  })
})

describe('crawl', () => {
  test('through the SDK’s waiter: pages under the start path (crawlEntireDomain false), the unread reservation refunded', async () => {
    const { id, key } = await account(100)
    const job = await client(key).crawl(`${crawlSite.url}/blog/`, { limit: 10, pollInterval: 1, timeout: 60 })
    expect(job.status).toBe('completed')
    const urls = job.data.map((d) => d.metadata!.sourceURL).sort()
    expect(urls).toEqual([`${crawlSite.url}/blog/`, `${crawlSite.url}/blog/post-1`, `${crawlSite.url}/blog/post-2`])
    for (const doc of job.data) expect(doc.markdown).toMatch(/paragraph 1/)
    expect(job).toMatchObject({ total: 3, completed: 3, creditsUsed: 3 })
    expect(await balance(key)).toBe(97)
    await expectBooksBalanced(trawl, id)
  })

  test('GET pages with skip and limit and an absolute next link; errors; DELETE cancels', async () => {
    const { key } = await account(100)
    const fc = client(key)
    const started = await fc.startCrawl(crawlSite.url, {
      limit: 5,
      crawlEntireDomain: true,
      sitemap: 'skip',
      scrapeOptions: { formats: ['markdown', 'links'] },
    })
    expect(started.url).toBe(`${apiUrl()}/v2/crawl/${started.id}`)
    let status = await fc.getCrawlStatus(started.id)
    for (let i = 0; i < 100 && status.status === 'scraping'; i++) {
      await new Promise((r) => setTimeout(r, 200))
      status = await fc.getCrawlStatus(started.id)
    }
    expect(status.status).toBe('completed')
    expect(status.data).toHaveLength(5)
    expect(status.data[0]!.links!.length).toBeGreaterThan(0)
    const first = shaped(FirecrawlJobStatus, await (await fetch(`${started.url}?limit=2`, { headers: bearer(key) })).json())
    expect(first.data).toHaveLength(2)
    expect(first.next).toBe(`${started.url}?skip=2&limit=2`)
    const last = shaped(FirecrawlJobStatus, await (await fetch(`${started.url}?skip=4&limit=2`, { headers: bearer(key) })).json())
    expect(last.data).toHaveLength(1)
    expect(last.next).toBeNull()
    expect(await fc.getCrawlErrors(started.id)).toEqual({ errors: expect.any(Array), robotsBlocked: [] })

    const slow = await fc.startCrawl(crawlSite.url, { limit: 20, crawlEntireDomain: true })
    const active = await fc.getActiveCrawls()
    expect(active.crawls).toEqual([{ id: slow.id, teamId: expect.any(String), url: crawlSite.url, options: expect.objectContaining({ limit: 20 }) }])
    expect(await fc.cancelCrawl(slow.id)).toBe(true)
    let cancelled = await fc.getCrawlStatus(slow.id)
    for (let i = 0; i < 100 && cancelled.status === 'scraping'; i++) {
      await new Promise((r) => setTimeout(r, 200))
      cancelled = await fc.getCrawlStatus(slow.id)
    }
    expect(cancelled.status).toBe('cancelled')
    const gone = await sdkError(fc.getCrawlStatus('00000000-0000-4000-8000-000000000000'))
    expect(gone.status).toBe(404)
  })

  test('the SDK’s watcher over the status WebSocket: catchup, documents, done', async () => {
    const { key } = await account(100)
    // Node 22 has a global WebSocket (undici's); on Node 20 the SDK would fall back to polling.
    const had = (globalThis as { WebSocket?: unknown }).WebSocket
    ;(globalThis as { WebSocket?: unknown }).WebSocket = UndiciWebSocket
    try {
      const fc = client(key)
      const started = await fc.startCrawl(`${crawlSite.url}/blog/`, { limit: 10 })
      let upgrades = 0
      const countUpgrade = () => upgrades++
      trawl.app.server.on('upgrade', countUpgrade)
      const watcher = fc.watcher(started.id, { kind: 'crawl', pollInterval: 1, timeout: 60 })
      const documents: Document[] = []
      const snapshots: string[] = []
      let done: { status: string } | undefined
      watcher.on('document', (d: Document) => documents.push(d))
      watcher.on('snapshot', (s: { status: string }) => snapshots.push(s.status))
      watcher.on('done', (d: { status: string }) => {
        done ??= d
      })
      await watcher.start()
      watcher.close()
      trawl.app.server.off('upgrade', countUpgrade)
      expect(upgrades).toBe(1) // over the socket, not by polling
      expect(done?.status).toBe('completed')
      expect(snapshots[0]).toBe('scraping')
      expect(documents.map((d) => d.metadata!.sourceURL).sort()).toEqual([
        `${crawlSite.url}/blog/`,
        `${crawlSite.url}/blog/post-1`,
        `${crawlSite.url}/blog/post-2`,
      ])
    } finally {
      ;(globalThis as { WebSocket?: unknown }).WebSocket = had
    }
  })

  test('the WebSocket refuses a bad key and an unknown crawl with an error message and a close code', async () => {
    const { key } = await account(10)
    const wsUrl = `${apiUrl().replace(/^http/, 'ws')}/v2/crawl/00000000-0000-4000-8000-000000000000`
    const talk = (protocol: string) =>
      new Promise<{ messages: unknown[]; code: number }>((resolve) => {
        const messages: unknown[] = []
        const ws = new UndiciWebSocket(wsUrl, protocol)
        ws.onmessage = (ev) => messages.push(JSON.parse(String(ev.data)))
        ws.onclose = (ev) => resolve({ messages, code: ev.code })
      })
    const refused = await talk('trawl_live_00000000000000000000000000000000')
    expect(refused).toEqual({ messages: [{ type: 'error', error: 'invalid API key' }], code: 3000 })
    const unknown = await talk(key)
    expect(unknown).toEqual({ messages: [{ type: 'error', error: 'Job not found' }], code: 1008 })
    // Any other path refuses the handshake at once instead of leaving the connection open.
    const elsewhere = await new Promise<number>((resolve) => {
      const ws = new UndiciWebSocket(`${trawl.base.replace(/^http/, 'ws')}/v1/search`)
      ws.onclose = (ev) => resolve(ev.code)
    })
    expect(elsewhere).toBe(1006)
  })

  test('unsupported crawl options are refused by name, before anything is reserved', async () => {
    const { id, key } = await account(10)
    const fc = client(key)
    for (const [options, message] of [
      [{ allowExternalLinks: true }, /allowExternalLinks is not supported/],
      [{ webhook: 'https://example.com/hook' }, /webhook is not supported/],
      [{ scrapeOptions: { formats: ['html'] } }, /crawls return markdown/],
      [{ prompt: 'only blog posts' }, /prompt is not supported/],
    ] as const) {
      const err = await sdkError(fc.startCrawl(crawlSite.url, options as Record<string, unknown>))
      expect(err.status).toBe(400)
      expect(err.message).toMatch(message)
    }
    expect(await balance(key)).toBe(10)
    await expectBooksBalanced(trawl, id)
  })
})

describe('batch scrape', () => {
  test('through the SDK’s waiter: a /v1/batches batch of webpage jobs at half price; invalid URLs listed, not charged', async () => {
    const { id, key } = await account(10)
    const fc = client(key)
    const started = await fc.startBatchScrape([`${site.url}/article/ars`, `${site.url}/article/bbc`, 'not a url'], {
      options: { formats: ['markdown', 'links'] },
    })
    expect(started.invalidURLs).toEqual(['not a url'])
    expect(started.url).toBe(`${apiUrl()}/v2/batch/scrape/${started.id}`)
    expect(await balance(key)).toBe(9) // two jobs at 0.5
    const job = await fc.batchScrape([`${site.url}/article/wiki`], { options: { formats: ['html'] }, pollInterval: 1, timeout: 60 })
    expect(job.status).toBe('completed')
    expect(job.data[0]!.html).toMatch(/<p>/)
    let first = await fc.getBatchScrapeStatus(started.id)
    for (let i = 0; i < 100 && first.status === 'scraping'; i++) {
      await new Promise((r) => setTimeout(r, 200))
      first = await fc.getBatchScrapeStatus(started.id)
    }
    expect(first).toMatchObject({ status: 'completed', total: 2, completed: 2, creditsUsed: 1 })
    expect(first.data.map((d) => d.metadata!.sourceURL)).toEqual([`${site.url}/article/ars`, `${site.url}/article/bbc`])
    expect(first.data[0]!.links!.length).toBeGreaterThan(0)
    expect(await balance(key)).toBe(8.5)
    const raw = await post('/v2/batch/scrape', { urls: [`${site.url}/article/ars`], formats: ['rawHtml'] }, bearer(key))
    expect(raw.status).toBe(400)
    expect(await fc.getBatchScrapeErrors(started.id)).toEqual({ errors: [], robotsBlocked: [] })
    await expectBooksBalanced(trawl, id)
  })
})

describe('keys and errors', () => {
  test('the key as Bearer; a missing or wrong one is 401 in Firecrawl’s shape', async () => {
    const none = await post('/v2/scrape', { url: `${site.url}/article/ars` })
    expect(none.status).toBe(401)
    expect(shaped(FirecrawlError, await none.json())).toMatchObject({ success: false, error: expect.stringMatching(/missing API key/) })
    const wrong = await sdkError(client('trawl_live_00000000000000000000000000000000').scrape(`${site.url}/article/ars`))
    expect(wrong.status).toBe(401)
    const unknown = await fetch(`${apiUrl()}/v2/extract`, { method: 'POST' })
    expect(unknown.status).toBe(404)
    expect(await unknown.json()).toMatchObject({ success: false, error: 'no route POST /compat/firecrawl/v2/extract' })
  })

  test('wrong input on every route: 400 in Firecrawl’s shape, nothing billed', async () => {
    const { id, key } = await account(10)
    const huge = 'x'.repeat(100_000)
    const cases: [string, string, unknown][] = [
      ['POST', '/v2/scrape', {}],
      ['POST', '/v2/scrape', { url: 42 }],
      ['POST', '/v2/scrape', { url: huge }],
      ['POST', '/v2/scrape', { url: 'ftp://example.com/' }],
      ['POST', '/v2/scrape', { url: `${site.url}/article/ars`, formats: ['screenshot'] }],
      ['POST', '/v2/scrape', { url: `${site.url}/article/ars`, formats: [{ type: 'json', prompt: 'x' }] }],
      ['POST', '/v2/scrape', { url: `${site.url}/article/ars`, actions: [{ type: 'click', selector: 'a' }] }],
      ['POST', '/v2/scrape', { url: `${site.url}/article/ars`, includeTags: ['article'] }],
      ['POST', '/v2/scrape', { url: `${site.url}/article/ars`, timeout: 'soon' }],
      ['POST', '/v2/scrape', { url: `${site.url}/article/ars`, nonsense: true }],
      ['POST', '/v2/scrape', [{ url: `${site.url}/article/ars` }]],
      ['POST', '/v2/scrape', '{"url":'],
      ['POST', '/v2/search', {}],
      ['POST', '/v2/search', { query: huge }],
      ['POST', '/v2/search', { query: 'coffee', limit: 0 }],
      ['POST', '/v2/search', { query: 'coffee', limit: 'five' }],
      ['POST', '/v2/search', { query: 'coffee', sources: ['videos'] }],
      ['POST', '/v2/search', { query: 'coffee', categories: ['github'] }],
      ['POST', '/v2/search', { query: 'coffee', country: 'xx' }],
      ['POST', '/v2/search', { query: 'coffee', includeDomains: ['not a domain'] }],
      ['POST', '/v2/map', { url: 'not a url' }],
      ['POST', '/v2/map', { url: crawlSite.url, limit: -1 }],
      ['POST', '/v2/crawl', { url: 'not a url' }],
      ['POST', '/v2/crawl', { url: crawlSite.url, includePaths: ['('] }],
      ['POST', '/v2/crawl', { url: crawlSite.url, limit: { many: true } }],
      ['POST', '/v2/crawl', { url: crawlSite.url, ignoreRobotsTxt: true }],
      ['POST', '/v2/batch/scrape', { urls: [] }],
      ['POST', '/v2/batch/scrape', { urls: 'https://example.com/' }],
      ['POST', '/v2/batch/scrape', { urls: Array.from({ length: 101 }, (_, i) => `${site.url}/article/ars?${i}`) }],
      ['POST', '/v2/batch/scrape', { urls: ['not a url'], ignoreInvalidURLs: false }],
      ['GET', '/v2/crawl/00000000-0000-4000-8000-000000000000?skip=-1', undefined],
      ['GET', '/v2/crawl/00000000-0000-4000-8000-000000000000?limit=lots', undefined],
      ['GET', `/v2/crawl/${'x'.repeat(100)}`, undefined],
      ['GET', '/v2/batch/scrape/00000000-0000-4000-8000-000000000000?nonsense=1', undefined],
    ]
    for (const [method, path, body] of cases) {
      const res = await fetch(`${apiUrl()}${path}`, {
        method,
        headers: { ...bearer(key), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
      })
      const label = `${method} ${path.slice(0, 80)} ${JSON.stringify(body)?.slice(0, 80)}`
      expect(res.status, label).toBeGreaterThanOrEqual(400)
      expect(res.status, label).toBeLessThan(500)
      const answer = shaped(FirecrawlError, await res.json())
      expect(answer.error, label).toBeTruthy()
      if (method === 'POST') expect(res.headers.get('x-credits-used'), label).toBe('0')
    }
    expect(await balance(key)).toBe(10)
    await expectBooksBalanced(trawl, id)
  })

  test('the published schemas describe what is sent', async () => {
    const { key } = await account(10)
    shaped(FirecrawlJobStarted, await (await post('/v2/crawl', { url: `${crawlSite.url}/news/a`, limit: 1 }, bearer(key))).json())
  })
})
