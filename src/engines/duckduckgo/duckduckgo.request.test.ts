import { describe, expect, it } from 'vitest'
import { searchRequest } from '../../../test/support/engine-requests.ts'
import type { SearchRequest } from '../engine.types.ts'
import { planBrowserRequest, secChUa } from '../upstream/browser-headers.ts'
import {
  acceptLanguage,
  buildDjsRequest,
  buildDuckDuckGoRequest,
  buildNextPageRequest,
  buildShellRequest,
  DDG_CHROME_MAJOR,
  DDG_USER_AGENT,
  nextFormFromToken,
  quoteBangs,
  regionOf,
} from './duckduckgo.request.ts'
import { buildDuckDuckGoAutocompleteRequest } from './duckduckgo-autocomplete.ts'

const base = searchRequest({ engine: 'duckduckgo', q: 'rust programming' })
const req = (r: Partial<SearchRequest> = {}): SearchRequest => ({ ...base, ...r })

describe('buildDuckDuckGoRequest', () => {
  it('posts the search form to the html endpoint: q, empty b, kl region, kp', () => {
    const r = buildDuckDuckGoRequest(base)
    expect(r.url).toBe('https://html.duckduckgo.com/html/')
    expect(r.form).toEqual({ q: 'rust programming', b: '', kl: 'us-en', kp: '-2' })
  })

  it("sends Chrome's navigation headers for a form post, the form's charset named, the settings mirrored as cookies", () => {
    const { headers } = buildDuckDuckGoRequest(req({ time: 'week', safe: 'active', country: 'de', language: 'de' }))
    expect(headers).toMatchObject({
      'Cache-Control': 'max-age=0',
      // Without the charset DuckDuckGo answers 202 (searxng#6596).
      'Content-Type': 'application/x-www-form-urlencoded; charset=utf-8',
      Origin: 'https://html.duckduckgo.com',
      Referer: 'https://html.duckduckgo.com/',
      'Accept-Language': 'de,en;q=0.8',
      Cookie: 'kl=de-de; kp=1; df=w',
      'Sec-Fetch-Mode': 'navigate',
      'Sec-Fetch-Site': 'same-origin',
    })
    expect(headers.Accept).toMatch(/^text\/html,.*image\/avif,.*application\/signed-exchange/)
    expect(headers['User-Agent']).toBe(DDG_USER_AGENT)
  })

  it('no header of any request names another form type', () => {
    const next = { q: 'a', s: '10', vqd: '4-1' }
    for (const r of [buildDuckDuckGoRequest(base), buildDuckDuckGoRequest(base, 'lite'), buildNextPageRequest(base, next, 'html')]) {
      const types = Object.entries(r.headers).filter(([k]) => k.toLowerCase() === 'content-type')
      expect(types).toEqual([['Content-Type', 'application/x-www-form-urlencoded; charset=utf-8']])
    }
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

describe('one identity for every DuckDuckGo request', () => {
  it('a current Chrome (131 or later, refused below: duckduckgo-mcp-server#46) on Windows', () => {
    const major = Number(/Chrome\/(\d+)\./.exec(DDG_USER_AGENT)?.[1])
    expect(major).toBe(DDG_CHROME_MAJOR)
    expect(major).toBeGreaterThanOrEqual(131)
    expect(DDG_USER_AGENT).toBe(`Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/${major}.0.0.0 Safari/537.36`)
    expect(DDG_USER_AGENT).not.toMatch(/Firefox|Gecko\/|Edg\//)
  })

  it('html, lite, the Next form, the shell, d.js and autocomplete all send it', () => {
    const uas = [
      buildDuckDuckGoRequest(base).headers,
      buildDuckDuckGoRequest(base, 'lite').headers,
      buildNextPageRequest(base, { q: 'a', s: '10', vqd: '4-1' }, 'html').headers,
      buildShellRequest(base).headers,
      buildDjsRequest(base, 'https://links.duckduckgo.com/d.js?q=a').headers,
      buildDuckDuckGoAutocompleteRequest({ endpoint: 'autocomplete', q: 'rust' }).headers,
    ].map((h) => h['User-Agent'])
    expect(new Set(uas)).toEqual(new Set([DDG_USER_AGENT]))
  })

  it("its TLS profile, header order and client hints are Chrome's of the same version (browser-headers.ts)", () => {
    const lower = (h: Record<string, string>) => Object.fromEntries(Object.entries(h).map(([k, v]) => [k.toLowerCase(), v]))
    const plan = planBrowserRequest(lower(buildDuckDuckGoRequest(base).headers))
    expect(plan.browser).toBe(`chrome${DDG_CHROME_MAJOR}`)
    const sent = new Map(plan.headers)
    expect(sent.get('sec-ch-ua')).toBe(secChUa(DDG_CHROME_MAJOR))
    expect(sent.get('sec-ch-ua-platform')).toBe('"Windows"')
    expect(sent.get('content-type')).toBe('application/x-www-form-urlencoded; charset=utf-8')
    // d.js is a script of the page: no navigation-only header goes with it.
    const script = new Map(planBrowserRequest(lower(buildDjsRequest(base, 'https://links.duckduckgo.com/d.js?q=a').headers)).headers)
    expect(script.get('sec-fetch-dest')).toBe('script')
    expect(script.get('sec-fetch-user')).toBe('')
    expect(script.get('upgrade-insecure-requests')).toBe('')
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
