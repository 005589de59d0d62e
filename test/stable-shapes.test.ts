import { readFileSync } from 'node:fs'
import { describe, expect, test } from 'vitest'
import { engineSuite } from './support/engine-suite.ts'
import { fixture } from './support/fake-upstream.ts'
import { fetchOpenApi } from './support/openapi-doc.ts'
import { type SerpRoute, serpRouter } from './support/serp-router.ts'

/**
 * format=json sends every item field of the vertical's schema, on every item, null when the page did not have it, and the web
 * search envelope always carries its extra keys; the OpenAPI document says so. Compact and fields= are unchanged.
 */
const real = (path: string) => fixture(`serp/google/${path}`)
const constructed = (path: string) => readFileSync(new URL(`fixtures/google/${path}`, import.meta.url))

const web = (page: string): SerpRoute => ({ host: 'www.google.com', path: '/search', body: real(`web-desktop/${page}`) })
const VERTICAL_ROUTES: SerpRoute[] = [
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
]
const routes = (webPage: string) => serpRouter([...VERTICAL_ROUTES, web(webPage)])

const suite = engineSuite(routes('zlurad-coffee.html'))

type Item = Record<string, unknown>
const json = async (path: string, query: string) => {
  const res = await suite.get(path, query)
  expect(res.status).toBe(200)
  return res.json()
}

/** Every item has every listed key, and each of `nullOnSome` is null on at least one item (the page lacked it). */
function expectStable(items: Item[], keys: string[], nullOnSome: string[]) {
  expect(items.length).toBeGreaterThan(0)
  for (const item of items) for (const key of keys) expect(item, `${key} on ${JSON.stringify(item).slice(0, 120)}`).toHaveProperty(key)
  for (const key of nullOnSome)
    expect(
      items.some((item) => item[key] === null),
      `${key} null somewhere`,
    ).toBe(true)
}

const SEARCH_ITEM = ['position', 'title', 'link', 'domain', 'displayed_link', 'snippet', 'date', 'sitelinks']
const ENVELOPE = ['people_also_ask', 'related_searches', 'knowledge_graph', 'answer_box', 'top_stories', 'places']

describe('web search: stable items and envelope', () => {
  test('every result has every item field; the envelope has every extra key, null or [] when the page had none', async () => {
    const body = await json('/v1/search', 'q=coffee')
    expectStable(body.results, SEARCH_ITEM, ['date'])
    expect(body.results.some((r: Item) => Array.isArray(r.sitelinks) && r.sitelinks.length === 0)).toBe(true)
    expect(Object.keys(body)).toEqual(['request', 'results', ...ENVELOPE, 'meta'])
    expect(body).toMatchObject({ knowledge_graph: { title: 'Coffee' }, answer_box: null, top_stories: null })
    expect(body.people_also_ask[0]).toEqual({
      question: expect.any(String),
      snippet: expect.toBeOneOf([expect.any(String), null]),
      link: expect.toBeOneOf([expect.any(String), null]),
    })
  })

  test('a page without feature blocks: empty lists and nulls; ads=true adds ads, [] when there are none', async () => {
    suite.upstream.handle(routes('aql-evan-colborne.html'))
    const body = await json('/v1/search', 'q=evan+colborne&ads=true')
    expect(body).toMatchObject({ people_also_ask: [], related_searches: [], knowledge_graph: null, answer_box: null, top_stories: null, places: null, ads: [] })
    expect(Object.keys(body)).toEqual(['request', 'results', ...ENVELOPE, 'ads', 'meta'])
  })

  test('a page with no results keeps the whole envelope', async () => {
    suite.upstream.handle(routes('zlurad-no-results.html'))
    const body = await json('/v1/search', 'q=nothing')
    expect(body.results).toEqual([])
    expect(Object.keys(body)).toEqual(['request', 'results', ...ENVELOPE, 'meta'])
  })
})

describe('other verticals: every item field on every item, null when unknown', () => {
  const CASES: [string, string, string[], string[]][] = [
    [
      '/v1/images',
      'q=energy',
      ['position', 'title', 'image_url', 'image_width', 'image_height', 'thumbnail_url', 'source', 'domain', 'link'],
      ['image_width', 'image_height'],
    ],
    [
      '/v1/videos',
      'q=atalanta',
      ['position', 'title', 'link', 'domain', 'snippet', 'image_url', 'duration', 'source', 'channel', 'date'],
      ['image_url', 'duration', 'channel', 'date'],
    ],
    ['/v1/news', 'q=ai', ['position', 'title', 'link', 'domain', 'snippet', 'date', 'source', 'image_url'], ['image_url']],
    [
      '/v1/maps',
      'q=coffee',
      // biome-ignore format: the vertical's field list
      ['position', 'title', 'address', 'latitude', 'longitude', 'rating', 'rating_count', 'price_level', 'type', 'types', 'website', 'phone_number', 'opening_hours', 'thumbnail_url', 'place_id', 'cid', 'fid'],
      ['price_level', 'thumbnail_url'],
    ],
    [
      '/v1/places',
      'q=coffee',
      ['position', 'title', 'address', 'latitude', 'longitude', 'rating', 'rating_count', 'type', 'phone_number', 'website', 'place_id', 'cid'],
      ['website'],
    ],
    [
      '/v1/shopping',
      'q=shoes',
      // biome-ignore format: the vertical's field list
      ['position', 'title', 'source', 'link', 'price', 'price_value', 'currency', 'delivery', 'image_url', 'rating', 'rating_count', 'offers', 'product_id'],
      ['offers'],
    ],
    ['/v1/scholar', 'q=coral', ['position', 'title', 'link', 'domain', 'publication_info', 'snippet', 'year', 'cited_by', 'pdf_url', 'id'], ['pdf_url']],
  ]
  test.each(CASES)('%s', async (path, query, keys, nullOnSome) => {
    const body = await json(path, query)
    expectStable(body.results, keys, nullOnSome)
    // Exactly the schema's fields: nothing more.
    for (const item of body.results) expect(Object.keys(item)).toEqual(keys)
  })

  test('a body replayed from the cache is completed the same way', async () => {
    await json('/v1/images', 'q=replayed&max_age=600')
    const cached = await json('/v1/images', 'q=replayed&max_age=600')
    expect(cached.meta.cached).toBe(true)
    expect(cached.results[0]).toMatchObject({ image_width: null, image_height: null })
  })

  test('format=compact drops empty item fields but keeps every top-level key; fields= gives null for a named field the page lacks', async () => {
    const compact = await json('/v1/images', 'q=energy&format=compact')
    expect(Object.keys(compact.results[0])).toEqual(['position', 'title', 'image_url', 'link'])
    const projected = await json('/v1/images', 'q=energy&fields=results.title,results.image_width')
    expect(projected.results[0]).toEqual({ title: expect.any(String), image_width: null })
    const search = await json('/v1/search', 'q=coffee&format=compact')
    const full = await json('/v1/search', 'q=coffee')
    expect(Object.keys(search)).toEqual(Object.keys(full))
    expect(search.answer_box).toBeNull()
    expect(search.results.some((r: Item) => 'date' in r)).toBe(false)
    const named = await json('/v1/search', 'q=coffee&fields=results.title')
    expect(Object.keys(named)).toEqual(Object.keys(full))
    expect(named.people_also_ask).toEqual([])
  })
})

describe('the OpenAPI document marks these keys required', () => {
  interface Schema {
    type?: string | string[]
    anyOf?: Schema[]
    properties?: Record<string, Schema>
    required?: string[]
    items?: Schema
  }
  const isNullable = (s: Schema) => (Array.isArray(s.type) && s.type.includes('null')) || (s.anyOf?.some((x) => x.type === 'null') ?? false)

  async function response(path: string): Promise<Schema> {
    const doc = await fetchOpenApi(suite.trawl.base)
    return doc.paths[path].get.responses['200'].content['application/json'].schema
  }

  test('/v1/search: the envelope keys and every result field; nullable where they may be null; ads optional', async () => {
    const schema = await response('/v1/search')
    expect(schema.required).toEqual(['request', 'results', ...ENVELOPE, 'meta'])
    for (const key of ['knowledge_graph', 'answer_box', 'top_stories', 'places']) expect(isNullable(schema.properties![key]!), key).toBe(true)
    for (const key of ['people_also_ask', 'related_searches']) expect(schema.properties![key]!.type, key).toBe('array')
    const item = schema.properties!.results!.items!
    expect(item.required).toEqual(SEARCH_ITEM)
    for (const key of ['displayed_link', 'snippet', 'date']) expect(isNullable(item.properties![key]!), key).toBe(true)
    expect(isNullable(item.properties!.title!)).toBe(false)
  })

  test('every vertical lists every item field as required, nullable unless always known', async () => {
    const always: Record<string, string[]> = {
      images: ['position', 'title', 'image_url'],
      videos: ['position', 'title', 'link', 'domain'],
      news: ['position', 'title', 'link', 'domain'],
      maps: ['position', 'title', 'types'],
      places: ['position', 'title'],
      shopping: ['position', 'title'],
      scholar: ['position', 'title'],
      patents: ['position', 'title', 'link', 'publication_number'],
      lens: ['position', 'title', 'link', 'domain'],
      reviews: ['rating'],
      autocomplete: ['value'],
    }
    for (const [vertical, known] of Object.entries(always)) {
      const item = (await response(`/v1/${vertical}`)).properties!.results!.items!
      expect(item.required, vertical).toEqual(Object.keys(item.properties!))
      for (const [key, field] of Object.entries(item.properties!)) expect(isNullable(field), `${vertical} ${key}`).toBe(!known.includes(key))
    }
  })
})
