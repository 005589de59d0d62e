import { describe, expect, it } from 'vitest'
import { searchRequest } from '../../test/support/engine-requests.ts'
import type { OrganicResult, ParsedSearchPage, SearchRequest } from './engine.types.ts'
import type { EngineFetch, FetchRoute } from './provider.types.ts'
import { pageStarts, searchByPages } from './search-pages.ts'
import { UpstreamError } from './upstream/upstream-error.ts'

const result = (n: number): OrganicResult => ({ position: (n % 10) + 1, title: `Result ${n}`, link: `https://example.com/${n}`, domain: 'example.com' })
/** A Google page of 10 results from `start`, with a section only the first page's should survive. */
const page = (start: number): ParsedSearchPage => ({
  results: Array.from({ length: 10 }, (_, i) => result(start + i)),
  related_searches: [{ query: `related at ${start}` }],
  total_results: 1000 + start,
  parse_quality: 'ok',
})

describe('pageStarts', () => {
  it('is ceil(num/10) pages of 10 from the request offset', () => {
    expect(pageStarts(searchRequest({ num: 10 }), 10)).toEqual([0])
    expect(pageStarts(searchRequest({ num: 30 }), 10)).toEqual([0, 10, 20])
    expect(pageStarts(searchRequest({ num: 20, page: 3 }), 10)).toEqual([40, 50])
    expect(pageStarts(searchRequest({ num: 100 }), 10)).toEqual([0, 10, 20, 30, 40, 50, 60, 70, 80, 90])
    expect(pageStarts(searchRequest({ num: 10, offset: 7 }), 10)).toEqual([7])
  })
})

/**
 * searchByPages over a route of pages of 10 whose bodies are the parsed pages themselves (as JSON);
 * `fetch` and `read` can be made to fail per start.
 */
function byPages(req: SearchRequest, fetch: (start: number) => Promise<ParsedSearchPage>, read = (p: ParsedSearchPage) => p) {
  const route: FetchRoute = {
    request: (_req, start) => ({ url: `https://www.google.com/search?start=${start}`, headers: {} }),
    read: (body) => read(JSON.parse(body) as ParsedSearchPage),
  }
  const upstream: EngineFetch = async (url) => ({ status: 200, url, body: JSON.stringify(await fetch(Number(new URL(url).searchParams.get('start')))) })
  return searchByPages(req, route, 10, upstream)
}

describe('searchByPages', () => {
  it('merges pages in order, each link once, cut to num; other sections from the first page', async () => {
    const asked: number[] = []
    const merged = await byPages(searchRequest({ num: 30 }), async (start) => {
      asked.push(start)
      // The second page repeats a result of the first (Google shifts results between pages).
      if (start === 10) return { ...page(10), results: [result(9), ...page(10).results] }
      return page(start)
    })
    expect(asked.sort((a, b) => a - b)).toEqual([0, 10, 20])
    expect(merged.results.map((r) => r.link)).toEqual(Array.from({ length: 30 }, (_, i) => `https://example.com/${i}`))
    expect(merged.results.map((r) => r.position)).toEqual(Array.from({ length: 30 }, (_, i) => i + 1))
    expect(merged.related_searches).toEqual([{ query: 'related at 0' }])
    expect(merged.total_results).toBe(1000)
    expect(merged.parse_quality).toBe('ok')
  })

  it('fetches every page at once, and reads none before all are in', async () => {
    let inFlight = 0
    let most = 0
    let readWhileFetching = false
    await byPages(
      searchRequest({ num: 100 }),
      async (start) => {
        inFlight++
        most = Math.max(most, inFlight)
        await new Promise((r) => setImmediate(r))
        inFlight--
        return page(start)
      },
      (p) => {
        if (inFlight > 0) readWhileFetching = true
        return p
      },
    )
    expect(most).toBe(10)
    expect(readWhileFetching).toBe(false)
  })

  it('a later page failing upstream, fetched or read, leaves what was read, as partial', async () => {
    const merged = await byPages(searchRequest({ num: 30 }), async (start) => {
      if (start === 10) throw new UpstreamError('upstream_blocked', 'CAPTCHA page', [])
      return page(start)
    })
    expect(merged.results.map((r) => r.link)).toEqual([...page(0).results, ...page(20).results].map((r) => r.link))
    expect(merged.parse_quality).toBe('partial')
    const unreadable = await byPages(
      searchRequest({ num: 20 }),
      async (start) => page(start),
      (p) => {
        if (p.total_results === 1010) throw new UpstreamError('upstream_error', 'google answered a page that is not a result page', [])
        return p
      },
    )
    expect(unreadable.results).toHaveLength(10)
    expect(unreadable.parse_quality).toBe('partial')
  })

  it('the first page failing fails the call; a bug on any page is not swallowed', async () => {
    const blocked = new UpstreamError('upstream_blocked', 'CAPTCHA page', [])
    await expect(byPages(searchRequest({ num: 30 }), async (start) => (start === 0 ? Promise.reject(blocked) : page(start)))).rejects.toBe(blocked)
    await expect(
      byPages(searchRequest({ num: 20 }), async (start) => {
        if (start === 10) throw new TypeError('parser bug')
        return page(start)
      }),
    ).rejects.toThrow('parser bug')
  })

  it('a first page with no results stands, even when a later page is lost', async () => {
    const empty: ParsedSearchPage = { results: [], parse_quality: 'empty' }
    const merged = await byPages(searchRequest({ num: 20 }), async (start) => {
      if (start === 0) return empty
      throw new UpstreamError('upstream_error', 'HTTP 500', [])
    })
    expect(merged).toEqual(empty)
  })
})
