/** Builds the Bing web-search request (https://www.bing.com/search) for a normalised SearchRequest. */
import type { SearchRequest } from '../engine.types.ts'
import { adultParam, bingHeaders, localeParams, queryString } from './bing.util.ts'

export interface BingRequest {
  url: string
  headers: Record<string, string>
}

export const BING_SEARCH_URL = 'https://www.bing.com/search'

/** Bing serves ten organic results a page whatever is asked (`count` is no longer honoured). */
export const BING_PAGE_SIZE = 10

const DAY_MS = 86_400_000

/**
 * Bing's time filter, `filters=ex1:"ezN"`: ez1 past 24 hours, ez2 past week, ez3 past month, and
 * ez5_<from>_<to> a range of Unix day numbers (used for the past year). Bing has no past-hour
 * filter for web results, so `hour` asks for the past 24 hours, the narrowest it has.
 */
export function bingTimeFilter(time: NonNullable<SearchRequest['time']>, now: Date): string {
  if (time === 'hour' || time === 'day') return 'ex1:"ez1"'
  if (time === 'week') return 'ex1:"ez2"'
  if (time === 'month') return 'ex1:"ez3"'
  const today = Math.floor(now.getTime() / DAY_MS)
  return `ex1:"ez5_${today - 365}_${today}"`
}

/** The result offset of a request: `offset` when given, else (page - 1) * num. */
export function offsetOf(req: Pick<SearchRequest, 'offset' | 'page' | 'num'>): number {
  return Math.max(0, req.offset ?? (req.page - 1) * req.num)
}

/** The Bing URL and headers for `req`; `now` dates the past-year range. */
export function buildBingSearchRequest(req: SearchRequest, now: Date = new Date()): BingRequest {
  const params: [string, string][] = [['q', req.q]]
  const offset = offsetOf(req)
  if (offset > 0) {
    params.push(['first', String(offset + 1)])
    // What Bing's own pager sends: PERE for page 2, PERE1 for page 3, …
    const pageIndex = Math.floor(offset / BING_PAGE_SIZE)
    params.push(['FORM', pageIndex <= 1 ? 'PERE' : `PERE${pageIndex - 1}`])
  }
  params.push(...localeParams(req.language, req.country))
  if (req.time) params.push(['filters', bingTimeFilter(req.time, now)])
  params.push(adultParam(req.safe))
  return { url: `${BING_SEARCH_URL}?${queryString(params)}`, headers: bingHeaders(req.language, req.country) }
}
