import { describe, expect, it } from 'vitest'
import { bingLocaleMismatch } from '../../../test/support/bing-upstream.ts'
import { searchRequest } from '../../../test/support/engine-requests.ts'
import { buildBingSearchRequest } from './bing.request.ts'
import { bingLocale, bingMarket } from './bing.util.ts'
import { buildBingImagesRequest } from './images/bing-images.request.ts'
import { buildBingNewsRequest } from './news/bing-news.request.ts'

/**
 * Bing's market rule (docs/engines.md, bing): mkt, setlang, cc, the _EDGE_CD / _EDGE_S cookies and
 * Accept-Language name one language and one country, the request's, on every Bing request (web,
 * and through it the local pack's places; news; images); a pair Bing has no documented market for
 * sends no mkt and cookies that claim no market. Bing answers a mixed-up locale with off-topic
 * results (serpapi/public-roadmap#4259).
 */

// Every language form the API accepts: bare, with a region (the country's or another), with a script.
const LANGUAGES = ['en', 'en-GB', 'en-US', 'pt', 'pt-BR', 'pt-PT', 'de', 'de-AT', 'fr', 'fr-CA', 'es', 'es-MX', 'it', 'nl', 'ja', 'ko', 'ru', 'ar']
LANGUAGES.push('zh', 'zh-CN', 'zh-TW', 'zh-Hant', 'zh-Hans', 'no', 'nb', 'sv', 'da', 'fi', 'pl', 'tr', 'fil', 'hi', 'id', 'ms', 'he', 'uk', 'el')
const COUNTRIES = ['us', 'gb', 'de', 'at', 'ch', 'fr', 'be', 'ca', 'br', 'pt', 'es', 'mx', 'ar', 'jp', 'kr', 'cn', 'tw', 'hk', 'sg', 'in', 'no', 'se']
COUNTRIES.push('nl', 'ru', 'sa', 'ph', 'id', 'my', 'za', 'nz', 'au', 'ie', 'il', 'ua', 'gr', 'tr', 'pl', 'fi', 'dk', 'it')

const PAIRS = LANGUAGES.flatMap((language) => COUNTRIES.map((country) => [language, country] as const))

/** The request of each Bing builder for a pair, as the wire sees it. */
function requests(language: string, country: string) {
  const web = buildBingSearchRequest(searchRequest({ engine: 'bing', q: 'javascript tutorial', language, country }))
  const news = buildBingNewsRequest({ endpoint: 'news', q: 'heat pump', language, country })
  const images = buildBingImagesRequest({ endpoint: 'images', q: 'heron', language, country })
  return { web, news, images }
}

const primary = (language: string) => {
  const base = (language.split('-')[0] ?? '').toLowerCase()
  return base === 'no' ? 'nb' : base
}

describe('one market on every Bing request', () => {
  it(`${PAIRS.length} language/country pairs: every part names the request's language and country, on web, news and images`, () => {
    for (const [language, country] of PAIRS) {
      for (const [vertical, r] of Object.entries(requests(language, country))) {
        const url = new URL(r.url)
        const at = `${vertical} ${language}/${country}: ${r.url} ${r.headers.Cookie}`
        expect(bingLocaleMismatch(url, { cookie: r.headers.Cookie, acceptLanguage: r.headers['Accept-Language'] }), at).toBeNull()
        expect(url.searchParams.get('cc'), at).toBe(country.toUpperCase())
        // The language named is the request's (its primary subtag), never another.
        expect(primary(url.searchParams.get('setlang') ?? ''), at).toBe(primary(language))
        const mkt = url.searchParams.get('mkt')
        const market = bingMarket(language, country)
        expect(mkt, at).toBe(market ?? null)
        if (mkt) expect(mkt, at).toBe(`${primary(language)}-${country.toUpperCase()}`)
        // Cookies are always sent (they shadow any _EDGE cookie Bing set before) and claim the market only when mkt does.
        expect(r.headers.Cookie, at).toMatch(/^_EDGE_CD=.*; _EDGE_S=/)
        if (!mkt) expect(r.headers.Cookie, at).not.toMatch(/\bm=|mkt=/)
      }
    }
  })

  it('a documented market is sent everywhere at once', () => {
    expect(bingLocale('pt-BR', 'br')).toEqual({
      setlang: 'pt-BR',
      cc: 'BR',
      market: 'pt-BR',
      cookie: '_EDGE_CD=m=pt-br&u=pt-br; _EDGE_S=mkt=pt-br&ui=pt-br',
      acceptLanguage: 'pt-BR,pt;q=0.9,en;q=0.8',
    })
    expect(bingLocale('en', 'us')).toMatchObject({ setlang: 'en-US', market: 'en-US', acceptLanguage: 'en-US,en;q=0.9' })
    expect(bingLocale('zh-Hant', 'tw')).toMatchObject({ setlang: 'zh-TW', market: 'zh-TW' })
    expect(bingLocale('no', 'no')).toMatchObject({ setlang: 'nb-NO', market: 'nb-NO', cookie: '_EDGE_CD=m=nb-no&u=nb-no; _EDGE_S=mkt=nb-no&ui=nb-no' })
  })

  it("the country decides: pt-BR asked from Portugal is Portugal's market, never setlang=pt-BR with mkt=pt-PT", () => {
    const { web } = requests('pt-BR', 'pt')
    const url = new URL(web.url)
    expect(Object.fromEntries(url.searchParams)).toMatchObject({ setlang: 'pt-PT', cc: 'PT', mkt: 'pt-PT' })
    expect(web.headers.Cookie).toBe('_EDGE_CD=m=pt-pt&u=pt-pt; _EDGE_S=mkt=pt-pt&ui=pt-pt')
    expect(web.headers['Accept-Language']).toBe('pt-PT,pt;q=0.9,en;q=0.8')
    expect(bingLocale('en-GB', 'us')).toMatchObject({ setlang: 'en-US', market: 'en-US' })
  })

  it('a pair without a documented market sends no mkt, the language alone and cookies without a market', () => {
    expect(bingLocale('en', 'de')).toEqual({
      setlang: 'en',
      cc: 'DE',
      cookie: '_EDGE_CD=u=en; _EDGE_S=ui=en',
      acceptLanguage: 'en-DE,en;q=0.9',
    })
    expect(bingLocale('pt-BR', 'us')).toMatchObject({ setlang: 'pt', cc: 'US', cookie: '_EDGE_CD=u=pt; _EDGE_S=ui=pt' })
    expect(bingLocale('pt-BR', 'us').market).toBeUndefined()
    expect(bingLocale('zh-Hant', 'sg')).toEqual({
      setlang: 'zh-Hant',
      cc: 'SG',
      cookie: '_EDGE_CD=u=zh-hant; _EDGE_S=ui=zh-hant',
      acceptLanguage: 'zh-Hant-SG,zh;q=0.9,en;q=0.8',
    })
    expect(bingLocale('fil', 'ph').market).toBeUndefined()
  })

  it("the test server's check catches what was sent before (setlang=pt-BR with mkt=pt-PT, cookies of the language's region)", () => {
    const before = new URL('https://www.bing.com/search?q=x&setlang=pt-BR&cc=PT&mkt=pt-PT')
    expect(bingLocaleMismatch(before, { cookie: '_EDGE_CD=m=pt-pt&u=pt-br; _EDGE_S=mkt=pt-pt&ui=pt-br' })).toMatch(/setlang names country BR/)
    const noMarket = new URL('https://www.bing.com/search?q=x&setlang=en&cc=DE')
    expect(bingLocaleMismatch(noMarket, { cookie: '_EDGE_CD=m=en-de&u=en; _EDGE_S=mkt=en-de&ui=en' })).toMatch(/claims market en-de/)
    expect(bingLocaleMismatch(noMarket, { cookie: '_EDGE_CD=u=en; _EDGE_S=ui=en', acceptLanguage: 'en-DE,en;q=0.9' })).toBeNull()
  })
})
