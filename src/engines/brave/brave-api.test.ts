import { describe, expect, it } from 'vitest'
import { searchRequest, verticalRequest } from '../../../test/support/engine-requests.ts'
import { readFixture } from '../../../test/support/fixtures.ts'
import type { SearchRequest, VerticalRequest } from '../engine.types.ts'
import { searchRoute } from '../provider.routes.ts'
import type { EngineFetch } from '../provider.types.ts'
import { detectBraveApiBlock } from './brave.block.ts'
import { braveProvider } from './brave.provider.ts'
import { parseBraveApiImages, parseBraveApiNews, parseBraveApiVideos, parseBraveApiWeb } from './brave-api.parse.ts'
import { buildBraveApiRequest, searchLang, webParams } from './brave-api.request.ts'

// Constructed to the API's documented response shape (fixtures/serp/SOURCES.md): no real capture.
const json = (path: string) => readFixture(`serp/brave/${path}`).toString('utf8')
const WEB = json('web/api-javascript-tutorial.constructed.json')
const NEWS = json('news/api-solar-power.constructed.json')
const IMAGES = json('images/api-golden-retriever.constructed.json')
const VIDEOS = json('videos/api-javascript-tutorial.constructed.json')

const KEY = 'test-key'
const web = searchRequest({ engine: 'brave', q: 'javascript tutorial' })
const apiParams = (r: Partial<SearchRequest>) => {
  const req = buildBraveApiRequest('web', webParams({ ...web, ...r }), KEY)
  return req ? Object.fromEntries(new URL(req.url).searchParams) : undefined
}

describe('buildBraveApiRequest', () => {
  it('asks /res/v1/web/search with count, country, search_lang and safesearch, and the key header', () => {
    const req = buildBraveApiRequest('web', webParams(web), KEY)
    expect(req?.url).toBe('https://api.search.brave.com/res/v1/web/search?q=javascript%20tutorial&count=10&country=US&search_lang=en&safesearch=off')
    expect(req?.headers).toEqual({ Accept: 'application/json', 'X-Subscription-Token': KEY })
    expect(req?.skip).toBe(0)
  })

  it('pages by page index in units of count (at most 20), up to offset 9', () => {
    expect(apiParams({ page: 3 })).toMatchObject({ count: '10', offset: '2' })
    expect(apiParams({ num: 20, page: 2 })).toMatchObject({ count: '20', offset: '1' })
    expect(apiParams({ num: 50, page: 2 })).toMatchObject({ count: '20', offset: '2' })
    expect(buildBraveApiRequest('web', webParams({ ...web, num: 50, page: 2 }), KEY)?.skip).toBe(10)
    expect(apiParams({ page: 10 })).toMatchObject({ offset: '9' })
    expect(apiParams({ num: 50, page: 5 })).toBeUndefined()
  })

  it('maps time to freshness, safe to strict, autocorrect=false to spellcheck=0', () => {
    expect(apiParams({ time: 'week', safe: 'active', autocorrect: false })).toMatchObject({ freshness: 'pw', safesearch: 'strict', spellcheck: '0' })
    expect(apiParams({ time: 'hour' })?.freshness).toBe('pd')
  })

  it('sends only countries and languages the API knows (else ALL / no search_lang)', () => {
    expect(apiParams({ country: 'gb', language: 'en' })).toMatchObject({ country: 'GB', search_lang: 'en-gb' })
    expect(apiParams({ country: 'br', language: 'pt-BR' })).toMatchObject({ country: 'BR', search_lang: 'pt-br' })
    expect(apiParams({ country: 'ke', language: 'sw' })).toMatchObject({ country: 'ALL' })
    expect(apiParams({ country: 'ke', language: 'sw' })?.search_lang).toBeUndefined()
    expect(searchLang('ja', 'jp')).toBe('jp')
    expect(searchLang('zh-TW', 'tw')).toBe('zh-hant')
    expect(searchLang('zh', 'cn')).toBe('zh-hans')
  })

  it('images has no offset: it asks for everything up to the page and keeps the slice', () => {
    const img = (r: Partial<VerticalRequest>) => buildBraveApiRequest('images', { q: 'dog', num: 10, page: 1, ...r }, KEY)
    expect(new URL(img({ page: 3 })?.url ?? '').searchParams.get('count')).toBe('30')
    expect(img({ page: 3 })).toMatchObject({ skip: 20, take: 10 })
    expect(new URL(img({ time: 'day' })?.url ?? '').searchParams.has('freshness')).toBe(false)
    expect(img({ num: 100, page: 3 })).toBeUndefined()
  })
})

describe('parseBraveApiWeb (constructed /web/search response)', () => {
  const p = parseBraveApiWeb(WEB)

  it('reads web.results with displayed link, date and deep-result sitelinks', () => {
    expect(p.parse_quality).toBe('ok')
    expect(p.results).toHaveLength(10)
    expect(p.results[0]).toEqual({
      position: 1,
      title: 'JavaScript Tutorial',
      link: 'https://www.w3schools.com/js/',
      domain: 'w3schools.com',
      displayed_link: 'w3schools.com › js',
      snippet: 'JavaScript is easy to learn. This tutorial covers everything from basic JavaScript up to the latest 2026 version.',
      sitelinks: [
        { title: 'Learn CSS', link: 'https://www.w3schools.com/css/default.asp' },
        { title: 'Learn HTML', link: 'https://www.w3schools.com/html/default.asp' },
        { title: 'Reference', link: 'https://www.w3schools.com/tags/default.asp' },
      ],
    })
    expect(p.results[4]).toMatchObject({
      link: 'https://www.geeksforgeeks.org/javascript/javascript-tutorial/',
      date: '3 weeks ago',
      displayed_link: 'geeksforgeeks.org › javascript › javascript-tutorial',
    })
    expect(p.results[8]?.snippet).toMatch(/^In this project, we're going to practice/)
    for (const r of p.results) expect(new URL(r.link).hostname).not.toMatch(/brave\.com$/)
    expect(p.people_also_ask?.map((q) => q.question)).toEqual(['What is JavaScript?', 'What does JavaScript do?'])
  })

  it('a response without web results is empty; a body that is not JSON is partial', () => {
    expect(parseBraveApiWeb('{"type":"search","query":{"original":"zzqx"}}')).toEqual({ results: [], parse_quality: 'empty', saysNoResults: true })
    expect(parseBraveApiWeb('<html>oops</html>')).toEqual({ results: [], parse_quality: 'partial' })
  })
})

describe('API verticals (constructed responses)', () => {
  it('news: title, link, source, date and image; an item without url is dropped', () => {
    const p = parseBraveApiNews(NEWS)
    expect(p.parse_quality).toBe('partial')
    expect(p.results).toHaveLength(3)
    expect(p.results[0]).toEqual({
      position: 1,
      title: 'Record solar output helps grid through heatwave',
      link: 'https://www.reuters.com/business/energy/record-solar-output-helps-grid-through-heatwave-2026-06-18/',
      domain: 'reuters.com',
      snippet: 'Utility-scale solar plants set a new generation record on Tuesday as temperatures climbed across the region.',
      date: '2 hours ago',
      source: 'reuters.com',
      image_url: 'https://www.reuters.com/resizer/solar-farm.jpg',
    })
    expect(p.results[1]?.title).toBe("Why rooftop panels still pay off & what's changed in 2026")
    expect(p.results[2]).toMatchObject({ domain: 'apnews.com', date: '2026-06-15T14:30:00' })
    expect(p.results[2]?.snippet).toBeUndefined()
  })

  it('images: the full image, its size, the thumbnail and the page it is on', () => {
    const p = parseBraveApiImages(IMAGES)
    expect(p.parse_quality).toBe('ok')
    expect(p.results[0]).toEqual({
      position: 1,
      title: 'Golden Retriever Dog Breed Information',
      image_url: 'https://www.akc.org/wp-content/uploads/2017/11/Golden-Retriever-On-White-01.jpg',
      image_width: 1500,
      image_height: 1000,
      thumbnail_url: 'https://imgs.search.brave.com/thumb/akc-golden.jpg',
      source: 'akc.org',
      link: 'https://www.akc.org/dog-breeds/golden-retriever/',
      domain: 'akc.org',
    })
    expect(p.results[1]?.image_width).toBeUndefined()
    expect(p.results[2]).toMatchObject({ title: 'purina.com', image_width: 1200, image_height: 800 })
  })

  it('videos: duration, creator as channel, publisher as source', () => {
    const p = parseBraveApiVideos(VIDEOS)
    expect(p.results).toHaveLength(4)
    expect(p.results[0]).toMatchObject({
      position: 1,
      title: 'JavaScript tutorial for beginners 🌐 - YouTube',
      link: 'https://www.youtube.com/watch?v=Ihy0QziLDf0',
      domain: 'youtube.com',
      duration: '12:03',
      channel: 'Bro Code',
      source: 'YouTube',
      date: 'October 14, 2023',
      image_url: 'https://i.ytimg.com/vi/Ihy0QziLDf0/maxresdefault.jpg',
    })
    expect(p.results[1]?.duration).toBeUndefined()
  })
})

describe('braveProvider with a key: the Search API', () => {
  const provider = braveProvider(KEY)
  const fetchOf = (body: string, calls: Parameters<EngineFetch>[]): EngineFetch => {
    return async (...args) => {
      calls.push(args)
      return { status: 200, url: args[0], body }
    }
  }

  it('offers news, images and videos beside web search', () => {
    expect(provider.capabilities).toEqual({
      verticals: ['search', 'news', 'images', 'videos'],
      params: ['page', 'time', 'safe', 'autocorrect'],
      siteOperator: true,
    })
    expect(Object.keys(provider.verticals).sort()).toEqual(['images', 'news', 'videos'])
    expect(provider.detectBlock).toBe(detectBraveApiBlock)
  })

  it('web search calls the API with the key and the API block detector', async () => {
    const calls: Parameters<EngineFetch>[] = []
    const page = await searchRoute(provider.search, { ...web, num: 20, offset: 5 }, fetchOf(WEB, calls))
    expect(calls[0]?.[0]).toBe('https://api.search.brave.com/res/v1/web/search?q=javascript%20tutorial&count=20&country=US&search_lang=en&safesearch=off')
    expect(calls[0]?.[1]['X-Subscription-Token']).toBe(KEY)
    expect(calls[0]?.[2]).toBe(detectBraveApiBlock)
    // offset 5 inside the first batch of 20: its first 5 results are dropped.
    expect(page.results[0]).toMatchObject({ position: 1, link: 'https://www.tutorialspoint.com/javascript/index.htm' })
    expect(page.results).toHaveLength(5)
  })

  it('a page past the API offset limit answers empty without a request', async () => {
    const calls: Parameters<EngineFetch>[] = []
    expect(await searchRoute(provider.search, { ...web, num: 100, page: 3 }, fetchOf(WEB, calls))).toEqual({ results: [], parse_quality: 'empty' })
    expect(calls).toHaveLength(0)
  })

  it('news, images and videos call their endpoints', async () => {
    const calls: Parameters<EngineFetch>[] = []
    const news = await provider.verticals.news?.run(verticalRequest('news', { q: 'solar power', time: 'day' }), fetchOf(NEWS, calls))
    expect(calls[0]?.[0]).toBe('https://api.search.brave.com/res/v1/news/search?q=solar%20power&count=10&country=US&search_lang=en&freshness=pd&safesearch=off')
    expect(news?.results).toHaveLength(3)
    const images = await provider.verticals.images?.run(verticalRequest('images', { q: 'golden retriever' }), fetchOf(IMAGES, calls))
    expect(calls[1]?.[0]).toMatch(/^https:\/\/api\.search\.brave\.com\/res\/v1\/images\/search\?q=golden%20retriever&count=10&/)
    expect(images?.results).toHaveLength(3)
    const videos = await provider.verticals.videos?.run(verticalRequest('videos', { q: 'javascript tutorial' }), fetchOf(VIDEOS, calls))
    expect(calls[2]?.[0]).toMatch(/^https:\/\/api\.search\.brave\.com\/res\/v1\/videos\/search\?/)
    expect(videos?.results).toHaveLength(4)
  })
})
