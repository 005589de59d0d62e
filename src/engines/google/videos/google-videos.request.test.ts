import { describe, expect, it } from 'vitest'
import type { VerticalRequest } from '../../engine.types.ts'
import { buildGoogleVideosRequest } from './google-videos.request.ts'

const base: VerticalRequest = { endpoint: 'videos', q: 'atalanta highlights', country: 'us', language: 'en', num: 10, page: 1 }

function params(req: Partial<VerticalRequest>): URLSearchParams {
  return new URL(buildGoogleVideosRequest({ ...base, ...req }).url).searchParams
}

describe('buildGoogleVideosRequest', () => {
  it('asks www.google.com/search for basic-layout videos (tbm=vid, gbv=1)', () => {
    const { url } = buildGoogleVideosRequest(base)
    expect(url).toBe('https://www.google.com/search?q=atalanta%20highlights&tbm=vid&gbv=1&hl=en&gl=us&lr=lang_en&ie=UTF-8&oe=UTF-8')
  })

  it('maps country and language to gl, hl and lr', () => {
    const p = params({ country: 'it', language: 'it' })
    expect([p.get('gl'), p.get('hl'), p.get('lr')]).toEqual(['it', 'it', 'lang_it'])
    expect(params({ language: 'zh-TW' }).get('lr')).toBe('lang_zh-TW')
  })

  it('sends num when it is not 10 and start after page 1', () => {
    expect(params({}).has('num')).toBe(false)
    expect(params({ num: 50 }).get('num')).toBe('50')
    expect(params({}).has('start')).toBe(false)
    expect(params({ page: 4 }).get('start')).toBe('30')
  })

  it('maps time to tbs=qdr and joins a raw tbs (duration filters pass through)', () => {
    expect(params({ time: 'day' }).get('tbs')).toBe('qdr:d')
    expect(params({ time: 'month' }).get('tbs')).toBe('qdr:m')
    expect(params({ tbs: 'dur:l' }).get('tbs')).toBe('dur:l')
    expect(params({ time: 'week', tbs: 'dur:s,hq:h' }).get('tbs')).toBe('qdr:w,dur:s,hq:h')
  })

  it('sends safe only when the request carries it', () => {
    expect(params({}).has('safe')).toBe(false)
    expect(params({ safe: 'active' }).get('safe')).toBe('active')
  })

  it('compiles include/exclude domains into site operators on q', () => {
    expect(params({ include_domains: ['youtube.com'] }).get('q')).toBe('atalanta highlights site:youtube.com')
    expect(params({ exclude_domains: ['facebook.com', 'tiktok.com'] }).get('q')).toBe('atalanta highlights -site:facebook.com -site:tiktok.com')
  })

  it('sends the basic-layout browser headers', () => {
    const { headers } = buildGoogleVideosRequest({ ...base, language: 'it' })
    expect(headers['User-Agent']).toContain('Presto')
    expect(headers['Accept-Language']).toBe('it,en;q=0.8')
  })
})
