import { describe, expect, it } from 'vitest'
import { searchRequest } from '../../../test/support/engine-requests.ts'
import type { SearchRequest } from '../engine.types.ts'
import { buildMojeekSearchRequest } from './mojeek.request.ts'

const base = searchRequest({ engine: 'mojeek', q: 'javascript tutorial' })
const NOW = new Date('2026-03-17T12:00:00Z')
const params = (r: Partial<SearchRequest>) => Object.fromEntries(new URL(buildMojeekSearchRequest({ ...base, ...r }, NOW).url).searchParams)

describe('buildMojeekSearchRequest', () => {
  it('asks /search with q and safe only, and no start on page 1', () => {
    expect(buildMojeekSearchRequest(base, NOW).url).toBe('https://www.mojeek.com/search?q=javascript%20tutorial&safe=0')
  })

  it('never puts lb or arc in the URL (a 403 for wrong request parameters): they go as cookies only', () => {
    const variants: Partial<SearchRequest>[] = [
      {},
      { language: 'pt-BR', country: 'br' },
      { language: 'de', country: 'de', page: 3, num: 20, time: 'week', safe: 'active' },
    ]
    for (const v of variants) {
      const r = buildMojeekSearchRequest({ ...base, ...v }, NOW)
      const keys = [...new URL(r.url).searchParams.keys()]
      expect(keys).not.toContain('lb')
      expect(keys).not.toContain('arc')
      expect(keys.every((k) => ['q', 's', 't', 'since', 'safe'].includes(k))).toBe(true)
      expect(r.headers.Cookie).toMatch(/^lb=[a-z]+; arc=[a-z]+$/)
    }
  })

  it('pages with a 1-based s, and asks for more than ten with t', () => {
    expect(params({ page: 2 })).toMatchObject({ s: '11' })
    expect(params({ page: 3, num: 20 })).toMatchObject({ s: '41', t: '20' })
    expect(params({ offset: 5, page: 1 }).s).toBe('6')
    expect(params({ num: 10 }).t).toBeUndefined()
  })

  it('maps time to since', () => {
    expect(params({ time: 'hour' }).since).toBe('day')
    expect(params({ time: 'day' }).since).toBe('day')
    expect(params({ time: 'week' }).since).toBe('20260310')
    expect(params({ time: 'month' }).since).toBe('month')
    expect(params({ time: 'year' }).since).toBe('year')
  })

  it('maps safe, language and country', () => {
    expect(params({ safe: 'active' }).safe).toBe('1')
    expect(buildMojeekSearchRequest({ ...base, language: 'pt-BR', country: 'br' }, NOW).headers.Cookie).toBe('lb=pt; arc=br')
  })

  it('sends browser headers and the lb / arc preference cookies', () => {
    const { headers } = buildMojeekSearchRequest({ ...base, language: 'de', country: 'de' }, NOW)
    expect(headers['User-Agent']).toMatch(/Chrome\/\d+/)
    expect(headers.Accept).toMatch(/^text\/html/)
    expect(headers['Accept-Language']).toBe('de,en;q=0.8')
    expect(headers.Cookie).toBe('lb=de; arc=de')
  })
})
