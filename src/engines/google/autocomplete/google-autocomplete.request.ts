/** Builds the Google suggest request for a normalised /v1/autocomplete request. */
import type { VerticalRequest } from '../../engine.types.ts'
import type { GoogleRequest } from '../google-search.url.ts'
import { googleHeaders } from '../google-search.url.ts'

const ENDPOINT = 'https://www.google.com/complete/search'

/**
 * `client=firefox` answers plain JSON, `["q",["s1","s2",…],[],{…}]`: no JavaScript wrapper, no
 * HTML in the suggestions and only query suggestions (`client=chrome` mixes in navigational URLs,
 * `gws-wiz` wraps HTML fragments in a JavaScript call). Browsers have used this client for their
 * search boxes for many years, which keeps it stable. `ie`/`oe` ask for UTF-8 both ways: without
 * them the answer comes in the interface language's legacy charset.
 */
export function buildGoogleAutocompleteRequest(req: VerticalRequest): GoogleRequest {
  const language = req.language ?? 'en'
  const params: [string, string][] = [
    ['client', 'firefox'],
    ['q', req.q ?? ''],
    ['hl', language],
    ['gl', req.country ?? 'us'],
    ['ie', 'UTF-8'],
    ['oe', 'UTF-8'],
  ]
  const query = params.map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('&')
  return { url: `${ENDPOINT}?${query}`, headers: { ...googleHeaders(language), Accept: 'application/json, text/javascript, */*;q=0.1' } }
}
