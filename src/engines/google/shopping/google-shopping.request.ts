/**
 * Builds the Google Shopping request: the Shopping tab of web search, `tbm=shop`.
 *
 * `tbm=shop` rather than `udm=28`: it is the selector Google itself links to from web results
 * ("Shopping" tab, "More products" links in our captures), its classic layout renders the product
 * grid in the HTML, and where Google has moved a country to the new Shopping layout it redirects
 * `tbm=shop` there on its own. `udm=28` asks for the new layout outright, which builds most of its
 * grid in the browser.
 */
import type { VerticalRequest } from '../../engine.types.ts'
import type { GoogleRequest } from '../google-search.url.ts'
import { encodeUule, googleHeaders } from '../google-search.url.ts'

const ENDPOINT = 'https://www.google.com/search'

/** Products per Shopping page: `start` moves in steps of 60 (the classic grid's page). */
export const SHOPPING_PAGE_SIZE = 60

/** The Google URL and headers for `req`. Shopping takes no `num`: the page size is Google's. */
export function buildGoogleShoppingRequest(req: VerticalRequest): GoogleRequest {
  const language = req.language ?? 'en'
  const page = req.page ?? 1
  const params: [string, string][] = [
    ['q', req.q ?? ''],
    ['tbm', 'shop'],
    ['hl', language],
    ['gl', req.country ?? 'us'],
  ]
  if (page > 1) params.push(['start', String((page - 1) * SHOPPING_PAGE_SIZE)])
  const uule = req.uule?.trim() || (req.location?.trim() ? encodeUule(req.location.trim()) : undefined)
  if (uule) params.push(['uule', uule])
  params.push(['ie', 'UTF-8'], ['oe', 'UTF-8'])
  const query = params.map(([k, v]) => `${k}=${k === 'uule' ? encodeUuleParam(v) : encodeURIComponent(v)}`).join('&')
  // Prices and merchants are read from the desktop grid, so the desktop browser identity is sent.
  return { url: `${ENDPOINT}?${query}`, headers: googleHeaders(language, 'desktop') }
}

/** Google's own links carry `uule=w+CAIQ…` with a literal "+"; other characters are escaped. */
function encodeUuleParam(v: string): string {
  return v.replace(/[^A-Za-z0-9+_-]/g, (c) => encodeURIComponent(c))
}
