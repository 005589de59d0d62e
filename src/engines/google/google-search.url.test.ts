import { describe, expect, it } from 'vitest'
import { searchRequest } from '../../../test/support/engine-requests.ts'
import { acceptLanguage } from '../accept-language.ts'
import { compileSiteOperators, enforceDomainFilters } from '../domain-filter.ts'
import type { OrganicResult, SearchRequest } from '../engine.types.ts'
import { buildGoogleSearchRequest, encodeUule } from './google-search.url.ts'
import { decodeUule } from './google-uule.encode.ts'

const base = searchRequest({ engine: 'google', q: 'coffee beans' })

function params(req: Partial<SearchRequest>): URLSearchParams {
  return new URL(buildGoogleSearchRequest({ ...base, ...req }).url).searchParams
}

describe('buildGoogleSearchRequest', () => {
  it('builds the default request on www.google.com/search', () => {
    const { url } = buildGoogleSearchRequest(base)
    expect(url).toBe('https://www.google.com/search?q=coffee%20beans&hl=en&gl=us&safe=off&ie=UTF-8&oe=UTF-8')
  })

  it('maps language to hl and country to gl; never sends lr, which empties valid searches', () => {
    const p = params({ language: 'pt-BR', country: 'br' })
    expect(p.get('hl')).toBe('pt-BR')
    expect(p.get('gl')).toBe('br')
    for (const language of ['pt-BR', 'zh-TW', 'en', 'de']) expect(params({ language }).has('lr')).toBe(false)
  })

  it('never sends num (Google answers 10 a page); start is the page asked for, left out at 0', () => {
    expect(params({}).has('num')).toBe(false)
    expect(params({}).has('start')).toBe(false)
    expect(params({ num: 100 }).has('num')).toBe(false)
    expect(params({ page: 3 }).get('start')).toBe('20')
    const p = params({ num: 20, page: 2 })
    expect(p.has('num')).toBe(false)
    expect(p.get('start')).toBe('20')
    // One page of a deeper request: the caller names its start.
    expect(new URL(buildGoogleSearchRequest({ ...base, num: 30 }, 10).url).searchParams.get('start')).toBe('10')
    expect(new URL(buildGoogleSearchRequest({ ...base, num: 30, page: 2 }, 0).url).searchParams.has('start')).toBe(false)
  })

  it('maps time to tbs=qdr and keeps a raw tbs, joined by a comma', () => {
    expect(params({ time: 'hour' }).get('tbs')).toBe('qdr:h')
    expect(params({ time: 'day' }).get('tbs')).toBe('qdr:d')
    expect(params({ time: 'week' }).get('tbs')).toBe('qdr:w')
    expect(params({ time: 'month' }).get('tbs')).toBe('qdr:m')
    expect(params({ time: 'year' }).get('tbs')).toBe('qdr:y')
    expect(params({ tbs: 'cdr:1,cd_min:1/1/2020,cd_max:12/31/2020' }).get('tbs')).toBe('cdr:1,cd_min:1/1/2020,cd_max:12/31/2020')
    expect(params({ time: 'week', tbs: 'li:1' }).get('tbs')).toBe('qdr:w,li:1')
    expect(params({}).has('tbs')).toBe(false)
  })

  it('maps safe search', () => {
    expect(params({ safe: 'active' }).get('safe')).toBe('active')
    expect(params({ safe: 'off' }).get('safe')).toBe('off')
  })

  it('encodes location into uule, keeping the literal "w+" Google uses', () => {
    const { url } = buildGoogleSearchRequest({ ...base, location: 'San Francisco, USA' })
    expect(url).toContain('&uule=w+CAIQICISU2FuIEZyYW5jaXNjbywgVVNB&')
  })

  it('passes an explicit uule as is, ahead of location', () => {
    const { url } = buildGoogleSearchRequest({ ...base, uule: 'w+CAIQICINVW5pdGVkIFN0YXRlcw', location: 'Paris, France' })
    expect(url).toContain('&uule=w+CAIQICINVW5pdGVkIFN0YXRlcw&')
  })

  it('sends ll as the coordinates form of uule; location and uule come first', () => {
    const uule = params({ ll: '@40.7455096,-74.0083012,14z' }).get('uule') ?? ''
    expect(uule).toMatch(/^a /) // the literal "+" of the URL reads as a space
    const text = Buffer.from(uule.slice(2), 'base64url').toString('utf8')
    expect(text).toContain('latlng{\nlatitude_e7:407455096\nlongitude_e7:-740083012\n}')
    expect(text).toMatch(/^role:1\nproducer:12\n/)
    expect(params({ ll: '@40.7,-74.0,14z', location: 'Paris, France' }).get('uule')).toBe(params({ location: 'Paris, France' }).get('uule'))
  })

  it('turns autocorrect=false into nfpr=1', () => {
    expect(params({ autocorrect: false }).get('nfpr')).toBe('1')
    expect(params({ autocorrect: true }).has('nfpr')).toBe(false)
    expect(params({}).has('nfpr')).toBe(false)
  })

  it('sends a desktop or mobile Chrome user agent, languages and the consent cookies', () => {
    const desktop = buildGoogleSearchRequest(base).headers
    expect(desktop['User-Agent']).toMatch(/Windows NT 10\.0; Win64; x64.*Chrome\/\d+.*Safari\/537\.36$/)
    expect(desktop['User-Agent']).not.toContain('Mobile')
    const mobile = buildGoogleSearchRequest({ ...base, device: 'mobile' }).headers
    expect(mobile['User-Agent']).toMatch(/Android.*Chrome\/\d+.* Mobile Safari\/537\.36$/)
    expect(desktop.Accept).toContain('text/html')
    expect(desktop.Cookie).toBe('CONSENT=YES+; SOCS=CAESHAgBEhIaAB')
    expect(buildGoogleSearchRequest({ ...base, language: 'pt-BR' }).headers['Accept-Language']).toBe('pt-BR,pt;q=0.9,en;q=0.8')
  })
})

describe('acceptLanguage', () => {
  it('adds the base language and English fallbacks', () => {
    expect(acceptLanguage('en')).toBe('en')
    expect(acceptLanguage('en-GB')).toBe('en-GB,en;q=0.9')
    expect(acceptLanguage('de')).toBe('de,en;q=0.8')
  })
})

describe('encodeUule', () => {
  it('produces "w+CAIQICI" + length key + base64 name for short names', () => {
    expect(encodeUule('San Francisco, USA')).toBe('w+CAIQICISU2FuIEZyYW5jaXNjbywgVVNB')
    expect(encodeUule('United States')).toBe('w+CAIQICINVW5pdGVkIFN0YXRlcw')
    // The length key is the base64 digit of the byte length: 'E' = 4, 'N' = 13.
    expect(encodeUule('Rome').slice(0, 10)).toBe('w+CAIQICIE')
  })

  it('counts UTF-8 bytes, not characters', () => {
    const u = encodeUule('São Paulo,State of São Paulo,Brazil')
    expect(u.charAt(9)).toBe('l') // 37 bytes
    expect(decodeUule(u)).toBe('São Paulo,State of São Paulo,Brazil')
  })

  it('encodes longer names with the real protobuf length, so the fixed prefix no longer applies', () => {
    // 64-127 bytes: one length byte above 63 turns the ninth character from 'I' into 'J'.
    const name = 'Some Very Long Neighbourhood Name,Some Long City Name,Some State,United States'
    const u = encodeUule(name)
    expect(u.startsWith('w+CAIQICJ')).toBe(true)
    expect(decodeUule(u)).toBe(name)
    expect(decodeUule(u.replace('w+', 'w '))).toBe(name)
    // 128 bytes and more take a two-byte varint.
    const longer = `${name},${name}`
    expect(Buffer.from(encodeUule(longer).slice(2), 'base64url').subarray(5, 7)).toEqual(Buffer.from([0x9d, 0x01]))
    expect(decodeUule(encodeUule(longer))).toBe(longer)
  })
})

describe('compileSiteOperators', () => {
  it('strips schemes, www and trailing slashes', () => {
    expect(compileSiteOperators(['https://www.Example.com/'], [])).toBe('site:example.com')
    expect(compileSiteOperators([], ['.edu', 'x.org/path/'])).toBe('-site:edu -site:x.org/path')
    expect(compileSiteOperators([], [])).toBe('')
  })
})

describe('enforceDomainFilters', () => {
  const result = (link: string, position: number): OrganicResult => ({
    position,
    title: link,
    link,
    domain: new URL(link).hostname.replace(/^www\./, ''),
  })
  const results = [
    result('https://www.example.com/a', 1),
    result('https://blog.example.com/post', 2),
    result('https://www.nasa.gov/moon', 3),
    result('https://other.org/blog/x', 4),
    result('https://example.com.evil.net/', 5),
    result('https://other.org/news', 6),
  ]

  it('keeps included domains with their subdomains and renumbers', () => {
    const kept = enforceDomainFilters(results, ['example.com'], [])
    expect(kept.map((r) => [r.position, r.link])).toEqual([
      [1, 'https://www.example.com/a'],
      [2, 'https://blog.example.com/post'],
    ])
  })

  it('matches a TLD by suffix and a path prefix by host and path', () => {
    expect(enforceDomainFilters(results, ['.gov'], []).map((r) => r.link)).toEqual(['https://www.nasa.gov/moon'])
    expect(enforceDomainFilters(results, ['other.org/blog'], []).map((r) => r.link)).toEqual(['https://other.org/blog/x'])
  })

  it('drops excluded domains', () => {
    const kept = enforceDomainFilters(results, [], ['example.com', 'other.org/news'])
    expect(kept.map((r) => r.link)).toEqual(['https://www.nasa.gov/moon', 'https://other.org/blog/x', 'https://example.com.evil.net/'])
    expect(kept.map((r) => r.position)).toEqual([1, 2, 3])
  })
})
