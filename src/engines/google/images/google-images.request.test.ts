import { describe, expect, it } from 'vitest'
import type { VerticalRequest } from '../../engine.types.ts'
import { buildGoogleImagesRequest } from './google-images.request.ts'

const base: VerticalRequest = { endpoint: 'images', q: 'green energy', country: 'us', language: 'en', num: 10, page: 1, safe: 'off' }

function params(req: Partial<VerticalRequest>, start?: number): URLSearchParams {
  return new URL(buildGoogleImagesRequest({ ...base, ...req }, start).url).searchParams
}

describe('buildGoogleImagesRequest', () => {
  it('asks www.google.com/search for the basic image grid (tbm=isch, gbv=1)', () => {
    const { url } = buildGoogleImagesRequest(base)
    expect(url).toBe('https://www.google.com/search?q=green%20energy&tbm=isch&gbv=1&hl=en&gl=us&lr=lang_en&safe=off&ie=UTF-8&oe=UTF-8')
  })

  it('maps country and language to gl, hl and lr', () => {
    const p = params({ country: 'de', language: 'de' })
    expect([p.get('gl'), p.get('hl'), p.get('lr')]).toEqual(['de', 'de', 'lang_de'])
    const br = params({ country: 'br', language: 'pt-BR' })
    expect([br.get('hl'), br.get('lr')]).toEqual(['pt-BR', 'lang_pt'])
  })

  it('pages with start=(page-1)*num and never sends num (the grid has a fixed size)', () => {
    expect(params({}).has('start')).toBe(false)
    expect(params({ page: 3 }).get('start')).toBe('20')
    expect(params({ num: 50 }).has('num')).toBe(false)
    expect(params({}, 40).get('start')).toBe('40')
  })

  it('maps time to tbs=qdr and joins a raw tbs', () => {
    expect(params({ time: 'hour' }).get('tbs')).toBe('qdr:h')
    expect(params({ time: 'year' }).get('tbs')).toBe('qdr:y')
    expect(params({ tbs: 'sur:fmc' }).get('tbs')).toBe('sur:fmc')
    expect(params({ time: 'week', tbs: 'isz:l' }).get('tbs')).toBe('qdr:w,isz:l')
    expect(params({}).has('tbs')).toBe(false)
  })

  it('sends safe search', () => {
    expect(params({ safe: 'active' }).get('safe')).toBe('active')
    expect(params({ safe: undefined }).get('safe')).toBe('off')
  })

  it('compiles include/exclude domains into site operators on q', () => {
    expect(params({ include_domains: ['nasa.gov'] }).get('q')).toBe('green energy site:nasa.gov')
    expect(params({ include_domains: ['a.com', 'b.org'], exclude_domains: ['wikipedia.org'] }).get('q')).toBe(
      'green energy (site:a.com OR site:b.org) -site:wikipedia.org',
    )
  })

  it('sends a basic-layout browser without client hints, the language and the consent cookie', () => {
    const { headers } = buildGoogleImagesRequest({ ...base, language: 'de' })
    expect(headers['User-Agent']).toMatch(/^Opera\/9\.80 .*Presto/)
    expect(headers['Accept-Language']).toBe('de,en;q=0.8')
    expect(headers.Cookie).toContain('SOCS=')
    expect(Object.keys(headers).some((h) => h.toLowerCase().startsWith('sec-ch-'))).toBe(false)
  })
})
