/** Builds the Bing News request: the RSS rendering of https://www.bing.com/news/search. */
import type { VerticalRequest } from '../../engine.types.ts'
import type { BingRequest } from '../bing.request.ts'
import { adultParam, bingHeaders, localeParams, queryString, verticalBasics } from '../bing.util.ts'

export const BING_NEWS_URL = 'https://www.bing.com/news/search'

/**
 * Bing News' date filter, qft=interval="N": 4 past hour, 7 past 24 hours, 8 past 7 days, 9 past
 * 30 days. There is none for a year; Bing News keeps recent articles only, so `year` sends none.
 */
const INTERVAL: Partial<Record<NonNullable<VerticalRequest['time']>, string>> = { hour: '4', day: '7', week: '8', month: '9' }

export function buildBingNewsRequest(req: VerticalRequest): BingRequest {
  const { offset, language, country } = verticalBasics(req)
  const params: [string, string][] = [
    ['q', req.q ?? ''],
    ['format', 'rss'],
  ]
  if (offset > 0) params.push(['first', String(offset + 1)])
  params.push(...localeParams(language, country))
  const interval = req.time ? INTERVAL[req.time] : undefined
  if (interval) params.push(['qft', `interval="${interval}"`])
  params.push(adultParam(req.safe))
  return {
    url: `${BING_NEWS_URL}?${queryString(params)}`,
    headers: bingHeaders(language, country, 'application/rss+xml,application/xml;q=0.9,*/*;q=0.8'),
  }
}
