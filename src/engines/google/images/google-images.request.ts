/**
 * Builds the Google Images request. It asks for the basic (no-JS) image grid, `tbm=isch` with
 * `gbv=1`: that is the layout of our real captures and the one that carries results in the HTML;
 * the JavaScript grid (`udm=2`) loads its results by script.
 */

import { compileSiteOperators } from '../../domain-filter.ts'
import type { VerticalRequest } from '../../engine.types.ts'
import type { GoogleRequest } from '../google-search.url.ts'
import { lrCode } from '../google-search.url.ts'
import { basicLayoutHeaders, pageOffset, tbsOf } from '../google-vertical.util.ts'

const ENDPOINT = 'https://www.google.com/search'

/**
 * The Google URL and headers for `req`. `start` is the result offset to ask for; it defaults to
 * the requested page's offset, and the engine passes later offsets when one grid page (20 images)
 * holds fewer than `num`. The basic grid has a fixed size, so `num` is not sent.
 */
export function buildGoogleImagesRequest(req: VerticalRequest, start = pageOffset(req)): GoogleRequest {
  const language = req.language ?? 'en'
  const sites = compileSiteOperators(req.include_domains ?? [], req.exclude_domains ?? [])
  const q = req.q ?? ''
  const params: [string, string][] = [
    ['q', sites ? `${q} ${sites}` : q],
    ['tbm', 'isch'],
    ['gbv', '1'],
    ['hl', language],
    ['gl', req.country ?? 'us'],
    ['lr', `lang_${lrCode(language)}`],
  ]
  if (start > 0) params.push(['start', String(start)])
  const tbs = tbsOf(req)
  if (tbs) params.push(['tbs', tbs])
  params.push(['safe', req.safe ?? 'off'])
  params.push(['ie', 'UTF-8'], ['oe', 'UTF-8'])
  const query = params.map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('&')
  return { url: `${ENDPOINT}?${query}`, headers: basicLayoutHeaders(language) }
}
