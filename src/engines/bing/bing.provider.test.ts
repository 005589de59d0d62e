import { describe, expect, it } from 'vitest'
import { searchRequest } from '../../../test/support/engine-requests.ts'
import { readFixture } from '../../../test/support/fixtures.ts'
import { searchRoute } from '../provider.routes.ts'
import type { EngineFetch } from '../provider.types.ts'
import { bingProvider } from './bing.provider.ts'

const PAGE = readFixture('serp/bing/web/wsmcp-javascript-tutorial-http-2026.html').toString('utf8')
const base = searchRequest({ engine: 'bing', q: 'javascript tutorial' })

describe('bingProvider', () => {
  it('declares web, news and images, time / safe / domain filters, and site:', () => {
    expect(bingProvider.name).toBe('bing')
    expect(bingProvider.capabilities).toEqual({
      verticals: ['search', 'news', 'images'],
      params: ['page', 'time', 'safe', 'include_domains'],
      siteOperator: true,
    })
    expect(Object.keys(bingProvider.verticals).sort()).toEqual(['images', 'news'])
  })

  it('searches with one fetch and parses the page', async () => {
    const urls: string[] = []
    const fetch: EngineFetch = async (url) => {
      urls.push(url)
      return { status: 200, url, body: PAGE }
    }
    const page = await searchRoute(bingProvider.search, base, fetch)
    expect(urls).toEqual(['https://www.bing.com/search?q=javascript%20tutorial&setlang=en-US&cc=US&mkt=en-US&adlt=off'])
    expect(page.results).toHaveLength(10)
    expect(page.results[0]?.link).toBe('https://www.w3schools.com/Js/')
  })

  it('answers page 1 served for page 2 with no results', async () => {
    const fetch: EngineFetch = async (url) => ({ status: 200, url, body: PAGE })
    const page = await searchRoute(bingProvider.search, { ...base, page: 2 }, fetch)
    expect(page.results).toEqual([])
    expect(page.parse_quality).toBe('empty')
  })

  it('its block detector refuses the challenge page', () => {
    const body = readFixture('serp/bing/web/wsmcp-javascript-tutorial-browser-2026.html').toString('utf8')
    expect(bingProvider.detectBlock({ status: 200, url: 'https://www.bing.com/search?q=x', body })).not.toBeNull()
  })
})
