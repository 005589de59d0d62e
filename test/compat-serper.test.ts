import { readFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { z } from 'zod'
import { SERPER_RESPONSES, SerperError } from '../src/features/compat/serper/serper.response.ts'
import type { SerperEndpoint } from '../src/features/compat/serper/serper.schema.ts'
import { expectBooksBalanced } from './support/books.ts'
import { type FakeUpstream, fakeUpstream, fixture } from './support/fake-upstream.ts'
import { type SerpRoute, serpRouter } from './support/serp-router.ts'
import { startTrawl, type Trawl } from './support/start-trawl.ts'

/**
 * Serper at /compat/serper. No maintained JavaScript client takes a base URL (@langchain/community's
 * Serper tool and Open WebUI hard-code https://google.serper.dev), so the requests are built exactly
 * as the clients send them: LangChain's Python GoogleSerperAPIWrapper (POST with the parameters in
 * the query string, Content-Type: application/json and an empty body), LangChain.js's Serper tool
 * and Open WebUI (a JSON body), with only the host and the key changed.
 */

const real = (path: string) => fixture(`serp/google/${path}`)
const constructed = (path: string) => readFileSync(new URL(`fixtures/google/${path}`, import.meta.url))

const ROUTES: SerpRoute[] = [
  { host: 'www.google.com', path: '/search', query: { tbm: 'isch' }, body: real('images/aql-green-capital-energy-basic.html') },
  { host: 'www.google.com', path: '/search', query: { tbm: 'vid' }, body: real('videos/aql-atalanta-bergamasca-calcio-basic.html') },
  { host: 'www.google.com', path: '/search', query: { tbm: 'map' }, body: `)]}'\n${real('maps/gosom-search-coffee.json')}`, type: 'application/json' },
  { host: 'www.google.com', path: '/search', query: { tbm: 'shop' }, body: constructed('shopping/shopping-tbm-shop-us.constructed.html') },
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
  { host: 'www.google.com', path: '/search', body: real('web-desktop/zlurad-coffee.html') },
]

let upstream: FakeUpstream
let trawl: Trawl

beforeAll(async () => {
  upstream = await fakeUpstream(serpRouter(ROUTES))
  trawl = await startTrawl({ TRAWL_UPSTREAM_HOSTS: `*=${upstream.url}`, TRAWL_UPSTREAM_TIMEOUT_MS: '2000' })
})
afterAll(async () => {
  await trawl?.close()
  await upstream?.close()
})

const account = (credits: number) => trawl.account({ credits, plan: 'enterprise', rate_limit_rps: 1000 })
const serper = (endpoint: string) => `${trawl.base}/compat/serper/${endpoint}`
const balance = async (key: string) =>
  (await (await fetch(`${trawl.base}/v1/account`, { headers: { authorization: `Bearer ${key}` } })).json()).balance as number

/** LangChain's GoogleSerperAPIWrapper._google_serper_api_results: requests.post(url, headers=headers, params=params). */
function langchainPython(key: string, searchType: string, query: string, kwargs: Record<string, unknown> = { gl: 'us', hl: 'en', num: 10, tbs: null }) {
  const params = new URLSearchParams({ q: query })
  // Python's requests drops None and writes values with str(): True, 10.
  for (const [name, value] of Object.entries(kwargs))
    if (value !== null && value !== undefined) params.set(name, value === true ? 'True' : value === false ? 'False' : String(value))
  return fetch(`${serper(searchType)}?${params}`, {
    method: 'POST',
    headers: { 'X-API-KEY': key, 'Content-Type': 'application/json' },
    body: '', // Content-Length: 0, as requests sends for a POST without data
  })
}

/** LangChain.js's Serper tool (and Open WebUI's search_serper): a JSON body. */
const jsonBody = (key: string, endpoint: string, body: unknown) =>
  fetch(serper(endpoint), { method: 'POST', headers: { 'X-API-KEY': key, 'Content-Type': 'application/json' }, body: JSON.stringify(body) })

/** What LangChain's _parse_snippets reads out of an answer, written the same way. */
function parseSnippets(results: Record<string, any>, k = 10): string[] {
  const snippets: string[] = []
  if (results.answerBox) {
    const box = results.answerBox
    if (box.answer) return [box.answer]
    if (box.snippet) return [box.snippet.replaceAll('\n', ' ')]
  }
  if (results.knowledgeGraph) {
    const kg = results.knowledgeGraph
    if (kg.type) snippets.push(`${kg.title}: ${kg.type}.`)
    if (kg.description) snippets.push(kg.description)
    for (const [attribute, value] of Object.entries(kg.attributes ?? {})) snippets.push(`${kg.title} ${attribute}: ${value}.`)
  }
  for (const result of results.organic.slice(0, k)) if ('snippet' in result) snippets.push(result.snippet)
  return snippets
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

describe('POST /search', () => {
  test('LangChain’s Python wrapper: parameters in the query string, empty JSON body; Serper’s keys; 1 credit like /v1/search', async () => {
    const { id, key } = await account(100)
    const res = await langchainPython(key, 'search', 'coffee')
    expect(res.status).toBe(200)
    expect(res.headers.get('x-credits-used')).toBe('1')
    expect(res.headers.get('x-credits-remaining')).toBe('99')
    const body = shaped(SERPER_RESPONSES.search, await res.json())
    expect(body.searchParameters).toEqual({ q: 'coffee', gl: 'us', hl: 'en', type: 'search', num: 10, page: 1, autocorrect: true, engine: 'google' })
    expect(body.organic).toHaveLength(10)
    expect(body.organic[0]).toMatchObject({
      title: 'Coffee',
      link: 'https://en.wikipedia.org/wiki/Coffee',
      snippet: expect.stringContaining('Coffee is a beverage'),
      position: 1,
    })
    expect(body.credits).toBe(1)
    expect(parseSnippets(body).length).toBeGreaterThan(5)
    // The engine got the same request a /v1/search would make.
    const asked = new URL(upstream.seen.at(-1)!.url, 'https://www.google.com')
    expect(Object.fromEntries(asked.searchParams)).toMatchObject({ q: 'coffee', gl: 'us', hl: 'en' })
    // type=news, k=5, page=2 and tbs as kwargs
    const news = await langchainPython(key, 'news', 'ai regulation', { gl: 'us', hl: 'en', num: 5, tbs: 'qdr:w', page: 2 })
    const newsBody = shaped(SERPER_RESPONSES.news, await news.json())
    expect(newsBody.searchParameters).toMatchObject({ type: 'news', num: 5, page: 2, tbs: 'qdr:w' })
    expect(newsBody.news.length).toBeLessThanOrEqual(5)
    expect(await balance(key)).toBe(98)
    await expectBooksBalanced(trawl, id)
  })

  test('LangChain.js’s Serper tool and Open WebUI: a JSON body; num sets the depth billed, page the page', async () => {
    const { key } = await account(100)
    const tool = await jsonBody(key, 'search', { q: 'coffee', gl: 'us', hl: 'en' })
    const body = shaped(SERPER_RESPONSES.search, await tool.json())
    expect(body.organic[0]!.snippet).toMatch(/Coffee is a beverage/)
    for (const key of ['peopleAlsoAsk', 'relatedSearches'] as const) expect(body[key]?.length, key).toBeGreaterThan(0)
    expect(body.relatedSearches![0]).toEqual({ query: expect.any(String) })
    expect(body.peopleAlsoAsk![0]).toMatchObject({ question: expect.any(String) })
    expect(Object.keys(body.organic[0]!)).not.toContain('displayed_link')
    const few = await jsonBody(key, 'search', { q: 'coffee', num: 3 })
    expect(few.headers.get('x-credits-used')).toBe('1')
    expect((await few.json()).organic).toHaveLength(3)
    const deep = await jsonBody(key, 'search', { q: 'coffee', num: 20 })
    expect(deep.headers.get('x-credits-used')).toBe('2')
    expect((await deep.json()).organic).toHaveLength(20)
    await jsonBody(key, 'search', { q: 'coffee', page: 3, location: 'Paris, France', autocorrect: false, tbs: 'qdr:d' })
    expect(Object.fromEntries(new URL(upstream.seen.at(-1)!.url, 'https://www.google.com').searchParams)).toMatchObject({
      start: '20',
      tbs: 'qdr:d',
      nfpr: '1',
    })
    expect(await balance(key)).toBe(95)
  })

  test('a JSON array is several queries, each billed; a failing one answers in its place', async () => {
    const { id, key } = await account(100)
    const res = await jsonBody(key, 'search', [{ q: 'coffee' }, { q: 'tea', num: 20 }])
    expect(res.status).toBe(200)
    expect(res.headers.get('x-credits-used')).toBe('3')
    const [coffee, tea] = await res.json()
    expect(coffee.searchParameters.q).toBe('coffee')
    expect(tea.organic).toHaveLength(20)
    expect(await balance(key)).toBe(97)
    await expectBooksBalanced(trawl, id)
  })
})

describe('the other endpoints', () => {
  const cases: [SerperEndpoint, Record<string, unknown>, string, number][] = [
    ['images', { q: 'green capital energy' }, 'images', 1],
    ['news', { q: 'ai regulation' }, 'news', 1],
    ['videos', { q: 'atalanta' }, 'videos', 1],
    ['places', { q: 'coffee', location: 'Athens, Greece' }, 'places', 1],
    ['maps', { q: 'coffee', ll: '@38.03,23.70,14z' }, 'places', 1],
    ['shopping', { q: 'espresso machine' }, 'shopping', 1],
    ['scholar', { q: 'coral bleaching' }, 'organic', 1],
    ['patents', { q: 'solar panel cleaning robot' }, 'organic', 1],
    ['autocomplete', { q: 'caf', gl: 'fr', hl: 'fr' }, 'suggestions', 0.5],
  ]
  for (const [endpoint, query, listKey, credits] of cases) {
    test(`/${endpoint}: Serper’s ${listKey}, billed like /v1/${endpoint}`, async () => {
      const { id, key } = await account(10)
      const res = await jsonBody(key, endpoint, query)
      const text = await res.text()
      expect(res.status, text.slice(0, 300)).toBe(200)
      expect(res.headers.get('x-credits-used')).toBe(String(credits))
      const body = shaped(SERPER_RESPONSES[endpoint], JSON.parse(text)) as Record<string, unknown>
      const list = body[listKey] as Record<string, unknown>[]
      expect(list.length).toBeGreaterThan(0)
      expect(body.searchParameters).toMatchObject({ q: query.q, type: endpoint })
      expect(body.credits).toBe(credits)
      for (const item of list) for (const name of Object.keys(item)) expect(name, `${endpoint} ${name}`).not.toMatch(/_/)
      if (endpoint === 'maps') expect(body.ll).toBe('@38.03,23.70,14z')
      if (endpoint === 'places') expect(list[0]).toHaveProperty('cid')
      if (endpoint === 'images') expect(list[0]).toMatchObject({ imageUrl: expect.stringMatching(/^https:/), position: 1 })
      if (endpoint === 'scholar') expect(list[0]).toHaveProperty('publicationInfo')
      if (endpoint === 'patents') expect(list[0]).toHaveProperty('publicationNumber')
      expect(await balance(key)).toBe(10 - credits)
      await expectBooksBalanced(trawl, id)
    })
  }
})

describe('keys and errors', () => {
  test('X-API-KEY or Bearer; a missing or wrong key is 403 in Serper’s shape; an empty balance is 400 "Not enough credits"', async () => {
    const { key } = await account(1)
    const bearer = await fetch(serper('search'), {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: '{"q":"coffee"}',
    })
    expect(bearer.status).toBe(200)
    const none = await fetch(serper('search'), { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"q":"coffee"}' })
    expect(none.status).toBe(403)
    expect(shaped(SerperError, await none.json())).toMatchObject({ statusCode: 403, code: 'unauthorized', message: expect.stringMatching(/X-API-KEY/) })
    const wrong = await jsonBody('trawl_live_00000000000000000000000000000000', 'search', { q: 'coffee' })
    expect(wrong.status).toBe(403)
    const broke = await jsonBody(key, 'search', { q: 'coffee' })
    expect(broke.status).toBe(400)
    expect(await broke.json()).toMatchObject({ statusCode: 400, code: 'insufficient_credits', message: expect.stringMatching(/^Not enough credits/) })
    const unknown = await jsonBody(key, 'lens', { q: 'x' })
    expect(unknown.status).toBe(404)
    expect(await unknown.json()).toMatchObject({ statusCode: 404, message: 'no route POST /compat/serper/lens' })
  })

  test('GET with the fields in the query string and the key as X-API-KEY or ?apiKey= (Serper’s code samples); null fields are fields not sent', async () => {
    const { key } = await account(10)
    const viaHeader = await fetch(`${serper('search')}?q=coffee&gl=us&num=10`, { headers: { 'X-API-KEY': key } })
    expect(viaHeader.status).toBe(200)
    const body = await viaHeader.json()
    expect(body.searchParameters).toMatchObject({ q: 'coffee', gl: 'us', type: 'search' })
    expect(body.organic.length).toBeGreaterThan(0)
    const viaQuery = await fetch(`${serper('search')}?q=coffee&apiKey=${key}`)
    expect(viaQuery.status).toBe(200)
    expect((await viaQuery.json()).searchParameters).not.toHaveProperty('apiKey')
    const nulls = await jsonBody(key, 'search', { q: 'coffee', gl: null, location: null, num: null, page: null })
    expect(nulls.status).toBe(200)
    expect((await nulls.json()).searchParameters).toMatchObject({ q: 'coffee', gl: 'us', page: 1 })
  })

  test('wrong input on every endpoint: 400 in Serper’s shape, nothing billed', async () => {
    const { id, key } = await account(10)
    const huge = 'x'.repeat(100_000)
    const bodies: unknown[] = [
      {},
      { q: 1 },
      { q: '' },
      { q: huge },
      { q: 'x', num: 0 },
      { q: 'x', num: 'ten' },
      { q: 'x', num: 101 },
      { q: 'x', page: 11 },
      { q: 'x', gl: 'zz' },
      { q: 'x', hl: 'not a language' },
      { q: 'x', location: huge },
      { q: 'x', autocorrect: 'yes' },
      { q: 'x', unknown: true },
      [],
      Array.from({ length: 101 }, () => ({ q: 'x' })),
      [{ q: 'x' }, { q: 2 }],
      '"just a string"',
      '{"q":',
      'null',
    ]
    for (const endpoint of ['search', 'images', 'news', 'places', 'maps', 'videos', 'shopping', 'scholar', 'patents', 'autocomplete']) {
      for (const body of bodies) {
        const res = await fetch(serper(endpoint), {
          method: 'POST',
          headers: { 'X-API-KEY': key, 'content-type': 'application/json' },
          body: typeof body === 'string' ? body : JSON.stringify(body),
        })
        const label = `${endpoint} ${JSON.stringify(body).slice(0, 60)}`
        // null is no body: the query string is then the request, which lacks q.
        expect(res.status, label).toBe(400)
        expect(res.headers.get('x-credits-used'), label).toBe('0')
        const answer = shaped(SerperError, await res.json())
        expect(answer.statusCode, label).toBe(400)
      }
      const query = await fetch(`${serper(endpoint)}?q=x&num=abc`, {
        method: 'POST',
        headers: { 'X-API-KEY': key, 'content-type': 'application/json' },
        body: '',
      })
      expect(query.status, endpoint).toBe(400)
    }
    const deepPage = await jsonBody(key, 'search', { q: 'x', num: 20, page: 2 })
    expect((await deepPage.json()).message).toMatch(/num > 10 \(depth\) requires page=1/)
    const named = await jsonBody(key, 'search', { q: 'x', gl: 'zz' })
    expect((await named.json()).message).toMatch(/^gl must be a two-letter ISO code/)
    const inArray = await jsonBody(key, 'search', [{ q: 'x' }, { q: 'x', num: 0 }])
    expect((await inArray.json()).message).toMatch(/^queries\[1\]: num must be between 1 and 100/)
    expect(await balance(key)).toBe(10)
    await expectBooksBalanced(trawl, id)
  })
})
