import { describe, expect, it } from 'vitest'
import type { VerticalRequest } from '../../engine.types.ts'
import { buildGoogleScholarRequest, scholarSlices } from './google-scholar.request.ts'

const base: VerticalRequest = { endpoint: 'scholar', q: 'coral reef bleaching', language: 'en', num: 10, page: 1 }

const params = (req: Partial<VerticalRequest>) => new URL(buildGoogleScholarRequest({ ...base, ...req }).url).searchParams

describe('buildGoogleScholarRequest', () => {
  it('builds the default request on scholar.google.com/scholar', () => {
    const { url, headers } = buildGoogleScholarRequest(base)
    expect(url).toBe('https://scholar.google.com/scholar?q=coral%20reef%20bleaching&hl=en&as_sdt=0%2C5&num=10')
    expect(headers['Accept-Language']).toBe('en')
    expect(headers.Cookie).toContain('CONSENT=')
  })

  it('sends q, language as hl, articles-only as_sdt and num', () => {
    const p = params({ q: 'déjà vu "memory"', language: 'pt-BR', num: 20 })
    expect(p.get('q')).toBe('déjà vu "memory"')
    expect(p.get('hl')).toBe('pt-BR')
    expect(p.get('as_sdt')).toBe('0,5')
    expect(p.get('num')).toBe('20')
    expect(p.has('lr')).toBe(false)
    expect(buildGoogleScholarRequest({ ...base, language: 'pt-BR' }).headers['Accept-Language']).toBe('pt-BR,pt;q=0.9,en;q=0.8')
  })

  it('turns page into a start offset of (page-1)*num', () => {
    expect(params({}).has('start')).toBe(false)
    expect(params({ page: 3 }).get('start')).toBe('20')
    expect(params({ page: 2, num: 20 }).get('start')).toBe('20')
  })

  it('defaults to English and 10 results', () => {
    const p = new URL(buildGoogleScholarRequest({ endpoint: 'scholar', q: 'x' }).url).searchParams
    expect(p.get('hl')).toBe('en')
    expect(p.get('num')).toBe('10')
  })
})

describe('scholarSlices', () => {
  it('asks for num in one page up to 20', () => {
    expect(scholarSlices(base)).toEqual([{ start: 0, num: 10 }])
    expect(scholarSlices({ ...base, num: 20 })).toEqual([{ start: 0, num: 20 }])
    expect(scholarSlices({ ...base, page: 4 })).toEqual([{ start: 30, num: 10 }])
  })

  it('covers larger num with consecutive pages of at most 20', () => {
    expect(scholarSlices({ ...base, num: 30 })).toEqual([
      { start: 0, num: 20 },
      { start: 20, num: 10 },
    ])
    expect(scholarSlices({ ...base, num: 50 })).toEqual([
      { start: 0, num: 20 },
      { start: 20, num: 20 },
      { start: 40, num: 10 },
    ])
    const hundred = scholarSlices({ ...base, num: 100 })
    expect(hundred).toHaveLength(5)
    expect(hundred.at(-1)).toEqual({ start: 80, num: 20 })
  })

  it('puts each slice in its own URL', () => {
    const [first, second] = scholarSlices({ ...base, num: 30 })
    const url = new URL(buildGoogleScholarRequest({ ...base, num: 30 }, second).url)
    expect(first).toEqual({ start: 0, num: 20 })
    expect(url.searchParams.get('start')).toBe('20')
    expect(url.searchParams.get('num')).toBe('10')
  })
})
