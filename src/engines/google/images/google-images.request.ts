/**
 * Builds the Google Images request. It asks for the basic (no-JS) image grid, `tbm=isch` with
 * `gbv=1`: that is the layout of our real captures and the one that carries results in the HTML;
 * the JavaScript grid (`udm=2`) loads its results by script.
 */

import type { VerticalRequest } from '../../engine.types.ts'
import { type GoogleRequest, tbsOf } from '../google-search.url.ts'
import { basicLayoutRequest, pageOffset } from '../google-vertical.util.ts'

/**
 * The Google URL and headers for `req`. `start` is the result offset to ask for; it defaults to
 * the requested page's offset, and the engine passes later offsets when one grid page (20 images)
 * holds fewer than `num`. The basic grid has a fixed size, so `num` is not sent.
 */
export function buildGoogleImagesRequest(req: VerticalRequest, start = pageOffset(req)): GoogleRequest {
  const params: [string, string][] = []
  if (start > 0) params.push(['start', String(start)])
  const tbs = tbsOf(req)
  if (tbs) params.push(['tbs', tbs])
  params.push(['safe', req.safe ?? 'off'])
  return basicLayoutRequest(req, 'isch', params)
}
