/**
 * Builds the Google Lens request: the "search by image URL" entry point Chrome's own new-tab page
 * submits to, `lens.google.com/uploadbyurl?url=<image>`. Google fetches the image itself and
 * redirects to the results page (today a `www.google.com/search?…&udm=26` page; earlier a
 * `lens.google.com/search` page). The upstream client follows that same-site redirect.
 */
import type { VerticalRequest } from '../../engine.types.ts'
import type { GoogleRequest } from '../google-search.url.ts'
import { googleHeaders } from '../google-search.url.ts'

const ENDPOINT = 'https://lens.google.com/uploadbyurl'

/** Chrome refuses image URLs longer than this once encoded; Lens answers them with an error. */
export const LENS_MAX_URL_LENGTH = 2000

/** The Lens URL and headers for `req` (`req.url` is the image URL). */
export function buildGoogleLensRequest(req: VerticalRequest): GoogleRequest {
  const language = req.language ?? 'en'
  const country = (req.country ?? 'us').toLowerCase()
  const params: [string, string][] = [
    ['url', req.url ?? ''],
    // Lens takes a locale ("en-US") rather than a bare language; gl is passed as web search does.
    ['hl', lensLocale(language, country)],
    ['gl', country],
  ]
  const query = params.map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('&')
  return { url: `${ENDPOINT}?${query}`, headers: googleHeaders(language, 'desktop') }
}

/** "en" + "us" → "en-US"; a language that already names a region keeps it ("pt-BR"). */
export function lensLocale(language: string, country: string): string {
  const [base, region] = language.split('-')
  return `${(base ?? language).toLowerCase()}-${(region ?? country).toUpperCase()}`
}
