import { execFile } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { request as httpRequest } from 'node:http'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { expectBooksBalanced } from './support/books.ts'
import { type FakeUpstream, fakeUpstream, fixture } from './support/fake-upstream.ts'
import { serpRouter } from './support/serp-router.ts'
import { startTrawl, type Trawl } from './support/start-trawl.ts'

/**
 * SearXNG's search API at /compat/searxng. @langchain/community (whose SearxngSearch tool takes
 * `apiBase`) does not install next to this project's zod 4 (its peer @browserbasehq/stagehand
 * wants zod 3), so the clients' requests are reproduced exactly from their source:
 * - LangChain Python (langchain_community.utilities.SearxSearchWrapper): requests.get(searx_host,
 *   headers=headers, params={"language": "en", "format": "json", "q": …, "engines": …,
 *   "categories": …}); sent by python3's requests itself when it is installed, byte for byte otherwise;
 * - LangChain JS (@langchain/community/tools/searxng_search): fetch POST `${apiBase}/search?q=…
 *   &numResults=10&pageNumber=1&format=json&imageProxy=true&safesearch=0` with Content-Type
 *   application/json and no body;
 * - Open WebUI: GET of the configured query URL plus q, format, pageno, safesearch, language,
 *   time_range, categories, theme and image_proxy.
 */

const run = promisify(execFile)

const coffee = fixture('serp/google/web-desktop/zlurad-coffee.html')
const ROUTES = serpRouter([
  { host: 'www.google.com', path: '/search', query: { tbm: 'isch' }, body: fixture('serp/google/images/aql-green-capital-energy-basic.html') },
  { host: 'www.google.com', path: '/search', query: { tbm: 'vid' }, body: fixture('serp/google/videos/aql-atalanta-bergamasca-calcio-basic.html') },
  {
    host: 'news.google.com',
    path: '/rss/search',
    body: readFileSync(new URL('fixtures/google/news/news-rss-ai-regulation.constructed.xml', import.meta.url)),
    type: 'application/rss+xml; charset=utf-8',
  },
  { host: 'www.google.com', path: '/search', body: coffee },
])

let upstream: FakeUpstream
let trawl: Trawl
beforeAll(async () => {
  upstream = await fakeUpstream(ROUTES)
  trawl = await startTrawl({ TRAWL_UPSTREAM_HOSTS: `*=${upstream.url}`, TRAWL_UPSTREAM_TIMEOUT_MS: '2000' })
})
afterAll(async () => {
  await trawl?.close()
  await upstream?.close()
})

const base = (t: Trawl = trawl) => `${t.base}/compat/searxng`
const bearer = (key: string) => ({ authorization: `Bearer ${key}` })
const balance = async (key: string) => (await (await fetch(`${trawl.base}/v1/account`, { headers: bearer(key) })).json()).balance as number
const lastUpstream = () => {
  const last = upstream.seen.at(-1)!
  return new URL(last.url, `https://${last.host}`)
}

/** Python's urlencode (quote_plus): what requests does to `params`. */
const pyQuery = (params: [string, string][]) =>
  params
    .map(
      ([k, v]) =>
        `${encodeURIComponent(k)}=${encodeURIComponent(v)
          .replace(/%20/g, '+')
          .replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)}`,
    )
    .join('&')

/** One raw HTTP/1.1 request, headers exactly as given (python-requests' defaults by default). */
function rawGet(
  url: string,
  headers: Record<string, string>,
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: 'GET', headers }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c) => chunks.push(c))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }))
    })
    req.on('error', reject)
    req.end()
  })
}
const PYTHON_REQUESTS_HEADERS = { 'User-Agent': 'python-requests/2.32.3', 'Accept-Encoding': 'identity', Accept: '*/*', Connection: 'keep-alive' }

describe('LangChain, Open WebUI and plain SearXNG requests', () => {
  test('LangChain Python SearxSearchWrapper: GET at the instance root, engines and categories joined; billed as /v1/search', async () => {
    const { id, key } = await trawl.account({ credits: 100 })
    const params: [string, string][] = [
      ['language', 'en'],
      ['format', 'json'],
      ['q', 'what is coffee?'],
      ['engines', 'google,bing'],
      ['categories', 'general'],
    ]
    const res = await rawGet(`${base()}?${pyQuery(params)}`, { ...PYTHON_REQUESTS_HEADERS, Authorization: `Bearer ${key}` })
    expect(res.status).toBe(200)
    expect(res.headers['x-credits-used']).toBe('1')
    const body = JSON.parse(res.body)
    expect(body.query).toBe('what is coffee?')
    expect(body.number_of_results).toBe(10)
    expect(body.results).toHaveLength(10)
    expect(body.results[0]).toMatchObject({
      url: 'https://en.wikipedia.org/wiki/Coffee',
      title: 'Coffee',
      content: expect.stringContaining('Coffee is a beverage'),
      engine: 'google',
      engines: ['google'],
      positions: [1],
      score: 1,
      category: 'general',
      template: 'default.html',
      parsed_url: ['https', 'en.wikipedia.org', '/wiki/Coffee', '', '', ''],
      publishedDate: null,
    })
    expect(body.results[1].score).toBe(0.5)
    expect(body.results.find((r: { publishedDate: string | null }) => r.publishedDate)?.publishedDate).toMatch(/^2023-03-\d\dT/)
    expect(body.suggestions).toContain('coffee beans')
    expect(body.infoboxes[0]).toMatchObject({ infobox: 'Coffee', content: expect.stringContaining('Coffee is a beverage'), engine: 'google' })
    expect(body).toMatchObject({ answers: [], corrections: [], unresponsive_engines: [] })
    expect(lastUpstream().searchParams.get('q')).toBe('what is coffee?')
    // The equivalent Trawl call costs the same.
    expect((await fetch(`${trawl.base}/v1/search?q=coffee`, { headers: bearer(key) })).headers.get('x-credits-used')).toBe('1')
    expect(await balance(key)).toBe(98)
    await expectBooksBalanced(trawl, id)
  })

  test('the same call from python3 requests, as the wrapper makes it (when requests is installed)', async () => {
    const has = await run('python3', ['-c', 'import requests']).then(
      () => true,
      () => false,
    )
    if (!has) return
    const { key } = await trawl.account({ credits: 10 })
    // langchain_community SearxSearchWrapper.results(): _searx_api_query and the mapping of its answer.
    const script = `
import json, os, requests
params = {"language": "en", "format": "json"}
params = {**params, **{"q": "coffee"}}
params["engines"] = ",".join(["google"])
raw = requests.get(os.environ["SEARX_HOST"], headers={"Authorization": "Bearer " + os.environ["KEY"]}, params=params, verify=True)
if not raw.ok:
    raise ValueError("Searx API returned an error: ", raw.text)
res = json.loads(raw.text)
print(json.dumps([{"snippet": r.get("content", ""), "title": r["title"], "link": r["url"], "engines": r["engines"], "category": r["category"]} for r in res["results"][:3]]))
`
    const { stdout } = await run('python3', ['-c', script], { env: { ...process.env, SEARX_HOST: base(), KEY: key } })
    const results = JSON.parse(stdout)
    expect(results).toHaveLength(3)
    expect(results[0]).toMatchObject({ title: 'Coffee', link: 'https://en.wikipedia.org/wiki/Coffee', engines: ['google'], category: 'general' })
    expect(await balance(key)).toBe(9)
  })

  test('LangChain JS SearxngSearch: POST /search, parameters in the query string, JSON content type and no body', async () => {
    const { key } = await trawl.account({ credits: 10 })
    const params = { q: 'coffee', numResults: 10, pageNumber: 1, format: 'json', imageProxy: true, safesearch: 0 }
    const query = new URLSearchParams(Object.entries(params).map(([k, v]) => [k, v.toString()]))
    const res = await fetch(`${base()}/search?${query}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...bearer(key) },
      signal: AbortSignal.timeout(5000),
    })
    expect(res.ok).toBe(true)
    const body = await res.json()
    expect(body.results.length).toBeGreaterThan(0)
    expect(body.results[0]).toMatchObject({ title: 'Coffee', url: 'https://en.wikipedia.org/wiki/Coffee', content: expect.any(String) })
    expect(await balance(key)).toBe(9)
  })

  test('Open WebUI: its parameters (empty time_range and categories, theme, image_proxy) and the key in the configured query URL', async () => {
    const { key } = await trawl.account({ credits: 10 })
    const params: [string, string][] = [
      ['q', 'coffee'],
      ['format', 'json'],
      ['pageno', '1'],
      ['safesearch', '1'],
      ['language', 'en-US'],
      ['time_range', ''],
      ['categories', ''],
      ['theme', 'simple'],
      ['image_proxy', '0'],
    ]
    const res = await rawGet(`${base()}/search?api_key=${key}&${pyQuery(params)}`, {
      'User-Agent': 'Open WebUI (https://github.com/open-webui/open-webui) RAG Bot',
      Accept: 'text/html',
      'Accept-Encoding': 'identity',
      'Accept-Language': 'en-US,en;q=0.5',
      Connection: 'keep-alive',
    })
    expect(res.status).toBe(200)
    expect(res.headers['content-type']).toMatch(/^application\/json/)
    expect(JSON.parse(res.body).results[0].url).toBe('https://en.wikipedia.org/wiki/Coffee')
    expect(Object.fromEntries(lastUpstream().searchParams)).toMatchObject({ hl: 'en-US', gl: 'us', safe: 'active' })
    expect(await balance(key)).toBe(9)
  })

  test('POST with a form body, the key as its api_key field', async () => {
    const { key } = await trawl.account({ credits: 10 })
    const res = await fetch(`${base()}/search`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ q: 'coffee', format: 'json', api_key: key, language: 'de-DE', time_range: 'week' }),
    })
    expect(res.status).toBe(200)
    expect((await res.json()).results.length).toBeGreaterThan(0)
    expect(Object.fromEntries(lastUpstream().searchParams)).toMatchObject({ hl: 'de-DE', gl: 'de', tbs: 'qdr:w' })
    expect(await balance(key)).toBe(9)
  })
})

describe('categories, engines, pages', () => {
  test('news, images and videos are the verticals, each billed as itself', async () => {
    const { id, key } = await trawl.account({ credits: 100 })
    const get = (query: string) => fetch(`${base()}/search?format=json&${query}`, { headers: bearer(key) })

    const news = await get('q=ai+regulation&categories=news&engines=google+news')
    expect(news.headers.get('x-credits-used')).toBe('1')
    const newsBody = await news.json()
    expect(newsBody.results[0]).toMatchObject({ category: 'news', engine: 'google', template: 'default.html', publishedDate: expect.stringMatching(/^\d{4}-/) })
    expect(upstream.seen.at(-1)?.host).toBe('news.google.com')
    expect(newsBody).toMatchObject({ suggestions: [], infoboxes: [], unresponsive_engines: [] })

    const images = await (await get('q=green+capital+energy&categories=images,general')).json()
    expect(images.results[0]).toMatchObject({
      category: 'images',
      template: 'images.html',
      img_src: expect.stringMatching(/^https:\/\//),
      thumbnail_src: expect.stringMatching(/^https:\/\//),
      url: 'https://www.shaw.af.mil/News/Article-Display/Article/664405/saving-shaw-money/',
      content: '',
    })
    expect(lastUpstream().searchParams.get('tbm')).toBe('isch')

    const videos = await (await get('q=atalanta&categories=videos')).json()
    expect(videos.results[0]).toMatchObject({ category: 'videos', template: 'videos.html', url: expect.stringMatching(/^https:\/\//) })
    expect(lastUpstream().searchParams.get('tbm')).toBe('vid')

    // A category Trawl does not have is ignored: general is searched.
    const music = await (await get('q=coffee&categories=music')).json()
    expect(music.results[0].category).toBe('general')
    expect(await balance(key)).toBe(96)
    await expectBooksBalanced(trawl, id)
  })

  test('engines: unknown names and providers that cannot serve are listed in unresponsive_engines, never a 400', async () => {
    const { key } = await trawl.account({ credits: 100 })
    const get = async (query: string) => (await fetch(`${base()}/search?format=json&q=coffee&${query}`, { headers: bearer(key) })).json()
    const mixed = await get('engines=qwant,google')
    expect(mixed.unresponsive_engines).toEqual([['qwant', 'unknown engine: not a provider of this Trawl server']])
    expect(mixed.results[0].engine).toBe('google')
    const wiki = await get('engines=wikipedia&categories=images')
    expect(wiki.unresponsive_engines).toEqual([['wikipedia', 'does not offer the images category']])
    expect(wiki.results[0].category).toBe('images')
  })

  test('a provider that fails does not fail the call: empty answer, the provider unresponsive, nothing billed', async () => {
    const { id, key } = await trawl.account({ credits: 10 })
    const res = await fetch(`${base()}/search?format=json&q=coffee&engines=bing`, { headers: bearer(key) })
    expect(res.status).toBe(200)
    expect(res.headers.get('x-credits-used')).toBe('0')
    const body = await res.json()
    expect(body.results).toEqual([])
    expect(body.unresponsive_engines).toEqual([['bing', expect.any(String)]])
    expect(await balance(key)).toBe(10)
    await expectBooksBalanced(trawl, id)
  })

  test('pageno: page 2 is billed as page 2; past page 10 an empty, free answer', async () => {
    const { key } = await trawl.account({ credits: 10 })
    const second = await fetch(`${base()}/search?format=json&q=coffee&pageno=2`, { headers: bearer(key) })
    expect(second.headers.get('x-credits-used')).toBe('1')
    expect((await second.json()).results[0].positions).toEqual([11])
    expect(lastUpstream().searchParams.get('start')).toBe('10')
    const far = await fetch(`${base()}/search?format=json&q=coffee&pageno=11`, { headers: bearer(key) })
    expect(far.status).toBe(200)
    expect(far.headers.get('x-credits-used')).toBe('0')
    expect((await far.json()).results).toEqual([])
    expect(await balance(key)).toBe(9)
  })

  test('format html, csv and rss: 403 as an instance with those formats off; no query 400; no key 401', async () => {
    const { key } = await trawl.account({ credits: 10 })
    for (const format of ['html', 'csv', 'rss']) {
      const res = await fetch(`${base()}/search?q=coffee&format=${format}`, { headers: bearer(key) })
      expect(res.status, format).toBe(403)
      expect((await res.json()).error.code).toBe('forbidden')
    }
    expect((await fetch(`${base()}/search?format=json`, { headers: bearer(key) })).status).toBe(400)
    const anonymous = await fetch(`${base()}/search?format=json&q=coffee`)
    expect(anonymous.status).toBe(401)
    expect(anonymous.headers.get('x-credits-used')).toBe('0')
    // Without format the answer is JSON all the same (an API, not a web page).
    expect((await fetch(`${base()}/search?q=coffee`, { headers: bearer(key) })).status).toBe(200)
    expect(await balance(key)).toBe(9)
  })
})

describe('wrong input', () => {
  const huge = 'x'.repeat(200_000)
  const CASES: [method: string, path: string, body?: string, type?: string][] = [
    ['GET', '/search?format=json'],
    ['GET', '/search?format=json&q='],
    ['GET', '/search?format=json&q=%20%20'],
    ['GET', `/search?format=json&q=${'x'.repeat(3000)}`],
    ['GET', '/search?format=json&q=x&pageno=abc'],
    ['GET', '/search?format=json&q=x&pageno=-1'],
    ['GET', '/search?format=json&q=x&pageno=0'],
    ['GET', '/search?format=json&q=x&pageno=99999999999'],
    ['GET', '/search?format=json&q=x&time_range=decade'],
    ['GET', '/search?format=json&q=x&safesearch=3'],
    ['GET', '/search?format=json&q=x&language=not%20a%20language'],
    ['GET', `/search?format=json&q=x&engines=${'a,'.repeat(600)}`],
    ['GET', `/search?format=json&q=x&categories=${'b,'.repeat(600)}`],
    ['GET', '/search?format=xml&q=x'],
    ['POST', '/search', '{"q": "\\ud800", "format": "json"}'],
    ['POST', '/search', '{"q": [1, 2], "format": "json"}'],
    ['POST', '/search', '{"q": {"nested": true}}'],
    ['POST', '/search', '[1, 2]'],
    ['POST', '/search', 'null'],
    ['POST', '/search', '{"q": "x",'],
    ['POST', '/search', JSON.stringify({ q: huge })],
    ['POST', '/search', `q=${huge}`, 'application/x-www-form-urlencoded'],
    ['POST', '/search', 'format=json', 'application/x-www-form-urlencoded'],
    ['POST', '/search', 'q=x', 'text/plain'],
    ['POST', '/', '{"format": "json"}'],
    ['DELETE', '/search'],
  ]

  test('wrong types, huge strings, missing fields and bad JSON: 4xx, never 5xx, nothing billed', async () => {
    const { id, key } = await trawl.account({ credits: 100, plan: 'enterprise', rate_limit_rps: 1000 })
    for (const [method, path, body, type] of CASES) {
      const res = await fetch(`${base()}${path}`, {
        method,
        headers: { ...bearer(key), ...(body !== undefined ? { 'content-type': type ?? 'application/json' } : {}) },
        body,
      })
      const label = `${method} ${path.slice(0, 80)} ${body?.slice(0, 60) ?? ''}`
      expect(res.status, label).toBeGreaterThanOrEqual(400)
      expect(res.status, label).toBeLessThan(500)
      expect((await res.json()).error.code, label).toEqual(expect.any(String))
      expect(res.headers.get('x-credits-used') ?? '0', label).toBe('0')
    }
    expect(await balance(key)).toBe(100)
    await expectBooksBalanced(trawl, id)
  })
})

describe('TRAWL_SEARXNG_KEYLESS=true', () => {
  let open: Trawl
  beforeAll(async () => {
    open = await startTrawl({ TRAWL_UPSTREAM_HOSTS: `*=${upstream.url}`, TRAWL_SEARXNG_KEYLESS: 'true' })
  })
  afterAll(() => open?.close())

  const ledgerRows = async () =>
    Number(
      (
        await open.services.store.db
          .selectFrom('ledger')
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    )

  test('no key: answered, billed to nobody (no ledger row); a key sent is billed as usual; /v1 still needs a key', async () => {
    const before = await ledgerRows()
    const res = await fetch(`${base(open)}/search?q=coffee&format=json`)
    expect(res.status).toBe(200)
    expect(res.headers.get('x-credits-used')).toBe('0')
    expect((await res.json()).results[0].url).toBe('https://en.wikipedia.org/wiki/Coffee')
    expect(await ledgerRows()).toBe(before)
    expect(await open.services.store.db.selectFrom('reservations').selectAll().execute()).toEqual([])

    const { id, key } = await open.account({ credits: 10 })
    const keyed = await fetch(`${base(open)}/search?q=tea&format=json`, { headers: bearer(key) })
    expect(keyed.headers.get('x-credits-used')).toBe('1')
    expect(keyed.headers.get('x-credits-remaining')).toBe('9')
    await expectBooksBalanced(open, id)
    const wrongKey = await fetch(`${base(open)}/search?q=tea&format=json`, { headers: bearer(`trawl_live_${'x'.repeat(32)}`) })
    expect(wrongKey.status).toBe(401)
    expect((await fetch(`${open.base}/v1/search?q=coffee`)).status).toBe(401)
  })

  test('keyless calls are limited per address: 30 a minute, then 429 with Retry-After; bad requests spend none', async () => {
    for (let i = 0; i < 5; i++) expect((await fetch(`${base(open)}/search?format=json`)).status).toBe(400)
    const statuses: number[] = []
    let refused: Response | undefined
    for (let i = 0; i < 31; i++) {
      const res = await fetch(`${base(open)}/search?q=limit&format=json`)
      statuses.push(res.status)
      if (res.status === 429) refused = res
    }
    // The first test spent one of the minute's 30.
    expect(statuses.filter((s) => s === 200)).toHaveLength(29)
    expect(refused).toBeDefined()
    expect(refused!.headers.get('retry-after')).toMatch(/^\d+$/)
    expect((await refused!.json()).error.message).toMatch(/^keyless SearXNG searches are limited to 30 per minute/)
  })
})

describe('OpenAPI', () => {
  test('GET and POST /compat/searxng/search are listed under their own tag; the instance root is not', async () => {
    const doc = await (await fetch(`${trawl.base}/v1/openapi.json`)).json()
    const path = doc.paths['/compat/searxng/search']
    expect(path.get).toMatchObject({ operationId: 'searxngSearchGet', tags: ['compat-searxng'] })
    expect(path.post).toMatchObject({ operationId: 'searxngSearch', tags: ['compat-searxng'] })
    expect(Object.keys(path.post.requestBody.content)).toEqual(['application/x-www-form-urlencoded', 'application/json'])
    expect(path.get.responses['200'].content['application/json'].schema.$ref).toBe('#/components/schemas/SearxngResponse')
    expect(doc.paths['/compat/searxng']).toBeUndefined()
  })
})
