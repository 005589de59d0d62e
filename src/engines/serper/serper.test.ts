import { describe, expect, it } from 'vitest'
import { searchRequest, verticalRequest } from '../../../test/support/engine-requests.ts'
import type { ParsedSearchPage, SearchRequest, VerticalRequest } from '../engine.types.ts'
import { searchRoute } from '../provider.routes.ts'
import type { EngineFetch } from '../provider.types.ts'
import { UpstreamError } from '../upstream/upstream-error.ts'
import { detectSerperBlock, explainSerperFailure } from './serper.block.ts'
import { SERPER_ANSWERS } from './serper.fixture.ts'
import {
  parseSerperAutocomplete,
  parseSerperImages,
  parseSerperNews,
  parseSerperPlaces,
  parseSerperScholar,
  parseSerperSearch,
  parseSerperShopping,
  parseSerperVideos,
} from './serper.parse.ts'
import { serperProvider } from './serper.provider.ts'
import { buildSerperRequest, verticalParams, webParams } from './serper.request.ts'

const KEY = 'serper-test-key-0123456789'
const answer = (name: string) => SERPER_ANSWERS[name] ?? {}
const query = (url: string) => Object.fromEntries(new URL(url).searchParams)
const web = (r: Partial<SearchRequest> = {}) => buildSerperRequest('search', webParams(searchRequest({ engine: 'serper', q: 'apple inc', ...r })), KEY)

describe('buildSerperRequest', () => {
  it('GETs google.serper.dev/<endpoint> with q, gl, hl and num, the key only in X-API-KEY', () => {
    const req = web()
    expect(req.url).toBe('https://google.serper.dev/search?q=apple%20inc&gl=us&hl=en&num=10')
    expect(req.headers).toMatchObject({ Accept: 'application/json', 'X-API-KEY': KEY })
    expect(req.url).not.toContain(KEY)
    expect(req).toMatchObject({ skip: 0, take: 10 })
  })

  it('pages by page in units of num; an offset inside a page reads from page 1 with a num reaching it', () => {
    expect(query(web({ page: 3 }).url)).toMatchObject({ num: '10', page: '3' })
    expect(query(web({ num: 50, page: 2 }).url)).toMatchObject({ num: '50', page: '2' })
    const offset = web({ offset: 14 })
    expect(query(offset.url)).toMatchObject({ num: '24' })
    expect(query(offset.url).page).toBeUndefined()
    expect(offset).toMatchObject({ skip: 14, take: 10 })
    // Past what one request of 100 reaches: the page holding the start.
    expect(query(web({ offset: 95 }).url)).toMatchObject({ num: '10', page: '10' })
  })

  it('sends time as tbs=qdr:…, a raw tbs as is, location, autocorrect=false, hl in lower case', () => {
    expect(query(web({ time: 'hour' }).url).tbs).toBe('qdr:h')
    expect(query(web({ time: 'year' }).url).tbs).toBe('qdr:y')
    expect(query(web({ tbs: 'cdr:1,cd_min:1/1/2024', time: 'day' }).url).tbs).toBe('cdr:1,cd_min:1/1/2024')
    expect(query(web({ location: 'Austin, Texas, United States', autocorrect: false, language: 'pt-BR', country: 'br' }).url)).toMatchObject({
      location: 'Austin, Texas, United States',
      autocorrect: 'false',
      hl: 'pt-br',
      gl: 'br',
    })
  })

  it('verticals without depth send no num, and page only past the first', () => {
    const places = (r: Partial<VerticalRequest>) => buildSerperRequest('places', verticalParams(verticalRequest('places', { q: 'coffee', ...r }), false), KEY)
    expect(places({ num: undefined }).url).toBe('https://google.serper.dev/places?q=coffee')
    expect(query(places({ page: 2, country: 'us', location: 'Austin' }).url)).toEqual({ q: 'coffee', gl: 'us', location: 'Austin', page: '2' })
    expect(places({}).take).toBeUndefined()
  })
})

describe('parsing Serper answers', () => {
  it('reads organic results with sitelinks and dates, the knowledge graph, answer box, people also ask, related searches and top stories', () => {
    const page = parseSerperSearch(answer('search'))
    expect(page.parse_quality).toBe('ok')
    expect(page.results).toEqual([
      {
        position: 1,
        title: 'Apple',
        link: 'https://www.apple.com/',
        domain: 'apple.com',
        snippet: 'Discover the innovative world of Apple and shop everything iPhone, iPad, Apple Watch, Mac.',
        sitelinks: [
          { title: 'Support', link: 'https://support.apple.com/' },
          { title: 'iPhone', link: 'https://www.apple.com/iphone/' },
        ],
      },
      {
        position: 2,
        title: 'Apple Inc. - Wikipedia',
        link: 'https://en.wikipedia.org/wiki/Apple_Inc.',
        domain: 'en.wikipedia.org',
        snippet: 'Apple Inc. is an American multinational corporation and technology company.',
        date: 'Jan 15, 2026',
      },
    ])
    expect(page.knowledge_graph).toEqual({
      title: 'Apple',
      type: 'Technology company',
      description: 'Apple Inc. is an American multinational technology company.',
      source: { name: 'Wikipedia', link: 'https://en.wikipedia.org/wiki/Apple_Inc.' },
      website: 'http://www.apple.com/',
      image_url: 'https://encrypted-tbn0.gstatic.com/images?q=tbn:apple',
      attributes: { Headquarters: 'Cupertino, CA', CEO: 'Tim Cook' },
    })
    expect(page.answer_box).toEqual({ type: 'answer', title: 'Apple Inc. / Founded', answer: 'April 1, 1976' })
    expect(page.people_also_ask).toEqual([
      { question: 'What does Apple Inc do?', snippet: 'Apple designs smartphones and computers.', link: 'https://www.apple.com/about/' },
    ])
    expect(page.related_searches).toEqual([{ query: 'Apple stock' }, { query: 'Apple careers' }])
    expect(page.top_stories).toEqual([
      {
        title: 'Apple unveils a new Mac',
        link: 'https://news.example/mac',
        source: 'Example News',
        date: '2 hours ago',
        image_url: 'https://news.example/mac.jpg',
      },
    ])
  })

  it('a featured snippet without an answer is featured_snippet', () => {
    const page = parseSerperSearch({ organic: [], answerBox: { title: 'About Go', snippet: 'Go is typed.', link: 'https://go.dev/about' } })
    expect(page.answer_box).toEqual({ type: 'featured_snippet', title: 'About Go', snippet: 'Go is typed.', link: 'https://go.dev/about', domain: 'go.dev' })
    expect(page.parse_quality).toBe('empty')
  })

  it('reads images, news, videos, places, shopping (price as a number), scholar and autocomplete', () => {
    expect(parseSerperImages(answer('images')).results[0]).toEqual({
      position: 1,
      title: 'Golden Retriever puppy',
      image_url: 'https://dogs.example/golden.jpg',
      image_width: 1200,
      image_height: 800,
      thumbnail_url: 'https://encrypted-tbn0.gstatic.com/images?q=tbn:golden',
      source: 'Dogs Example',
      link: 'https://dogs.example/golden-retriever',
      domain: 'dogs.example',
    })
    expect(parseSerperNews(answer('news')).results[0]).toEqual({
      position: 1,
      title: 'Solar power hits a record',
      link: 'https://news.example/solar',
      domain: 'news.example',
      snippet: 'Output rose 30% this year.',
      date: '3 hours ago',
      source: 'Example News',
      image_url: 'https://news.example/solar.jpg',
    })
    expect(parseSerperVideos(answer('videos')).results[0]).toMatchObject({
      duration: '1:40:00',
      channel: 'Code Channel',
      source: 'YouTube',
      date: 'Mar 3, 2025',
    })
    expect(parseSerperPlaces(answer('places')).results).toEqual([
      {
        position: 1,
        title: 'Houndstooth Coffee',
        address: '401 Congress Ave, Austin, TX 78701',
        latitude: 30.2665,
        longitude: -97.7431,
        rating: 4.6,
        rating_count: 1234,
        type: 'Coffee shop',
        phone_number: '(512) 555-0100',
        website: 'https://houndstoothcoffee.com/',
        cid: '1234567890123456789',
      },
      { position: 2, title: 'Epoch Coffee', address: '221 W N Loop Blvd, Austin, TX', rating: 4.5, rating_count: 2101, type: 'Cafe' },
    ])
    expect(parseSerperShopping(answer('shopping'), 'us').results[0]).toEqual({
      position: 1,
      title: 'Breville Barista Express',
      source: 'Example Store',
      link: 'https://store.example/breville',
      price: '$599.95',
      price_value: 599.95,
      currency: 'USD',
      delivery: 'Free delivery',
      image_url: 'https://store.example/breville.jpg',
      rating: 4.7,
      rating_count: 15000,
      offers: '10+',
      product_id: '987654321',
    })
    expect(parseSerperScholar(answer('scholar')).results[0]).toMatchObject({
      title: 'Attention is all you need',
      domain: 'proceedings.example',
      year: 2017,
      cited_by: 150000,
      pdf_url: 'https://proceedings.example/attention.pdf',
      id: 'abcDEF123',
    })
    expect(parseSerperAutocomplete(answer('autocomplete')).results).toEqual([{ value: 'apple' }, { value: 'apple stock' }])
  })
})

describe('refusals', () => {
  const failed = (status: number, outcome: 'error' | 'blocked' = 'error') =>
    new UpstreamError('upstream_error', `serper results could not be fetched: HTTP ${status}`, [
      { engine: 'serper', host: 'google.serper.dev', pool: null, status, outcome, ms: 1 },
    ])

  it('401/403 is a refused key (an error naming the variable); 429 a block; "Not enough credits" a block', () => {
    for (const status of [401, 403]) {
      const err = explainSerperFailure(failed(status)) as UpstreamError
      expect(err.code).toBe('upstream_error')
      expect(err.message).toBe('Serper refused the API key; check TRAWL_SERPER_API_KEY')
    }
    expect((explainSerperFailure(failed(429, 'blocked')) as UpstreamError).code).toBe('upstream_blocked')
    expect(detectSerperBlock({ status: 400, url: '', body: '{"message":"Not enough credits","statusCode":400}' })?.reason).toMatch(/out of credits/)
    expect(detectSerperBlock({ status: 400, url: '', body: '{"message":"Query not allowed"}' })).toBeNull()
    expect(detectSerperBlock({ status: 200, url: '', body: JSON.stringify(answer('search')) })).toBeNull()
  })
})

describe('serperProvider', () => {
  const provider = serperProvider(KEY)
  const answering =
    (seen: string[] = []): EngineFetch =>
    async (url) => {
      seen.push(url)
      return { status: 200, url, body: JSON.stringify(answer(new URL(url).pathname.slice(1))) }
    }

  it('answers web search and every vertical from its endpoint', async () => {
    const seen: string[] = []
    const page = (await searchRoute(provider.search, searchRequest({ engine: 'serper', q: 'apple inc' }), answering(seen))) as ParsedSearchPage
    expect(page.results.map((r) => r.title)).toEqual(['Apple', 'Apple Inc. - Wikipedia'])
    for (const endpoint of ['news', 'images', 'videos', 'places', 'shopping', 'scholar', 'autocomplete'] as const) {
      const vertical = provider.verticals[endpoint]
      const out = (await vertical?.run(verticalRequest(endpoint, { q: 'x', country: 'us' }), answering(seen))) as { results: unknown[] }
      expect(out.results.length, endpoint).toBeGreaterThan(0)
    }
    expect(seen.map((u) => new URL(u).pathname)).toEqual(['/search', '/news', '/images', '/videos', '/places', '/shopping', '/scholar', '/autocomplete'])
  })

  it('numbers places, shopping and scholar from the start of the whole list', async () => {
    const places = (await provider.verticals.places?.run(verticalRequest('places', { q: 'coffee', page: 3, num: undefined }), answering())) as {
      results: { position: number }[]
    }
    expect(places.results.map((r) => r.position)).toEqual([5, 6])
    const scholar = (await provider.verticals.scholar?.run(verticalRequest('scholar', { q: 'x', page: 2, num: 10 }), answering())) as {
      results: { position: number }[]
    }
    expect(scholar.results[0]?.position).toBe(11)
  })

  it('a key refused upstream is an error whose message names the variable', async () => {
    const refused: EngineFetch = async () => {
      throw new UpstreamError('upstream_error', 'serper results could not be fetched: HTTP 403', [
        { engine: 'serper', host: 'google.serper.dev', pool: null, status: 403, outcome: 'error', ms: 1 },
      ])
    }
    const err = (await searchRoute(provider.search, searchRequest(), refused).catch((e: unknown) => e)) as UpstreamError
    expect(err.message).toBe('Serper refused the API key; check TRAWL_SERPER_API_KEY')
  })

  it("Serper's own error body on a 200 is an error, not an empty page", async () => {
    const message: EngineFetch = async (url) => ({ status: 200, url, body: '{"message":"Query is required","statusCode":400}' })
    const err = (await searchRoute(provider.search, searchRequest(), message).catch((e: unknown) => e)) as Error
    expect(err.message).toBe('Serper answered: Query is required')
  })
})
