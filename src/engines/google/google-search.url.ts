/** Builds the Google web-search request for a normalised SearchRequest, and enforces domain filters. */

import { acceptLanguage } from '../accept-language.ts'
import type { SearchRequest } from '../engine.types.ts'
import { encodeUule, encodeUuleCoordinates } from './google-uule.encode.ts'
import { parseLl } from './maps/google-maps.request.ts'

export { encodeUule } from './google-uule.encode.ts'

/** One upstream request of a Google engine: the real engine URL and the headers to send. */
export interface GoogleRequest {
  url: string
  headers: Record<string, string>
}

const ENDPOINT = 'https://www.google.com/search'

// Keep these on the current stable Chrome: Google serves stripped or "update your browser" pages
// to user agents it considers outdated.
const DESKTOP_UA = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/138.0.0.0 Safari/537.36'
const MOBILE_UA = 'Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/138.0.0.0 Mobile Safari/537.36'

const TIME_RANGE: Record<NonNullable<SearchRequest['time']>, string> = {
  hour: 'qdr:h',
  day: 'qdr:d',
  week: 'qdr:w',
  month: 'qdr:m',
  year: 'qdr:y',
}

// Google keeps the region only for Chinese in `lr` (lang_zh-CN / lang_zh-TW); others are bare.
const LR_WITH_REGION = new Set(['zh-cn', 'zh-tw'])

/**
 * The Google URL and headers for one page of `req`: the page of 10 results starting at `start`
 * (default: the request's own offset). Google has ignored `num` since September 2025 and answers
 * 10 results a page, so `num` is never sent: depth is made of several pages (search-pages.ts).
 *
 * No `lr`: a language restriction empties valid searches (serpapi/public-roadmap#3579 on this
 * page, searxng/searxng#6684 on `/wml/search`); the language goes as `hl`, which ranks without
 * filtering. The image and video verticals (the basic layout) still send it.
 *
 * The location of web results is carried by `uule`: given as is, or made from `location` (a
 * place name) or else from `ll` (its point; web search has no viewport, so the zoom is unused).
 */
export function buildGoogleSearchRequest(req: SearchRequest, start = req.offset ?? (req.page - 1) * req.num): GoogleRequest {
  const params: [string, string][] = []
  // include_domains / exclude_domains arrive as `site:` operators in q (provider.routes.ts).
  params.push(['q', req.q])
  params.push(['hl', req.language])
  params.push(['gl', req.country])
  if (start > 0) params.push(['start', String(start)])
  const tbs = tbsOf(req)
  if (tbs) params.push(['tbs', tbs])
  params.push(['safe', req.safe])
  const uule = uuleOf(req)
  if (uule) params.push(['uule', uule])
  if (req.autocorrect === false) params.push(['nfpr', '1'])
  params.push(['ie', 'UTF-8'], ['oe', 'UTF-8'])
  return { url: `${ENDPOINT}?${googleQuery(params)}`, headers: googleHeaders(req.language, req.device) }
}

/** `time` as `qdr:<unit>`, joined with a caller's raw `tbs`; undefined when neither is set. */
export function tbsOf(req: Pick<SearchRequest, 'time' | 'tbs'>): string | undefined {
  const tbs = [req.time ? TIME_RANGE[req.time] : undefined, req.tbs?.trim() || undefined].filter(Boolean)
  return tbs.length ? tbs.join(',') : undefined
}

/** The request's place as `uule`: a caller's uule as is, else its location text, else its `ll` point. */
export function uuleOf(req: SearchRequest): string | undefined {
  return req.uule?.trim() || (req.location?.trim() ? encodeUule(req.location.trim()) : req.ll ? uuleOfPoint(req.ll) : undefined)
}

/** A query string in the given order; `uule` keeps its literal "+" (see encodeUuleParam). */
export function googleQuery(params: [string, string][]): string {
  return params.map(([k, v]) => `${k}=${k === 'uule' ? encodeUuleParam(v) : encodeURIComponent(v)}`).join('&')
}

function uuleOfPoint(ll: string): string {
  const { lat, lng } = parseLl(ll)
  return encodeUuleCoordinates(lat, lng)
}

export function lrCode(language: string): string {
  const lower = language.toLowerCase()
  if (LR_WITH_REGION.has(lower)) return `zh-${lower.slice(3).toUpperCase()}`
  return lower.split('-')[0] ?? lower
}

/** Google's own links carry `uule=w+CAIQ…` with a literal "+"; other characters are escaped. */
function encodeUuleParam(v: string): string {
  return v.replace(/[^A-Za-z0-9+_-]/g, (c) => encodeURIComponent(c))
}

/** Browser-like headers every Google vertical sends (consent pre-answered, Chrome client hints). */
export function googleHeaders(language: string, device: 'desktop' | 'mobile' = 'desktop'): Record<string, string> {
  const mobile = device === 'mobile'
  return {
    'User-Agent': mobile ? MOBILE_UA : DESKTOP_UA,
    Accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8',
    'Accept-Language': acceptLanguage(language),
    'Sec-CH-UA-Mobile': mobile ? '?1' : '?0',
    'Sec-CH-UA-Platform': mobile ? '"Android"' : '"Windows"',
    'Upgrade-Insecure-Requests': '1',
    // Pre-answered consent: without it EU exits get the "Before you continue" wall.
    Cookie: 'CONSENT=YES+; SOCS=CAESHAgBEhIaAB',
  }
}
