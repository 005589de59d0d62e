/** Builds the Mojeek web-search request (https://www.mojeek.com/search) for a normalised SearchRequest. */

import { acceptLanguage } from '../accept-language.ts'
import type { SearchRequest } from '../engine.types.ts'

export interface MojeekRequest {
  url: string
  headers: Record<string, string>
}

export const MOJEEK_SEARCH_URL = 'https://www.mojeek.com/search'

const UA = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/138.0.0.0 Safari/537.36'

/** The result offset of a request: `offset` when given, else (page - 1) * num. */
export function offsetOf(req: Pick<SearchRequest, 'offset' | 'page' | 'num'>): number {
  return Math.max(0, req.offset ?? (req.page - 1) * req.num)
}

/**
 * Mojeek's `since`: 'day' | 'month' | 'year' or a YYYYMMDD date. A week is the date seven days
 * back; there is nothing finer than a day, so `hour` asks for the past day.
 */
export function mojeekSince(time: NonNullable<SearchRequest['time']>, now: Date): string {
  if (time === 'hour' || time === 'day') return 'day'
  if (time === 'month' || time === 'year') return time
  return new Date(now.getTime() - 7 * 86_400_000).toISOString().slice(0, 10).replace(/-/g, '')
}

/**
 * The Mojeek URL and headers for `req`. `s` (1-based start) is only sent past the first page:
 * Mojeek rate limits clients that send it on page 1. `t` (results per page, default 10) only when
 * more are wanted, so ordinary requests look like the site's own. Language and region go only as
 * the `lb` / `arc` preference cookies the site sets itself: as URL parameters they get a 403
 * ("access denied because of wrong request parameters", SearXNG PR #6120).
 */
export function buildMojeekSearchRequest(req: SearchRequest, now: Date = new Date()): MojeekRequest {
  const lang = (req.language.split('-')[0] ?? req.language).toLowerCase()
  const region = req.country.toLowerCase()
  const params: [string, string][] = [['q', req.q]]
  const offset = offsetOf(req)
  if (offset > 0) params.push(['s', String(offset + 1)])
  if (req.num > 10) params.push(['t', String(req.num)])
  if (req.time) params.push(['since', mojeekSince(req.time, now)])
  params.push(['safe', req.safe === 'active' ? '1' : '0'])
  const query = params.map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('&')
  return {
    url: `${MOJEEK_SEARCH_URL}?${query}`,
    headers: {
      'User-Agent': UA,
      Accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8',
      'Accept-Language': acceptLanguage(req.language),
      'Upgrade-Insecure-Requests': '1',
      Cookie: `lb=${lang}; arc=${region}`,
    },
  }
}
