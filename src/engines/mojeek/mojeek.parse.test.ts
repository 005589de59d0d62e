import { describe, expect, it } from 'vitest'
import { searchRequest } from '../../../test/support/engine-requests.ts'
import { listFixtures, readFixture } from '../../../test/support/fixtures.ts'
import { searchRoute } from '../provider.routes.ts'
import type { EngineFetch } from '../provider.types.ts'
import { detectMojeekBlock } from './mojeek.block.ts'
import { parseMojeekSearch } from './mojeek.parse.ts'
import { mojeekProvider } from './mojeek.provider.ts'

const NAME = 'wsmcp-javascript-tutorial-2026'
const PAGE = readFixture(`serp/mojeek/web/${NAME}.html`).toString('utf8')
const SEARCH_URL = 'https://www.mojeek.com/search?q=javascript%20tutorial'

describe('parseMojeekSearch: the capture', () => {
  const page = parseMojeekSearch(PAGE)

  it('is the only capture', () => {
    expect(listFixtures('serp/mojeek', true)).toEqual([`web/${NAME}.html`])
  })

  it('reads the ten results and the total', () => {
    expect(page.parse_quality).toBe('ok')
    expect(page.results).toHaveLength(10)
    expect(page.total_results).toBe(5_280_016)
    expect(page.results.map((r) => r.position)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10])
  })

  it('reads title, link, shown URL and snippet', () => {
    expect(page.results[0]).toEqual({
      position: 1,
      title: 'The Modern JavaScript Tutorial',
      link: 'https://javascript.info/',
      domain: 'javascript.info',
      displayed_link: 'https://javascript.info/',
      snippet: 'The Modern JavaScript Tutorial ... Main course contains 2 parts which cover JavaScript as a programming language and working with a browser.',
    })
    // A result Mojeek prints without a snippet, and one whose shown URL has no scheme.
    expect(page.results[1]).toEqual({
      position: 2,
      title: 'w3schools.com/js',
      link: 'https://www.w3schools.com/js/',
      domain: 'w3schools.com',
      displayed_link: 'https://www.w3schools.com › js',
    })
    expect(page.results[3]).toMatchObject({ link: 'http://javascriptkit.com/javatutors/', displayed_link: 'javascriptkit.com › javatutors' })
    expect(page.results[9]).toMatchObject({
      title: 'Javascript/DHTML Tutorials',
      link: 'https://smartwebby.com/DHTML/',
      snippet: 'Web Design Tutorials > Dreamweaver | Fireworks | Flash | Javascript & DHTML | PHP & MySQL | SEO & Promotion',
    })
  })

  it('every result has title, absolute link and domain, none on mojeek.com', () => {
    for (const r of page.results) {
      expect(r.title).toBeTruthy()
      expect(r.link).toMatch(/^https?:\/\//)
      expect(r.domain).toBeTruthy()
      expect(r.domain).not.toMatch(/mojeek\.com$/)
      expect(r.domain.startsWith('www.')).toBe(false)
    }
  })

  it('a result without a link makes the page partial; a page without results is empty', () => {
    const html =
      '<ul class="results-standard"><li><h2><a class="title">No link</a></h2></li><li><a class="ob" href="https://example.com/x"></a><h2><a class="title" href="https://example.com/x">Kept</a></h2></li></ul>'
    expect(parseMojeekSearch(html)).toEqual({
      results: [{ position: 1, title: 'Kept', link: 'https://example.com/x', domain: 'example.com' }],
      parse_quality: 'partial',
    })
    expect(parseMojeekSearch('<div class="serp-results"><div class="results"><ul class="results-standard"></ul></div></div>').parse_quality).toBe('empty')
  })
})

describe('detectMojeekBlock', () => {
  const blocked =
    '<html><head><title>403 Forbidden</title></head><body><h1>Forbidden</h1><p>Sorry, your network appears to be sending automated queries to Mojeek, so we have blocked access.</p></body></html>'

  it('recognises the automated-queries page, 403 and 429', () => {
    expect(detectMojeekBlock({ status: 403, url: SEARCH_URL, body: blocked })?.reason).toBe('Mojeek blocked automated queries')
    expect(detectMojeekBlock({ status: 200, url: SEARCH_URL, body: blocked })?.reason).toBe('Mojeek blocked automated queries')
    expect(detectMojeekBlock({ status: 403, url: SEARCH_URL, body: '' })?.reason).toBe('HTTP 403 from Mojeek')
    const refused = '<html><head><title>403 - Forbidden</title></head><body><p>Sorry, access denied because of wrong request parameters.</p></body></html>'
    expect(detectMojeekBlock({ status: 403, url: SEARCH_URL, body: refused })?.reason).toBe('Mojeek refused the request parameters (HTTP 403)')
    expect(detectMojeekBlock({ status: 200, url: SEARCH_URL, body: PAGE.replace('</body>', '<p>wrong request parameters</p></body>') })).toBeNull()
    expect(detectMojeekBlock({ status: 429, url: SEARCH_URL, body: PAGE })?.reason).toBe('HTTP 429 from Mojeek')
    const cf = '<html><head><title>Just a moment...</title></head><body><div class="cf-chl-widget"></div></body></html>'
    expect(detectMojeekBlock({ status: 503, url: SEARCH_URL, body: cf })?.reason).toBe('Cloudflare challenge page')
  })

  it('never reads a result page as a block, even one whose results mention automated queries', () => {
    expect(detectMojeekBlock({ status: 200, url: SEARCH_URL, body: PAGE })).toBeNull()
    const tricky = PAGE.replace('Main course contains 2 parts', 'automated queries blocked')
    expect(detectMojeekBlock({ status: 200, url: SEARCH_URL, body: tricky })).toBeNull()
  })
})

describe('mojeekProvider', () => {
  const base = searchRequest({ engine: 'mojeek', q: 'javascript tutorial' })

  it('declares web search with time, safe, domain filters and site:', () => {
    expect(mojeekProvider.name).toBe('mojeek')
    expect(mojeekProvider.capabilities).toEqual({ verticals: ['search'], params: ['page', 'time', 'safe', 'include_domains'], siteOperator: true })
    expect(mojeekProvider.verticals).toEqual({})
  })

  it('searches with one fetch and parses the page', async () => {
    const urls: string[] = []
    const fetch: EngineFetch = async (url) => {
      urls.push(url)
      return { status: 200, url, body: PAGE }
    }
    const page = await searchRoute(mojeekProvider.search, base, fetch)
    expect(urls).toEqual(['https://www.mojeek.com/search?q=javascript%20tutorial&safe=0'])
    expect(page.results[0]?.link).toBe('https://javascript.info/')
    expect(mojeekProvider.detectBlock({ status: 403, url: urls[0] ?? '', body: '' })).not.toBeNull()
  })
})
