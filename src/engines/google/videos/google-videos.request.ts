/**
 * Builds the Google Videos request: `tbm=vid` in the basic (no-JS, `gbv=1`) layout, the layout of
 * our real capture, where every result (title, thumbnail, date, duration) is in the HTML.
 */

import { compileSiteOperators } from '../../domain-filter.ts'
import type { VerticalRequest } from '../../engine.types.ts'
import type { GoogleRequest } from '../google-search.url.ts'
import { lrCode } from '../google-search.url.ts'
import { basicLayoutHeaders, pageOffset, tbsOf } from '../google-vertical.util.ts'

const ENDPOINT = 'https://www.google.com/search'

/** The Google URL and headers for `req`. Safe search is sent only when the request carries it. */
export function buildGoogleVideosRequest(req: VerticalRequest): GoogleRequest {
  const language = req.language ?? 'en'
  const num = req.num ?? 10
  const sites = compileSiteOperators(req.include_domains ?? [], req.exclude_domains ?? [])
  const q = req.q ?? ''
  const params: [string, string][] = [
    ['q', sites ? `${q} ${sites}` : q],
    ['tbm', 'vid'],
    ['gbv', '1'],
    ['hl', language],
    ['gl', req.country ?? 'us'],
    ['lr', `lang_${lrCode(language)}`],
  ]
  if (num !== 10) params.push(['num', String(num)])
  const start = pageOffset(req)
  if (start > 0) params.push(['start', String(start)])
  const tbs = tbsOf(req)
  if (tbs) params.push(['tbs', tbs])
  if (req.safe) params.push(['safe', req.safe])
  params.push(['ie', 'UTF-8'], ['oe', 'UTF-8'])
  const query = params.map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('&')
  return { url: `${ENDPOINT}?${query}`, headers: basicLayoutHeaders(language) }
}
