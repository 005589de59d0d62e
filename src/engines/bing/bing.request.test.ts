import { describe, expect, it } from 'vitest'
import { searchRequest } from '../../../test/support/engine-requests.ts'
import type { SearchRequest } from '../engine.types.ts'
import { bingTimeFilter, buildBingSearchRequest } from './bing.request.ts'
import { bingMarket } from './bing.util.ts'

const base = searchRequest({ engine: 'bing', q: 'javascript tutorial' })
const NOW = new Date('2026-03-17T12:00:00Z') // Unix day 20529
const params = (r: Partial<SearchRequest>) => Object.fromEntries(new URL(buildBingSearchRequest({ ...base, ...r }, NOW).url).searchParams)

describe('buildBingSearchRequest', () => {
  it('asks /search with the query, locale and safe search', () => {
    const { url } = buildBingSearchRequest(base, NOW)
    expect(url).toBe('https://www.bing.com/search?q=javascript%20tutorial&setlang=en-US&cc=US&mkt=en-US&adlt=off')
  })

  it('pages with a 1-based first and the pager FORM code', () => {
    expect(params({ page: 2 })).toMatchObject({ first: '11', FORM: 'PERE' })
    expect(params({ page: 3 })).toMatchObject({ first: '21', FORM: 'PERE1' })
    expect(params({ page: 2, num: 20 })).toMatchObject({ first: '21', FORM: 'PERE1' })
    expect(params({ offset: 30, page: 1 })).toMatchObject({ first: '31', FORM: 'PERE2' })
    expect(params({ page: 1 }).first).toBeUndefined()
  })

  it('sends no count: Bing serves ten a page', () => {
    expect(params({ num: 50 }).count).toBeUndefined()
  })

  it('maps language and country to one Bing market for mkt, setlang and cc when there is one, else setlang and cc only', () => {
    expect(params({ language: 'pt-BR', country: 'br' })).toMatchObject({ setlang: 'pt-BR', cc: 'BR', mkt: 'pt-BR' })
    expect(params({ language: 'de', country: 'de' })).toMatchObject({ setlang: 'de-DE', cc: 'DE', mkt: 'de-DE' })
    expect(params({ language: 'en', country: 'gb' }).mkt).toBe('en-GB')
    // The country decides: a region in the language that is not the country is not sent.
    expect(params({ language: 'pt-BR', country: 'pt' })).toMatchObject({ setlang: 'pt-PT', cc: 'PT', mkt: 'pt-PT' })
    const noMarket = params({ language: 'en', country: 'de' })
    expect(noMarket).toMatchObject({ setlang: 'en', cc: 'DE' })
    expect(noMarket.mkt).toBeUndefined()
    expect(bingMarket('no', 'no')).toBe('nb-NO')
  })

  it('maps time to filters=ex1:"ezN", the year as a range of Unix days', () => {
    expect(params({ time: 'day' }).filters).toBe('ex1:"ez1"')
    expect(params({ time: 'hour' }).filters).toBe('ex1:"ez1"')
    expect(params({ time: 'week' }).filters).toBe('ex1:"ez2"')
    expect(params({ time: 'month' }).filters).toBe('ex1:"ez3"')
    expect(params({ time: 'year' }).filters).toBe('ex1:"ez5_20164_20529"')
    expect(bingTimeFilter('year', new Date('1970-01-02T00:00:00Z'))).toBe('ex1:"ez5_-364_1"')
  })

  it('maps safe=active to adlt=strict', () => {
    expect(params({ safe: 'active' }).adlt).toBe('strict')
  })

  it('sends browser headers with the locale in Accept-Language and the _EDGE cookies', () => {
    const { headers } = buildBingSearchRequest({ ...base, language: 'pt-BR', country: 'br' }, NOW)
    expect(headers['User-Agent']).toMatch(/Chrome\/\d+/)
    expect(headers.Accept).toMatch(/^text\/html/)
    expect(headers['Accept-Language']).toBe('pt-BR,pt;q=0.9,en;q=0.8')
    expect(headers.Cookie).toBe('_EDGE_CD=m=pt-br&u=pt-br; _EDGE_S=mkt=pt-br&ui=pt-br')
    expect(buildBingSearchRequest(base, NOW).headers['Accept-Language']).toBe('en-US,en;q=0.9')
    // No market: the cookies name the UI language and no market.
    const other = buildBingSearchRequest({ ...base, language: 'en', country: 'de' }, NOW).headers
    expect(other.Cookie).toBe('_EDGE_CD=u=en; _EDGE_S=ui=en')
    expect(other['Accept-Language']).toBe('en-DE,en;q=0.9')
  })
})
