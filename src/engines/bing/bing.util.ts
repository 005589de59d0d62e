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

/** "pt-BR" → "pt-BR,pt;q=0.9,en;q=0.8"; "en" in the US → "en-US,en;q=0.9". Bing follows this header for locale. */
export function acceptLanguage(language: string, country: string): string {
  const base = (language.split('-')[0] ?? language).toLowerCase()
  const tag = language.includes('-') ? language : `${base}-${country.toUpperCase()}`
  const parts = [tag, `${base};q=0.9`]
  if (base !== 'en') parts.push('en;q=0.8')
  return parts.join(',')
}

// Bing's documented markets (language-COUNTRY). A pair outside the list is sent as cc + setlang only.
const MARKETS = new Set(
  (
    'es-AR en-AU de-AT nl-BE fr-BE pt-BR en-CA fr-CA es-CL da-DK fi-FI fr-FR de-DE zh-HK en-IN en-ID it-IT ja-JP ko-KR en-MY es-MX ' +
    'nl-NL en-NZ nb-NO zh-CN pl-PL pt-PT en-PH ru-RU ar-SA en-ZA es-ES sv-SE fr-CH de-CH zh-TW tr-TR en-GB en-US es-US'
  ).split(' '),
)

/** The Bing market for a language and country ("en" + "gb" → "en-GB"), or undefined when Bing has none. */
export function bingMarket(language: string, country: string): string | undefined {
  const base = (language.split('-')[0] ?? language).toLowerCase()
  const cc = country.toUpperCase()
  const norwegian = base === 'no' ? 'nb' : base
  const market = `${norwegian}-${cc}`
  return MARKETS.has(market) ? market : undefined
}

export const BING_UA = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/138.0.0.0 Safari/537.36'

/** Browser-like headers for every bing.com request, with the locale cookies Bing reads. */
export function bingHeaders(
  language: string,
  country: string,
  accept = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8',
): Record<string, string> {
  const base = (language.split('-')[0] ?? language).toLowerCase()
  const market = bingMarket(language, country) ?? `${base}-${country.toUpperCase()}`
  return {
    'User-Agent': BING_UA,
    Accept: accept,
    'Accept-Language': acceptLanguage(language, country),
    'Upgrade-Insecure-Requests': '1',
    Cookie: `_EDGE_CD=m=${market.toLowerCase()}&u=${language.toLowerCase()}; _EDGE_S=mkt=${market.toLowerCase()}&ui=${language.toLowerCase()}`,
  }
}

/** The locale query parameters shared by web, images and news: setlang, cc and (when Bing has it) mkt. */
export function localeParams(language: string, country: string): [string, string][] {
  const params: [string, string][] = [
    ['setlang', language],
    ['cc', country.toUpperCase()],
  ]
  const market = bingMarket(language, country)
  if (market) params.push(['mkt', market])
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
