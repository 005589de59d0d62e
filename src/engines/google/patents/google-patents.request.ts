/** Builds the Google Patents search request for a normalised /v1/patents request. */
import type { VerticalRequest } from '../../engine.types.ts'
import type { GoogleRequest } from '../google-search.url.ts'
import { googleHeaders } from '../google-search.url.ts'

const ENDPOINT = 'https://patents.google.com/xhr/query'

/**
 * The JSON endpoint the patents.google.com page itself calls. It takes the page's own query
 * string (`q=…&num=…&page=…`) URL-encoded as its single `url` parameter, so the result list comes
 * back as JSON instead of a JavaScript-rendered page. Patents pages are 0-based (`page=1` is the
 * second page); the first page is sent without `page`.
 */
export function buildGooglePatentsRequest(req: VerticalRequest): GoogleRequest {
  const num = req.num ?? 10
  const page = req.page ?? 1
  const inner: [string, string][] = [
    ['q', req.q ?? ''],
    ['num', String(num)],
  ]
  if (page > 1) inner.push(['page', String(page - 1)])
  const innerQuery = inner.map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('&')
  return {
    url: `${ENDPOINT}?url=${encodeURIComponent(innerQuery)}&exp=`,
    headers: {
      ...googleHeaders('en'),
      Accept: 'application/json, text/plain, */*',
      Referer: 'https://patents.google.com/',
    },
  }
}
