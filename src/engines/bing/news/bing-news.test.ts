import { describe, expect, it } from 'vitest'
import { verticalRequest } from '../../../../test/support/engine-requests.ts'
import { readFixture } from '../../../../test/support/fixtures.ts'
import type { VerticalRequest } from '../../engine.types.ts'
import type { EngineFetch } from '../../provider.types.ts'
import { detectBingNewsBlock } from './bing-news.block.ts'
import { parseBingNews } from './bing-news.parse.ts'
import { buildBingNewsRequest } from './bing-news.request.ts'
import { bingNews } from './bing-news.ts'

// Constructed to the feed's format (fixtures/serp/SOURCES.md): there is no real capture.
const FEED = readFixture('serp/bing/news/news-rss-heat-pump.constructed.xml').toString('utf8')
const FEED_URL = 'https://www.bing.com/news/search?q=heat%20pump&format=rss'
const req = (r: Partial<VerticalRequest> = {}) => verticalRequest('news', { q: 'heat pump', ...r })

describe('parseBingNews', () => {
  const page = parseBingNews(FEED)

  it('reads every item, unwrapping the apiclick redirect', () => {
    expect(page.parse_quality).toBe('ok')
    expect(page.results).toHaveLength(5)
    expect(page.results[0]).toEqual({
      position: 1,
      title: 'Heat pump sales overtake gas boilers for the first time',
      link: 'https://www.example-energy-news.com/2026/03/heat-pump-sales-overtake-boilers',
      domain: 'example-energy-news.com',
      snippet: 'Installers fitted more heat pumps than gas boilers last quarter, according to figures published on Tuesday by the industry association.',
      date: 'Tue, 17 Mar 2026 09:30:00 GMT',
      source: 'Example Energy News',
      image_url: 'https://www.bing.com/th?id=OVFT.a1B2c3D4e5F6g7H8&pid=News',
    })
    for (const r of page.results) expect(r.link).not.toMatch(/bing\.com/)
  })

  it('decodes entities in titles and descriptions; an item without an image has none', () => {
    expect(page.results[1]).toMatchObject({
      title: "Are heat pumps worth it in cold climates? Here's what the data says",
      link: 'https://news.example.org/science/heat-pumps-cold-climates?ref=rss',
      snippet: 'Field trials in Norway and Maine show modern units keep working at −25°C, though efficiency falls as temperatures drop.',
    })
    expect(page.results[1]?.image_url).toBeUndefined()
    expect(page.results[2]?.title).toBe('City offers $2,000 rebates for heat pump installs & insulation')
    expect(page.results[4]?.domain).toBe('opinion.example.co.uk')
  })

  it('an item without a link makes the feed partial; a feed without items is empty; HTML is empty', () => {
    const rss = (items: string) => `<?xml version="1.0" encoding="utf-8" ?><rss version="2.0"><channel><title>x</title>${items}</channel></rss>`
    expect(parseBingNews(rss('<item><title>No link</title></item><item><title>Direct</title><link>https://example.com/a</link></item>'))).toEqual({
      results: [{ position: 1, title: 'Direct', link: 'https://example.com/a', domain: 'example.com' }],
      parse_quality: 'partial',
    })
    expect(parseBingNews(rss(''))).toEqual({ results: [], parse_quality: 'empty' })
    expect(parseBingNews('<html><body>One last step</body></html>')).toEqual({ results: [], parse_quality: 'empty' })
  })
})

describe('detectBingNewsBlock', () => {
  it('accepts the feed, even a headline naming a captcha', () => {
    expect(detectBingNewsBlock({ status: 200, url: FEED_URL, body: FEED })).toBeNull()
    const tricky = FEED.replace('Opinion: the quiet revolution', 'b_captcha One last step /challenge/verify?')
    expect(detectBingNewsBlock({ status: 200, url: FEED_URL, body: tricky })).toBeNull()
  })

  it('refuses the challenge page, any other page, an empty body and rate limiting', () => {
    const challenge = readFixture('serp/bing/web/wsmcp-javascript-tutorial-browser-2026.html').toString('utf8')
    expect(detectBingNewsBlock({ status: 200, url: FEED_URL, body: challenge })?.reason).toBe('Bing challenge page ("One last step")')
    expect(detectBingNewsBlock({ status: 200, url: FEED_URL, body: '<html><body>News</body></html>' })?.reason).toBe(
      'Bing News answered with a page instead of the RSS feed',
    )
    expect(detectBingNewsBlock({ status: 200, url: FEED_URL, body: '' })?.reason).toBe('Bing News answered with an empty body')
    expect(detectBingNewsBlock({ status: 429, url: FEED_URL, body: FEED })?.reason).toBe('HTTP 429 from Bing')
  })
})

describe('buildBingNewsRequest', () => {
  it('asks the RSS rendering of news/search', () => {
    const { url, headers } = buildBingNewsRequest(req())
    expect(url).toBe('https://www.bing.com/news/search?q=heat%20pump&format=rss&setlang=en-US&cc=US&mkt=en-US&adlt=off')
    expect(headers.Accept).toMatch(/^application\/rss\+xml/)
  })

  it('pages with first, maps time to qft=interval, and sends no filter for a year', () => {
    const p = (r: Partial<VerticalRequest>) => new URL(buildBingNewsRequest(req(r)).url).searchParams
    expect(p({ page: 2 }).get('first')).toBe('11')
    expect(p({ time: 'hour' }).get('qft')).toBe('interval="4"')
    expect(p({ time: 'day' }).get('qft')).toBe('interval="7"')
    expect(p({ time: 'week' }).get('qft')).toBe('interval="8"')
    expect(p({ time: 'month' }).get('qft')).toBe('interval="9"')
    expect(p({ time: 'year' }).get('qft')).toBeNull()
  })
})

describe('bingNews.run', () => {
  it('fetches the feed with the news block detector and cuts to num', async () => {
    const fetch: EngineFetch = async (url, _headers, detectBlock) => {
      expect(detectBlock?.({ status: 200, url, body: '<html></html>' })).not.toBeNull()
      return { status: 200, url, body: FEED }
    }
    const answer = await bingNews.run(req({ num: 3 }), fetch)
    expect(answer.results.map((r) => r.position)).toEqual([1, 2, 3])
  })
})
