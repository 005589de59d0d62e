import { describe, expect, it } from 'vitest'
import type { VerticalRequest } from '../../engine.types.ts'
import { buildGoogleNewsRequest, ceidLanguage, timeOperators } from './google-news.request.ts'

const base: VerticalRequest = { endpoint: 'news', q: 'ai regulation', country: 'us', language: 'en', num: 10, page: 1 }

function params(req: Partial<VerticalRequest>): URLSearchParams {
  return new URL(buildGoogleNewsRequest({ ...base, ...req }).url).searchParams
}

describe('buildGoogleNewsRequest', () => {
  it('asks the RSS search feed with hl, gl and ceid', () => {
    const { url } = buildGoogleNewsRequest(base)
    expect(url).toBe('https://news.google.com/rss/search?q=ai%20regulation&hl=en-US&gl=US&ceid=US%3Aen')
  })

  it('maps language and country to the edition (hl=lang-REGION, ceid=CC:lang)', () => {
    expect(Object.fromEntries(params({ country: 'de', language: 'de' }))).toMatchObject({ hl: 'de-DE', gl: 'DE', ceid: 'DE:de' })
    expect(Object.fromEntries(params({ country: 'br', language: 'pt-BR' }))).toMatchObject({ hl: 'pt-BR', gl: 'BR', ceid: 'BR:pt-419' })
    expect(Object.fromEntries(params({ country: 'gb', language: 'en' }))).toMatchObject({ hl: 'en-GB', gl: 'GB', ceid: 'GB:en' })
    expect(params({ country: 'mx', language: 'es' }).get('ceid')).toBe('MX:es-419')
    expect(params({ country: 'es', language: 'es' }).get('ceid')).toBe('ES:es')
    expect(params({ country: 'tw', language: 'zh-TW' }).get('ceid')).toBe('TW:zh-Hant')
  })

  it('sends no paging parameters: the feed is one list, paged after parsing', () => {
    const p = params({ page: 3, num: 10 })
    expect([...p.keys()]).toEqual(['q', 'hl', 'gl', 'ceid'])
  })

  it('maps time to the when: operator in q', () => {
    expect(params({ time: 'hour' }).get('q')).toBe('ai regulation when:1h')
    expect(params({ time: 'day' }).get('q')).toBe('ai regulation when:1d')
    expect(params({ time: 'week' }).get('q')).toBe('ai regulation when:7d')
    expect(params({ time: 'month' }).get('q')).toBe('ai regulation when:30d')
    expect(params({ time: 'year' }).get('q')).toBe('ai regulation when:365d')
  })

  it('maps a raw tbs: qdr to when:, a cdr range to after:/before:, other parts dropped', () => {
    expect(params({ tbs: 'qdr:w' }).get('q')).toBe('ai regulation when:7d')
    expect(params({ tbs: 'qdr:h6' }).get('q')).toBe('ai regulation when:6h')
    expect(params({ tbs: 'cdr:1,cd_min:1/5/2026,cd_max:12/31/2026' }).get('q')).toBe('ai regulation after:2026-01-05 before:2026-12-31')
    expect(params({ tbs: 'sbd:1' }).get('q')).toBe('ai regulation')
    expect(timeOperators({ ...base, time: 'day', tbs: 'qdr:y' })).toEqual(['when:1d'])
  })

  it('compiles include/exclude domains into site operators before the time operator', () => {
    expect(params({ include_domains: ['reuters.com'], time: 'week' }).get('q')).toBe('ai regulation site:reuters.com when:7d')
    expect(params({ include_domains: ['a.com', 'b.com'], exclude_domains: ['c.com'] }).get('q')).toBe('ai regulation (site:a.com OR site:b.com) -site:c.com')
  })

  it('asks for RSS with the language and consent headers', () => {
    const { headers } = buildGoogleNewsRequest({ ...base, language: 'fr' })
    expect(headers.Accept).toMatch(/^application\/rss\+xml/)
    expect(headers['Accept-Language']).toBe('fr,en;q=0.8')
    expect(headers.Cookie).toContain('CONSENT=')
  })
})

describe('ceidLanguage', () => {
  it('uses the edition codes Google News uses', () => {
    expect(ceidLanguage('pt', 'pt')).toBe('pt-150')
    expect(ceidLanguage('es', 'us')).toBe('es-419')
    expect(ceidLanguage('zh-CN', 'cn')).toBe('zh-Hans')
    expect(ceidLanguage('fr-CA', 'ca')).toBe('fr')
  })
})
