/**
 * Google web search's routes, in the order the engine layer tries them (provider.routes.ts):
 *
 * - `wml`: the feature-phone page `/wml/search` (google-wml.url.ts, google-wml.parse.ts), which
 *   a client running no JavaScript still gets results on;
 * - `web`: the plain `/search` page (desktop, mobile and basic layouts), which today answers such
 *   a client with the JavaScript page, but takes every parameter (`device`, `ads`);
 * - `browser`: the same page drawn by the guarded browser, when this server has one.
 *
 * Every route makes its depth from pages of 10 (search-pages.ts).
 */
import type { ParsedSearchPage, SearchRequest } from '../engine.types.ts'
import type { FetchRoute } from '../provider.types.ts'
import { UpstreamError } from '../upstream/upstream-error.ts'
import { detectGoogleBlockInHtml } from './google-block.detect.ts'
import { type GoogleLayout, readGoogleSearch } from './google-search.parse.ts'
import { buildGoogleSearchRequest } from './google-search.url.ts'
import { readGoogleWml } from './google-wml.parse.ts'
import { buildGoogleWmlRequest } from './google-wml.url.ts'

/** Results on one Google page: Google has ignored `num` since September 2025 (search-pages.ts). */
const GOOGLE_PAGE_SIZE = 10

/**
 * The feature-phone page. It has no mobile or desktop layout to choose (`device`) and no ads
 * (`ads`): requests setting those pass it over for `web`. Place (`location`, `uule`, `ll`) is
 * sent as `uule`, as on `web`.
 */
export const googleWmlRoute: FetchRoute = {
  route: 'wml',
  params: ['page', 'location', 'uule', 'll', 'time', 'tbs', 'safe', 'autocorrect', 'include_domains'],
  pageSize: GOOGLE_PAGE_SIZE,
  request: buildGoogleWmlRequest,
  read: (body) => {
    const { page, layout } = readGoogleWml(body)
    return resultPage(page, layout, body)
  },
}

/** The plain result page, every parameter. */
export const googleWebRoute: FetchRoute = {
  route: 'web',
  pageSize: GOOGLE_PAGE_SIZE,
  request: buildGoogleSearchRequest,
  read: readSearchPage,
}

/**
 * The plain result page drawn by the browser (its scripts run, so the JavaScript page draws the
 * results), read by the same parsers as `web`. Tried last: a page costs a browser tab for seconds.
 * Desktop only (the kept context per engine host has one viewport and User-Agent).
 */
export function googleBrowserRoute(browserRefusal: ((url: string) => string | null) | undefined): FetchRoute {
  return {
    route: 'browser',
    params: ['page', 'location', 'uule', 'll', 'time', 'tbs', 'safe', 'autocorrect', 'ads', 'include_domains'],
    unavailable: () => (browserRefusal ? browserRefusal('https://www.google.com/search') : 'no browser on this server (TRAWL_BROWSER)'),
    pageSize: GOOGLE_PAGE_SIZE,
    request: (req, start) => ({ ...buildGoogleSearchRequest(req, start), render: true }),
    read: readSearchPage,
  }
}

function readSearchPage(body: string, req: SearchRequest): ParsedSearchPage {
  const { page, layout } = readGoogleSearch(body, { includeAds: req.ads === true })
  return resultPage(page, layout, body)
}

/**
 * A page that could not be parsed is a 503 upstream_error (the next route, then engine=auto,
 * move on); only a recognisable result page may say "no results". A refusal the fetch's detector
 * let through is still a refusal.
 */
function resultPage(page: ParsedSearchPage, layout: GoogleLayout | 'wml' | 'blocked', body: string): ParsedSearchPage {
  if (page.results.length > 0) return page
  if (layout === 'blocked') {
    const reason = detectGoogleBlockInHtml(body)
    throw reason ? new UpstreamError('upstream_blocked', reason, []) : new UpstreamError('upstream_error', 'empty page', [])
  }
  if (layout === 'unknown') throw new UpstreamError('upstream_error', 'google answered a page that is not a result page', [])
  return page
}
