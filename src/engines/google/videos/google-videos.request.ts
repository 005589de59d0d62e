/**
 * Builds the Google Videos request: `tbm=vid` in the basic (no-JS, `gbv=1`) layout, the layout of
 * our real capture, where every result (title, thumbnail, date, duration) is in the HTML.
 */

import type { VerticalRequest } from '../../engine.types.ts'
import { type GoogleRequest, tbsOf } from '../google-search.url.ts'
import { basicLayoutRequest, pageOffset } from '../google-vertical.util.ts'

/** The Google URL and headers for `req`. Safe search is sent only when the request carries it. */
export function buildGoogleVideosRequest(req: VerticalRequest): GoogleRequest {
  const num = req.num ?? 10
  const params: [string, string][] = []
  if (num !== 10) params.push(['num', String(num)])
  const start = pageOffset(req)
  if (start > 0) params.push(['start', String(start)])
  const tbs = tbsOf(req)
  if (tbs) params.push(['tbs', tbs])
  if (req.safe) params.push(['safe', req.safe])
  return basicLayoutRequest(req, 'vid', params)
}
