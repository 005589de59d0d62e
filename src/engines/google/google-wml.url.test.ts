import { describe, expect, it } from 'vitest'
import { searchRequest } from '../../../test/support/engine-requests.ts'
import type { SearchRequest } from '../engine.types.ts'
import { buildGoogleWmlRequest, WML_USER_AGENTS, wmlUserAgent } from './google-wml.url.ts'

const base = searchRequest({ q: 'coffee beans' })
const params = (req: Partial<SearchRequest>, start?: number) => new URL(buildGoogleWmlRequest({ ...base, ...req }, start).url).searchParams

describe('buildGoogleWmlRequest', () => {
  it('asks /wml/search with sca_esv=1, hl, gl and utf8, without lr, cr or num', () => {
    const { url } = buildGoogleWmlRequest(base)
    expect(url).toBe('https://www.google.com/wml/search?q=coffee%20beans&sca_esv=1&hl=en&gl=us&ie=utf8&oe=utf8')
    const p = params({ language: 'pt-BR', country: 'br', num: 50 })
    expect(p.get('hl')).toBe('pt-BR')
    expect(p.get('gl')).toBe('br')
    for (const name of ['lr', 'cr', 'num']) expect(p.has(name)).toBe(false)
  })

  it('asks for the page at start, left out at 0', () => {
    expect(params({}).has('start')).toBe(false)
    expect(params({ page: 3 }).get('start')).toBe('20')
    expect(params({ num: 30 }, 20).get('start')).toBe('20')
    expect(params({ offset: 7 }).get('start')).toBe('7')
  })

  it('sends time and tbs as tbs, safe only when active, nfpr for autocorrect=false, place as uule', () => {
    expect(params({ time: 'week', tbs: 'li:1' }).get('tbs')).toBe('qdr:w,li:1')
    expect(params({}).has('tbs')).toBe(false)
    expect(params({ safe: 'active' }).get('safe')).toBe('active')
    expect(params({ safe: 'off' }).has('safe')).toBe(false)
    expect(params({ autocorrect: false }).get('nfpr')).toBe('1')
    expect(params({}).has('nfpr')).toBe(false)
    expect(buildGoogleWmlRequest({ ...base, location: 'San Francisco, USA' }).url).toContain('&uule=w+CAIQICISU2FuIEZyYW5jaXNjbywgVVNB')
  })

  it('sends a feature-phone User-Agent, Accept */* and the consent cookie', () => {
    const { headers } = buildGoogleWmlRequest(base)
    expect(WML_USER_AGENTS).toContain(headers['User-Agent'])
    expect(headers['User-Agent']).toMatch(/^Nokia.*Profile\/MIDP-2\.0 Configuration\/CLDC-1\.[01]$/)
    expect(headers.Accept).toBe('*/*')
    expect(headers.Cookie).toBe('CONSENT=YES+')
    expect(headers['Accept-Language']).toBe('en')
    // No Chrome client hints: a feature phone sends none.
    expect(Object.keys(headers).filter((h) => h.toLowerCase().startsWith('sec-ch'))).toEqual([])
  })

  it('picks the User-Agent by query: the same for every page of a search, spread over the pool', () => {
    expect(buildGoogleWmlRequest(base, 0).headers['User-Agent']).toBe(buildGoogleWmlRequest(base, 90).headers['User-Agent'])
    const used = new Set(Array.from({ length: 60 }, (_, i) => wmlUserAgent(`query ${i}`)))
    expect(used.size).toBe(WML_USER_AGENTS.length)
  })
})
