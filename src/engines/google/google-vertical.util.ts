/**
 * Pieces the Google image, video and news verticals share: the basic-layout request, and turning
 * a parsed list into the requested page (domain filters, num, positions).
 */

import { acceptLanguage } from '../accept-language.ts'
import { compileSiteOperators, keepDomains as keepDomainsOf } from '../domain-filter.ts'
import type { VerticalRequest } from '../engine.types.ts'
import { type GoogleRequest, lrCode } from './google-search.url.ts'

// Whoogle's choice for the no-JS layout: Google serves the basic page (the one our image and
// video captures show) to Opera Mobile on Presto, and that browser sends no client hints.
const BASIC_LAYOUT_UA = 'Opera/9.80 (Android 4.1.2; Linux; Opera Mobi/ADR-1305251841) Presto/2.11.355 Version/12.10'

/** Headers that ask Google for the basic (gbv=1, no-JS) layout. */
export function basicLayoutHeaders(language: string): Record<string, string> {
  return {
    'User-Agent': BASIC_LAYOUT_UA,
    Accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8',
    'Accept-Language': acceptLanguage(language),
    // Pre-answered consent: without it EU exits get the "Before you continue" wall.
    Cookie: 'CONSENT=YES+; SOCS=CAESHAgBEhIaAB',
  }
}

/**
 * The basic-layout (gbv=1) search for the vertical `tbm`: the query with its site operators, the
 * language (also as `lr`: these layouts honour it) and country, then `rest` in order.
 */
export function basicLayoutRequest(req: VerticalRequest, tbm: string, rest: [string, string][]): GoogleRequest {
  const language = req.language ?? 'en'
  const sites = compileSiteOperators(req.include_domains ?? [], req.exclude_domains ?? [])
  const q = req.q ?? ''
  const params: [string, string][] = [
    ['q', sites ? `${q} ${sites}` : q],
    ['tbm', tbm],
    ['gbv', '1'],
    ['hl', language],
    ['gl', req.country ?? 'us'],
    ['lr', `lang_${lrCode(language)}`],
    ...rest,
    ['ie', 'UTF-8'],
    ['oe', 'UTF-8'],
  ]
  const query = params.map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('&')
  return { url: `https://www.google.com/search?${query}`, headers: basicLayoutHeaders(language) }
}

/** Index of the first result of the requested page: page 2 of num=10 starts after 10 results. */
export const pageOffset = (req: VerticalRequest): number => (Math.max(1, req.page ?? 1) - 1) * (req.num ?? 10)

/**
 * Items outside `include_domains` or inside `exclude_domains`, judged on the URL `urlOf` gives
 * (the web engine's rules). Items without a URL cannot be checked and are dropped when a filter is set.
 */
export function keepDomains<T>(items: T[], req: VerticalRequest, urlOf: (item: T) => string | undefined): T[] {
  return keepDomainsOf(items, req.include_domains ?? [], req.exclude_domains ?? [], urlOf)
}

/** The requested page of `items`: domain filters applied, cut to `num`, positions counted from the page offset. */
export function pageOf<T extends { position: number }>(items: T[], req: VerticalRequest, urlOf: (item: T) => string | undefined, offset: number): T[] {
  const kept = keepDomains(items, req, urlOf).slice(0, req.num ?? 10)
  return kept.map((item, i) => ({ ...item, position: offset + i + 1 }))
}
