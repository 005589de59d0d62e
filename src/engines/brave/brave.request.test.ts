import { describe, expect, it } from 'vitest'
import { searchRequest } from '../../../test/support/engine-requests.ts'
import type { SearchRequest } from '../engine.types.ts'
import { searchRoute } from '../provider.routes.ts'
import type { EngineFetch } from '../provider.types.ts'
import { braveProvider } from './brave.provider.ts'
import { BRAVE_MAX_OFFSET, type BraveRequest, buildBraveRequest, uiLang } from './brave.request.ts'

const base = searchRequest({ engine: 'brave', q: 'h&m home' })
/** The request for `req`, which must be one Brave can serve. */
const build = (req: SearchRequest): BraveRequest => {
  const r = buildBraveRequest(req)
  if (!r) throw new Error('no request built')
  return r
}
const params = (r: Partial<SearchRequest>) => new URL(build({ ...base, ...r }).url).searchParams

describe('buildBraveRequest', () => {
  it('asks search.brave.com/search with q and source=web', () => {
    const { url, skip } = build(base)
    expect(url).toBe('https://search.brave.com/search?q=h%26m%20home&source=web')
    expect(skip).toBe(0)
  })

  it('pages by page index (20 results a page) and drops the part of the page before the offset', () => {
    expect(params({ page: 2, num: 10 }).get('offset')).toBeNull()
    expect(build({ ...base, page: 2, num: 10 }).skip).toBe(10)
    expect(params({ page: 3, num: 10 }).get('offset')).toBe('1')
    expect(build({ ...base, page: 3, num: 10 }).skip).toBe(0)
    expect(params({ page: 2, num: 20 }).get('offset')).toBe('1')
    expect(params({ page: 2, num: 50 }).get('offset')).toBe('2')
    expect(build({ ...base, page: 2, num: 50 }).skip).toBe(10)
    expect(params({ offset: 45 }).get('offset')).toBe('2')
  })

  it('never asks an offset above 9: the last reachable page is offset 9 (results 181-200), past it nothing is built', () => {
    expect(BRAVE_MAX_OFFSET).toBe(9)
    // Every num (up to 100) and page (up to 10) a SearchRequest can carry maps to offset 0-9 or to no
    // request (through the API num > 10 needs page 1, so offset 4 is the deepest asked today).
    for (const num of [10, 20, 30, 50, 100] as const) {
      for (let page = 1; page <= 10; page++) {
        const r = buildBraveRequest({ ...base, num, page })
        const start = (page - 1) * num
        if (start >= 200) expect(r, `num=${num} page=${page}`).toBeUndefined()
        else expect(Number(new URL(r?.url ?? '').searchParams.get('offset') ?? 0)).toBe(Math.floor(start / 20))
      }
    }
    expect(params({ page: 10, num: 20 }).get('offset')).toBe('9')
    expect(params({ page: 7, num: 30 }).get('offset')).toBe('9')
    expect(build({ ...base, page: 7, num: 30 }).skip).toBe(0)
    expect(params({ offset: 199 }).get('offset')).toBe('9')
    expect(buildBraveRequest({ ...base, offset: 200 })).toBeUndefined()
    expect(buildBraveRequest({ ...base, page: 3, num: 100 })).toBeUndefined()
    expect(buildBraveRequest({ ...base, page: 5, num: 50 })).toBeUndefined()
  })

  it('maps time to tf (hour becomes the past day) and autocorrect=false to spellcheck=0', () => {
    expect(params({ time: 'hour' }).get('tf')).toBe('pd')
    expect(params({ time: 'day' }).get('tf')).toBe('pd')
    expect(params({ time: 'week' }).get('tf')).toBe('pw')
    expect(params({ time: 'month' }).get('tf')).toBe('pm')
    expect(params({ time: 'year' }).get('tf')).toBe('py')
    expect(params({ autocorrect: false }).get('spellcheck')).toBe('0')
    expect(params({ autocorrect: true }).has('spellcheck')).toBe(false)
  })

  it('sends country, language and safe search as the settings cookies, with browser headers', () => {
    const { headers } = build({ ...base, country: 'de', language: 'de', safe: 'active' })
    expect(headers.Cookie).toBe('country=de; ui_lang=de-de; safesearch=strict; useLocation=0; summarizer=0')
    expect(headers['Accept-Language']).toBe('de,en;q=0.8')
    expect(headers['User-Agent']).toMatch(/Chrome\/\d+/)
    expect(headers.Accept).toMatch(/^text\/html/)
    expect(build(base).headers.Cookie).toContain('safesearch=off')
    expect(uiLang('pt-BR', 'us')).toBe('pt-br')
  })
})

describe('braveProvider without a key: the result page', () => {
  const provider = braveProvider()

  it('offers web search only, with time, safe and autocorrect, and site:', () => {
    expect(provider.name).toBe('brave')
    expect(provider.capabilities).toEqual({ verticals: ['search'], params: ['page', 'time', 'safe', 'autocorrect'], siteOperator: true })
    expect(provider.verticals).toEqual({})
    expect(braveProvider('  ').capabilities.verticals).toEqual(['search'])
  })

  it('fetches the page once and keeps the results from the requested offset', async () => {
    const snippets = Array.from(
      { length: 20 },
      (_, i) => `<div class="snippet" data-type="web"><a href="https://example.com/${i + 1}"><span class="snippet-title">R${i + 1}</span></a></div>`,
    )
    const calls: Parameters<EngineFetch>[] = []
    const fetch: EngineFetch = async (...args) => {
      calls.push(args)
      return { status: 200, url: args[0], body: `<div id="results">${snippets.join('')}</div>` }
    }
    const page = await searchRoute(provider.search, { ...base, page: 2 }, fetch)
    expect(calls).toHaveLength(1)
    expect(calls[0]?.[0]).toBe('https://search.brave.com/search?q=h%26m%20home&source=web')
    expect(calls[0]?.[3]).toBeUndefined()
    expect(page.results.map((r) => [r.position, r.title])).toEqual(Array.from({ length: 10 }, (_, i) => [i + 1, `R${i + 11}`]))
  })

  it('answers a window past result 200 empty without asking Brave', async () => {
    const calls: string[] = []
    const fetch: EngineFetch = async (url) => {
      calls.push(url)
      return { status: 200, url, body: '' }
    }
    expect(await searchRoute(provider.search, { ...base, num: 100, page: 3 }, fetch)).toEqual({ results: [], parse_quality: 'empty' })
    expect(await searchRoute(provider.search, { ...base, num: 50, page: 10 }, fetch)).toEqual({ results: [], parse_quality: 'empty' })
    expect(calls).toEqual([])
  })
})
