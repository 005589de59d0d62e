import { readFileSync } from 'node:fs'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { z } from 'zod'
import { AccountResponse } from '../src/features/accounts/account.response.ts'
import { BatchCreated, BatchJob } from '../src/features/batches/batches.response.ts'
import { SearxngResponse } from '../src/features/compat/searxng/searxng.response.ts'
import { TavilyExtractResponse, TavilyMapResponse, TavilySearchResponse, TavilyUsageResponse } from '../src/features/compat/tavily/tavily.response.ts'
import { ContextResponse } from '../src/features/context/context.schema.ts'
import { CrawlTask } from '../src/features/crawl/crawl.response.ts'
import { CseResponse } from '../src/features/customsearch/cse.response.ts'
import { EnginesResponse } from '../src/features/engines/engines.response.ts'
import { MapResponse } from '../src/features/map/map.response.ts'
import { MonitorDeleted, MonitorList, MonitorResponse, MonitorRuns } from '../src/features/monitors/monitors.response.ts'
import { RankResponse } from '../src/features/rank/rank.schema.ts'
import { ExtractResponse, WebpageResponse } from '../src/features/reading/reading.response.ts'
import { SearchResponse } from '../src/features/search/search.response.ts'
import { verticalResponse } from '../src/features/search/verticals/vertical.response.ts'
import type { VerticalName } from '../src/features/search/verticals/vertical.specs.ts'
import { ErrorEnvelope } from '../src/http/error-schema.ts'
import { type CrawlSite, startCrawlSite } from './support/crawl-site.ts'
import { type FakeUpstream, fakeUpstream, fixture } from './support/fake-upstream.ts'
import { type LocalSite, startLocalSite } from './support/reading-site.ts'
import { type SerpRoute, serpRouter } from './support/serp-router.ts'
import { startTrawl, type Trawl } from './support/start-trawl.ts'

/**
 * Every endpoint's real answer parses with the schema the OpenAPI document publishes for it, in strict mode: a key
 * the schema does not name fails, as does a required key that is missing or a value of the wrong type.
 */
const real = (path: string) => fixture(`serp/google/${path}`)
const constructed = (path: string) => readFileSync(new URL(`fixtures/google/${path}`, import.meta.url))

const ROUTES: SerpRoute[] = [
  { host: 'www.google.com', path: '/search', query: { tbm: 'isch' }, body: real('images/aql-green-capital-energy-basic.html') },
  { host: 'www.google.com', path: '/search', query: { tbm: 'vid' }, body: real('videos/aql-atalanta-bergamasca-calcio-basic.html') },
  { host: 'www.google.com', path: '/search', query: { tbm: 'map' }, body: `)]}'\n${real('maps/gosom-search-coffee.json')}`, type: 'application/json' },
  { host: 'www.google.com', path: '/search', query: { tbm: 'shop' }, body: constructed('shopping/shopping-tbm-shop-us.constructed.html') },
  { host: 'www.google.com', path: '/search', query: { udm: '26' }, body: constructed('lens/lens-udm26-visual-matches.constructed.html') },
  { host: 'lens.google.com', path: '/uploadbyurl', status: 302, body: '', location: 'https://www.google.com/search?udm=26&vsrid=abc&lns_surface=26' },
  {
    host: 'news.google.com',
    path: '/rss/search',
    body: constructed('news/news-rss-ai-regulation.constructed.xml'),
    type: 'application/rss+xml; charset=utf-8',
  },
  { host: 'scholar.google.com', path: '/scholar', body: constructed('scholar/scholar-coral-bleaching.constructed.html') },
  {
    host: 'patents.google.com',
    path: '/xhr/query',
    body: constructed('patents/patents-solar-panel-cleaning-robot.constructed.json'),
    type: 'application/json',
  },
  {
    host: 'www.google.com',
    path: '/complete/search',
    body: constructed('autocomplete/autocomplete-firefox-cafe-fr.constructed.json'),
    type: 'text/javascript; charset=UTF-8',
  },
  // Web search last: it answers /search without a vertical's parameter.
  { host: 'www.google.com', path: '/search', body: real('web-desktop/zlurad-coffee.html') },
]

const FIRST_REVIEWS_CURSOR = 'CAESBkVnSUlDZw=='

/** The query /v1/context is asked: a web page whose first result is an article of the local site (the only page it reads). */
const CONTEXT_QUERY = 'coffee history'
const coffeePage = real('web-desktop/zlurad-coffee.html').toString('utf8')

function engines(req: IncomingMessage, res: ServerResponse) {
  const url = new URL(req.url ?? '/', 'http://x')
  if (req.headers['x-forwarded-host'] === 'www.google.com' && url.pathname === '/search' && url.searchParams.get('q') === CONTEXT_QUERY) {
    res
      .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
      .end(coffeePage.replaceAll('https://en.wikipedia.org/wiki/Coffee', `${site.url}/article/wiki`))
    return
  }
  if (req.headers['x-forwarded-host'] === 'www.google.com' && url.pathname === '/maps/rpc/listugcposts') {
    const page = (url.searchParams.get('pb') ?? '').includes(FIRST_REVIEWS_CURSOR) ? 'last' : 'first'
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' }).end(constructed(`reviews/listugcposts-${page}-page.constructed.txt`))
    return
  }
  serpRouter(ROUTES)(req, res)
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
  if (schema instanceof z.ZodUnion) return z.union((schema.options as z.ZodType[]).map(strict))
  return schema
}

async function expectShape(res: Response, schema: z.ZodType, status = 200) {
  const text = await res.text()
  expect(res.status, text.slice(0, 300)).toBe(status)
  const body = JSON.parse(text)
  const parsed = strict(schema).safeParse(body)
  expect(parsed.error?.issues).toBeUndefined()
  return body
}

let upstream: FakeUpstream
let site: LocalSite
let crawlSite: CrawlSite
let trawl: Trawl
let key: string

beforeAll(async () => {
  upstream = await fakeUpstream(engines)
  site = await startLocalSite()
  crawlSite = await startCrawlSite()
  trawl = await startTrawl(
    { TRAWL_UPSTREAM_HOSTS: `*=${upstream.url}`, TRAWL_UPSTREAM_TIMEOUT_MS: '800', TRAWL_ALLOW_PRIVATE_NETWORK: 'true', TRAWL_SCHEDULER_POLL_MS: '200' },
    { workers: true },
  )
  key = (await trawl.account({ plan: 'enterprise', rate_limit_rps: 1000, credits: 1000 })).key
})
afterAll(async () => {
  await trawl?.close()
  await upstream?.close()
  await site?.close()
  await crawlSite?.close()
})

const headers = () => ({ authorization: `Bearer ${key}`, 'content-type': 'application/json' })
const get = (path: string) => fetch(`${trawl.base}${path}`, { headers: { authorization: `Bearer ${key}` } })
const post = (path: string, body: unknown) => fetch(`${trawl.base}${path}`, { method: 'POST', headers: headers(), body: JSON.stringify(body) })
/** Any method; a call without a body sends no Content-Type. */
const send = (method: string, path: string, body?: unknown) =>
  fetch(
    `${trawl.base}${path}`,
    body === undefined ? { method, headers: { authorization: `Bearer ${key}` } } : { method, headers: headers(), body: JSON.stringify(body) },
  )

test('the strict parse refuses an unknown key at any depth and a missing required key', () => {
  const item = { position: 1, title: 'T', image_url: 'u', image_width: null, image_height: null, thumbnail_url: null, source: null, domain: null, link: null }
  const meta = { request_id: 'r', credits_used: 1, cached: false, engine: 'google', route: [], latency_ms: 1, parse_quality: 'ok', resolved_urls: true }
  const images = strict(verticalResponse('images'))
  expect(images.safeParse({ request: {}, results: [item], meta }).success).toBe(true)
  expect(images.safeParse({ request: {}, results: [{ ...item, extra: 1 }], meta }).success).toBe(false)
  expect(images.safeParse({ request: {}, results: [{ ...item, image_width: undefined }], meta }).success).toBe(false)
  expect(images.safeParse({ request: {}, results: [item], meta: { ...meta, extra: 1 } }).success).toBe(false)
})

describe('search verticals answer with their documented schema', () => {
  test('/v1/search: live, with ads=true, and replayed from the cache', async () => {
    const live = await expectShape(await get('/v1/search?q=coffee&max_age=600'), SearchResponse)
    expect(live.results.length).toBeGreaterThan(0)
    await expectShape(await get('/v1/search?q=coffee&ads=true'), SearchResponse)
    const cached = await expectShape(await get('/v1/search?q=coffee&max_age=600'), SearchResponse)
    expect(cached.meta.cached).toBe(true)
  })

  const CALLS: [VerticalName, () => Promise<Response>][] = [
    ['images', () => get('/v1/images?q=green+capital+energy')],
    ['videos', () => get('/v1/videos?q=atalanta')],
    ['news', () => get('/v1/news?q=ai+regulation')],
    ['maps', () => get('/v1/maps?q=coffee&ll=@38.03,23.70,14z')],
    ['places', () => post('/v1/places', { q: 'coffee', location: 'Athens,Greece' })],
    ['reviews', () => post('/v1/reviews', { fid: '0x14a1a32f316b15a1:0x169c54b46dcc3a93', sort: 'newest', num: 3 })],
    ['shopping', () => get('/v1/shopping?q=trail+running+shoes')],
    ['scholar', () => get('/v1/scholar?q=coral+bleaching')],
    ['patents', () => post('/v1/patents', { q: 'solar panel cleaning robot' })],
    ['autocomplete', () => get('/v1/autocomplete?q=caf&country=fr&language=fr')],
    ['lens', () => post('/v1/lens', { url: 'https://upload.example.org/tabby.jpg' })],
  ]
  test.each(CALLS)('/v1/%s', async (name, call) => {
    const body = await expectShape(await call(), verticalResponse(name))
    expect(body.results.length).toBeGreaterThan(0)
  })

  test('/v1/rank: live, and replayed from the cache', async () => {
    const body = await expectShape(await post('/v1/rank', { q: 'coffee', domain: 'starbucks.com', max_age: 600 }), RankResponse)
    expect(body.position).toBeGreaterThan(0)
    const cached = await expectShape(await post('/v1/rank', { q: 'coffee', domain: 'starbucks.com', max_age: 600 }), RankResponse)
    expect(cached.meta.cached).toBe(true)
  })

  test('/customsearch/v1, web and image results', async () => {
    const web = await expectShape(await fetch(`${trawl.base}/customsearch/v1?key=${key}&q=coffee&cx=abc&start=11`), CseResponse)
    expect(web.items.length).toBeGreaterThan(0)
    const images = await expectShape(await fetch(`${trawl.base}/customsearch/v1?key=${key}&q=energy&searchType=image`), CseResponse)
    expect(images.items[0].image).toBeDefined()
  })
})

describe('reading, map, crawl and account answer with their documented schema', () => {
  test('/v1/extract: a page with links, images and highlights, and a failed URL', async () => {
    const urls = [`${site.url}/article/ars`, `${site.url}/doc.pdf`, `${site.url}/missing`]
    const body = await expectShape(
      await post('/v1/extract', { urls, query: 'minecraft server crash', highlights: 2, include_links: true, include_images: true }),
      ExtractResponse,
    )
    expect(body.results).toHaveLength(2)
    expect(body.failed).toHaveLength(1)
  })

  test('/v1/webpage: an article, and an empty page', async () => {
    await expectShape(
      await post('/v1/webpage', { url: `${site.url}/article/images`, format: 'html', include_links: true, include_images: true }),
      WebpageResponse,
    )
    const empty = await expectShape(await post('/v1/webpage', { url: `${site.url}/empty` }), WebpageResponse)
    expect(empty.meta.empty_page).toBe(true)
  })

  test('/v1/map', async () => {
    const body = await expectShape(await post('/v1/map', { url: `${crawlSite.url}/` }), MapResponse)
    expect(body.results.length).toBeGreaterThan(0)
  })

  test('/v1/crawl: POST, then GET until done', async () => {
    const created = await expectShape(await post('/v1/crawl', { url: `${crawlSite.url}/`, limit: 3 }), CrawlTask, 202)
    let task = created
    for (const until = Date.now() + 20_000; !['completed', 'failed', 'canceled'].includes(task.status) && Date.now() < until; ) {
      await new Promise((r) => setTimeout(r, 100))
      task = await expectShape(await get(`/v1/crawl/${created.id}`), CrawlTask)
    }
    expect(task.status).toBe('completed')
    expect(task.result.pages.length).toBeGreaterThan(0)
  })

  test('DELETE /v1/crawl/{id}: a queued crawl, canceled', async () => {
    const created = await expectShape(await post('/v1/crawl', { url: `${crawlSite.url}/`, limit: 2 }), CrawlTask, 202)
    const canceled = await expectShape(await send('DELETE', `/v1/crawl/${created.id}`), CrawlTask)
    expect(canceled.id).toBe(created.id)
  })

  test('/v1/account', async () => {
    await expectShape(await get('/v1/account'), AccountResponse)
  })

  test('/v1/engines', async () => {
    const body = await expectShape(await get('/v1/engines'), EnginesResponse)
    expect(body.engines.length).toBeGreaterThan(0)
  })

  test('/v1/context: a search and the page it reads', async () => {
    const body = await expectShape(await post('/v1/context', { q: CONTEXT_QUERY, num: 1 }), ContextResponse)
    expect(body.meta.pages_read).toBe(1)
    expect(body.passages.length).toBeGreaterThan(0)
  })

  test('an error answers with the error envelope', async () => {
    await expectShape(await get('/v1/search?q=coffee&nope=1'), ErrorEnvelope, 400)
  })
})

describe('batches and monitors answer with their documented schema', () => {
  test('/v1/batches: POST with a queued job and a refused entry, then GET until done', async () => {
    const created = await expectShape(await post('/v1/batches', { endpoint: 'search', requests: [{ q: 'coffee' }, { q: '' }] }), BatchCreated, 202)
    expect(created.batches).toHaveLength(2)
    let job = created.batches[0]
    for (const until = Date.now() + 20_000; !['done', 'failed'].includes(job.status) && Date.now() < until; ) {
      await new Promise((r) => setTimeout(r, 100))
      job = await expectShape(await get(`/v1/batches/${created.batches[0].id}`), BatchJob)
    }
    expect(job.status).toBe('done')
  })

  test('/v1/monitors: create, list, read, update, run now, its runs, delete', async () => {
    const monitor = await expectShape(await post('/v1/monitors', { q: 'coffee', num: 5, metadata: { team: 'shapes' } }), MonitorResponse)
    const path = `/v1/monitors/${monitor.id}`
    const list = await expectShape(await get('/v1/monitors'), MonitorList)
    expect(list.monitors.map((m: { id: string }) => m.id)).toContain(monitor.id)
    await expectShape(await get(path), MonitorResponse)
    await expectShape(await send('PATCH', path, { name: 'coffee watch' }), MonitorResponse)
    let runs = await expectShape(await get(`${path}/runs`), MonitorRuns)
    for (const until = Date.now() + 20_000; runs.runs.length === 0 && Date.now() < until; ) {
      await new Promise((r) => setTimeout(r, 100))
      runs = await expectShape(await get(`${path}/runs`), MonitorRuns)
    }
    expect(runs.runs[0].status).toBe('ok')
    await expectShape(await send('POST', `${path}/run`), MonitorResponse, 202)
    await expectShape(await send('DELETE', path), MonitorDeleted)
  })
})

describe('compatible shapes answer with their documented schema', () => {
  test('/compat/tavily: search, extract, map and usage', async () => {
    const found = await expectShape(await post('/compat/tavily/search', { query: 'coffee', include_usage: true }), TavilySearchResponse)
    expect(found.results.length).toBeGreaterThan(0)
    await expectShape(await post('/compat/tavily/extract', { urls: [`${site.url}/article/ars`, `${site.url}/missing`] }), TavilyExtractResponse)
    await expectShape(await post('/compat/tavily/map', { url: `${crawlSite.url}/` }), TavilyMapResponse)
    await expectShape(await get('/compat/tavily/usage'), TavilyUsageResponse)
  })

  test('/compat/searxng/search, format=json: web, news and images', async () => {
    for (const query of ['q=coffee', 'q=ai+regulation&categories=news', 'q=green+capital+energy&categories=images']) {
      const body = await expectShape(await get(`/compat/searxng/search?format=json&${query}`), SearxngResponse)
      expect(body.results.length).toBeGreaterThan(0)
    }
  })
})
