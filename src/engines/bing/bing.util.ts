/** Small helpers the Bing parsers and request builders share: text, URLs, locale. */
import type { SearchRequest, VerticalRequest } from '../engine.types.ts'
import { httpUrl, normText } from '../parse/text.ts'

const BING_ORIGIN = 'https://www.bing.com'

// normText's invisible marks plus the private-use U+E000 / U+E001 pair Bing wraps around
// highlighted words in JSON data.
const BING_MARKS = /[\u200b-\u200f\u202a-\u202e\u2060\ufeff\ue000\ue001]/g

/** Text with Bing's invisible and highlight marks dropped, whitespace collapsed, trimmed. */
export const bingText = (s: string | null | undefined): string => normText(s, BING_MARKS)

export function isBingHost(host: string): boolean {
  const h = host.toLowerCase()
  return h === 'bing.com' || h.endsWith('.bing.com')
}

/**
 * The target of a result link. Bing wraps links in `/ck/a?…&u=a1<base64url(target)>` on the
 * normal layout and in `/news/apiclick.aspx?…&url=<target>` in news feeds; the no-JS layout links
 * directly. Relative links resolve against bing.com. Ad clicks (`/aclick`) have no readable
 * target and give undefined.
 */
export function unwrapBingLink(href: string | undefined | null): string | undefined {
  const raw = href?.trim()
  if (!raw) return undefined
  let u: URL
  try {
    u = new URL(raw, BING_ORIGIN)
  } catch {
    return undefined
  }
  if (!isBingHost(u.hostname)) return httpUrl(u.toString())
  const path = u.pathname.toLowerCase()
  if (path === '/ck/a') return decodeCkTarget(u.searchParams.get('u'))
  if (path === '/news/apiclick.aspx') return httpUrl(u.searchParams.get('url')?.trim())
  if (path.startsWith('/aclick')) return undefined
  return httpUrl(u.toString())
}

/** `a1aHR0cHM6Ly9…` → `https://…`: a one-letter-one-digit scheme tag, then unpadded base64url. */
function decodeCkTarget(u: string | null): string | undefined {
  if (!u) return undefined
  if (!u.startsWith('a1')) return httpUrl(u.trim())
  try {
    return httpUrl(Buffer.from(u.slice(2), 'base64url').toString('utf8').trim())
  } catch {
    return undefined
  }
}

/**
 * Bing's documented markets (language-COUNTRY): the market-code table of the Bing Web Search API
 * (learn.microsoft.com/bing/search-apis/bing-web-search/reference/market-codes), with pt-PT and
 * ar-SA from its earlier Azure edition. Norwegian is sent as nb-NO, the code bing.com's own region
 * list uses (the table writes no-NO); `no` and `nb` both reach it.
 */
const MARKETS = new Set(
  (
    'es-AR en-AU de-AT nl-BE fr-BE pt-BR en-CA fr-CA es-CL da-DK fi-FI fr-FR de-DE zh-HK en-IN en-ID it-IT ja-JP ko-KR en-MY es-MX ' +
    'nl-NL en-NZ nb-NO zh-CN pl-PL pt-PT en-PH ru-RU ar-SA en-ZA es-ES sv-SE fr-CH de-CH zh-TW tr-TR en-GB en-US es-US'
  ).split(' '),
)

/**
 * Everything of one Bing request that names a language or a country. Bing answers 200 with
 * off-topic results when these disagree (serpapi/public-roadmap#4259; ddgs disabled its Bing
 * engine for the same "irrelevant results"), so they are made from one decision, never mixed:
 *
 * - the country is the request's `country`; the language is the primary subtag of the request's
 *   `language` (`pt-BR` → `pt`; `no` → `nb`), its script kept (`zh-Hant`), its region dropped
 *   (a region in `language` that is not the country would name a second country);
 * - when `<language>-<COUNTRY>` is a documented market (MARKETS): `mkt`, `setlang` and the cookies
 *   `_EDGE_CD=m=…&u=…` / `_EDGE_S=mkt=…&ui=…` all carry that market, `cc` its country, and
 *   Accept-Language starts with it (pt-BR with country pt sends pt-PT everywhere);
 * - otherwise no `mkt`: `setlang` is the language alone, `cc` the country, and the cookies carry
 *   only the UI language (`_EDGE_CD=u=en; _EDGE_S=ui=en`), no market; they are still sent, so
 *   the ones Bing set on an earlier answer (the session jar keeps them) cannot claim its market.
 *   Accept-Language is `<language>-<COUNTRY>`: the same pair, as a browser set so would send it.
 */
export interface BingLocale {
  /** `setlang`: the market, else the language alone. */
  setlang: string
  /** `cc`: the request's country, upper case. */
  cc: string
  /** `mkt`: the documented market of the request's language and country; undefined when Bing has none. */
  market?: string
  /** The _EDGE_CD and _EDGE_S cookies, as a Cookie header. */
  cookie: string
  acceptLanguage: string
}

/** The language part of a request's `language` for Bing: primary subtag (no → nb) and script, never a region. */
function bingLanguage(language: string): { base: string; tag: string } {
  const [first = '', second] = language.split('-')
  const lower = first.toLowerCase()
  const base = lower === 'no' ? 'nb' : lower
  const script = second && second.length === 4 ? `${second[0]?.toUpperCase()}${second.slice(1).toLowerCase()}` : undefined
  return { base, tag: script ? `${base}-${script}` : base }
}

/** The one locale decision of a Bing request (see BingLocale). */
export function bingLocale(language: string, country: string): BingLocale {
  const { base, tag } = bingLanguage(language)
  const cc = country.toUpperCase()
  const market = bingMarket(language, country)
  const fallback = base === 'en' ? [] : ['en;q=0.8']
  if (market) {
    const m = market.toLowerCase()
    return {
      setlang: market,
      cc,
      market,
      cookie: `_EDGE_CD=m=${m}&u=${m}; _EDGE_S=mkt=${m}&ui=${m}`,
      acceptLanguage: [market, `${base};q=0.9`, ...fallback].join(','),
    }
  }
  const ui = tag.toLowerCase()
  return {
    setlang: tag,
    cc,
    cookie: `_EDGE_CD=u=${ui}; _EDGE_S=ui=${ui}`,
    acceptLanguage: [`${tag}-${cc}`, `${base};q=0.9`, ...fallback].join(','),
  }
}

/** The Bing market for a language and country ("en" + "gb" → "en-GB", "pt-BR" + "pt" → "pt-PT"), or undefined when Bing has none. */
export function bingMarket(language: string, country: string): string | undefined {
  const market = `${bingLanguage(language).base}-${country.toUpperCase()}`
  return MARKETS.has(market) ? market : undefined
}

export const BING_UA = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/138.0.0.0 Safari/537.36'

/** Browser-like headers for every bing.com request, with the locale cookies Bing reads (bingLocale). */
export function bingHeaders(
  language: string,
  country: string,
  accept = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8',
): Record<string, string> {
  const locale = bingLocale(language, country)
  return {
    'User-Agent': BING_UA,
    Accept: accept,
    'Accept-Language': locale.acceptLanguage,
    'Upgrade-Insecure-Requests': '1',
    Cookie: locale.cookie,
  }
}

/** The locale query parameters shared by web, images and news: setlang, cc and (when Bing has it) mkt, from bingLocale. */
export function localeParams(language: string, country: string): [string, string][] {
  const locale = bingLocale(language, country)
  const params: [string, string][] = [
    ['setlang', locale.setlang],
    ['cc', locale.cc],
  ]
  if (locale.market) params.push(['mkt', locale.market])
  return params
}

/** Bing's SafeSearch parameter: strict for safe=active, else off. */
export const adultParam = (safe: SearchRequest['safe'] | undefined): [string, string] => ['adlt', safe === 'active' ? 'strict' : 'off']

/** The page size, result offset and locale of a news or images request, defaults filled in (10 a page, page 1, "en", "us"). */
export function verticalBasics(req: VerticalRequest): { num: number; offset: number; language: string; country: string } {
  const num = req.num ?? 10
  return { num, offset: (Math.max(1, req.page ?? 1) - 1) * num, language: req.language ?? 'en', country: req.country ?? 'us' }
}

/** Query string with %20 for spaces, as Bing's own forms send. */
export function queryString(params: [string, string][]): string {
  return params.map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('&')
}

/** Last number printed in `s` ("11-20 of 1.230.000 results" → 1230000), or undefined. */
export function lastCount(s: string): number | undefined {
  const groups = s.match(/\d[\d.,\s\u00a0\u202f']*/g)
  const last = groups?.at(-1)?.replace(/\D/g, '')
  if (!last) return undefined
  const n = Number(last)
  return Number.isSafeInteger(n) ? n : undefined
}
