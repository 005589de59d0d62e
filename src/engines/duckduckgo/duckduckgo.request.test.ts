import { describe, expect, it } from 'vitest'
import { searchRequest } from '../../../test/support/engine-requests.ts'
import type { SearchRequest } from '../engine.types.ts'
import {
  acceptLanguage,
  buildDjsRequest,
  buildDuckDuckGoRequest,
  buildNextPageRequest,
  buildShellRequest,
  nextFormFromToken,
  quoteBangs,
  regionOf,
} from './duckduckgo.request.ts'

const base = searchRequest({ engine: 'duckduckgo', q: 'rust programming' })
const req = (r: Partial<SearchRequest> = {}): SearchRequest => ({ ...base, ...r })

describe('buildDuckDuckGoRequest', () => {
  it('posts the search form to the html endpoint: q, empty b, kl region, kp', () => {
    const r = buildDuckDuckGoRequest(base)
    expect(r.url).toBe('https://html.duckduckgo.com/html/')
    expect(r.form).toEqual({ q: 'rust programming', b: '', kl: 'us-en', kp: '-2' })
  })

  it('sends browser navigation headers with the settings mirrored as cookies', () => {
    const { headers } = buildDuckDuckGoRequest(req({ time: 'week', safe: 'active', country: 'de', language: 'de' }))
    expect(headers).toMatchObject({
      'Content-Type': 'application/x-www-form-urlencoded',
      Origin: 'https://html.duckduckgo.com',
      Referer: 'https://html.duckduckgo.com/',
      'Accept-Language': 'de,en;q=0.8',
      Cookie: 'kl=de-de; kp=1; df=w',
      'Sec-Fetch-Mode': 'navigate',
      'Sec-Fetch-Site': 'same-origin',
    })
    expect(headers['User-Agent']).toMatch(/Firefox\/\d+/)
  })

  it('maps time to df (hour as the past day) and safe to kp', () => {
    expect(buildDuckDuckGoRequest(req({ time: 'day' })).form.df).toBe('d')
    expect(buildDuckDuckGoRequest(req({ time: 'hour' })).form.df).toBe('d')
    expect(buildDuckDuckGoRequest(req({ time: 'month' })).form.df).toBe('m')
    expect(buildDuckDuckGoRequest(req({ time: 'year' })).form.df).toBe('y')
    expect(buildDuckDuckGoRequest(base).form.df).toBeUndefined()
    expect(buildDuckDuckGoRequest(req({ safe: 'active' })).form.kp).toBe('1')
  })

  it('asks the lite endpoint with the same form', () => {
    const r = buildDuckDuckGoRequest(base, 'lite')
    expect(r.url).toBe('https://lite.duckduckgo.com/lite/')
    expect(r.headers.Referer).toBe('https://lite.duckduckgo.com/')
    expect(r.form).toEqual(buildDuckDuckGoRequest(base).form)
  })

  it('refuses queries DuckDuckGo rejects (500 characters or more)', () => {
    expect(() => buildDuckDuckGoRequest(req({ q: 'a'.repeat(500) }))).toThrow(/longer than 499/)
    expect(() => buildDuckDuckGoRequest(req({ q: 'a'.repeat(499) }))).not.toThrow()
  })
})

describe('later pages', () => {
  const next = { q: 'rust programming', s: '10', nextParams: '', v: 'l', o: 'json', dc: '11', api: 'd.js', vqd: '4-2281', kl: 'wt-wt' }

  it("posts the site's Next form, adding kp", () => {
    expect(buildNextPageRequest(base, next, 'html').form).toEqual({ ...next, kp: '-2' })
  })

  it('moves s and dc to a given offset', () => {
    expect(buildNextPageRequest(base, next, 'html', 40).form).toMatchObject({ s: '40', dc: '41', vqd: '4-2281' })
  })

  it('rebuilds the Next form from a kept token', () => {
    expect(nextFormFromToken(req({ time: 'year', country: 'gb' }), '4-9', 25)).toEqual({
      q: 'rust programming',
      s: '25',
      nextParams: '',
      v: 'l',
      o: 'json',
      dc: '26',
      api: 'd.js',
      vqd: '4-9',
      kl: 'uk-en',
      df: 'y',
    })
  })
})

describe('regionOf', () => {
  it("picks the country's region for the language, else its first, else wt-wt", () => {
    expect(regionOf('us', 'en')).toBe('us-en')
    expect(regionOf('us', 'es')).toBe('us-es')
    expect(regionOf('ca', 'fr')).toBe('ca-fr')
    expect(regionOf('ch', 'it')).toBe('ch-de')
    expect(regionOf('br', 'pt-BR')).toBe('br-pt')
    expect(regionOf('gb', 'en')).toBe('uk-en')
    expect(regionOf('jp', 'ja')).toBe('jp-jp')
    expect(regionOf('tw', 'zh-TW')).toBe('tw-tzh')
    expect(regionOf('sa', 'ar')).toBe('xa-ar')
    expect(regionOf('es', 'ca')).toBe('es-ca')
    expect(regionOf('zz', 'en')).toBe('wt-wt')
  })
})

describe('acceptLanguage', () => {
  it('lists the language, its base and English', () => {
    expect(acceptLanguage('en')).toBe('en')
    expect(acceptLanguage('pt-BR')).toBe('pt-BR,pt;q=0.9,en;q=0.8')
  })
})

describe('quoteBangs', () => {
  it('wraps every token starting with ! in single quotes, anywhere in the query', () => {
    expect(quoteBangs('!w coffee')).toBe("'!w' coffee")
    expect(quoteBangs('coffee !w')).toBe("coffee '!w'")
    expect(quoteBangs('! first result')).toBe("'!' first result")
    expect(quoteBangs('a  !g\tb !yt')).toBe("a  '!g'\tb '!yt'")
  })

  it('leaves other queries alone: a ! inside a word, an already quoted bang', () => {
    expect(quoteBangs('hello! world')).toBe('hello! world')
    expect(quoteBangs('rust programming')).toBe('rust programming')
    expect(quoteBangs('"!g" search')).toBe('"!g" search')
  })

  it('is what the html form, the token form and the shell URL send', () => {
    expect(buildDuckDuckGoRequest(req({ q: '!w rust' })).form.q).toBe("'!w' rust")
    expect(nextFormFromToken(req({ q: '!w rust' }), '4-1', 10).q).toBe("'!w' rust")
    expect(new URL(buildShellRequest(req({ q: '!w rust' })).url).searchParams.get('q')).toBe("'!w' rust")
  })

  it('counts the quotes against the 499-character limit', () => {
    expect(() => buildDuckDuckGoRequest(req({ q: `!w ${'a'.repeat(495)}` }))).toThrow(/longer than 499/)
  })
})

describe('the djs requests', () => {
  it('the shell: GET duckduckgo.com/?q=…&t=h_&ia=web with kl, kp and df, navigation headers', () => {
    const r = buildShellRequest(req({ time: 'month', safe: 'active', country: 'de', language: 'de' }))
    expect(r.url).toBe('https://duckduckgo.com/?q=rust+programming&t=h_&ia=web&kl=de-de&kp=1&df=m')
    expect(r.headers).toMatchObject({
      'Accept-Language': 'de,en;q=0.8',
      'Sec-Fetch-Dest': 'document',
      'Sec-Fetch-Mode': 'navigate',
      Referer: 'https://duckduckgo.com/',
    })
    expect(r.headers.Cookie).toBeUndefined()
    expect(buildShellRequest(base).url).toBe('https://duckduckgo.com/?q=rust+programming&t=h_&ia=web&kl=us-en&kp=-2')
  })

  it('d.js: the URL as given, script headers with the same User-Agent', () => {
    const r = buildDjsRequest(base, 'https://links.duckduckgo.com/d.js?q=a&dp=x')
    expect(r.url).toBe('https://links.duckduckgo.com/d.js?q=a&dp=x')
    expect(r.headers).toMatchObject({ Accept: '*/*', 'Sec-Fetch-Dest': 'script', 'Sec-Fetch-Mode': 'no-cors', 'Sec-Fetch-Site': 'same-site' })
    expect(r.headers['User-Agent']).toBe(buildShellRequest(base).headers['User-Agent'])
  })
})
