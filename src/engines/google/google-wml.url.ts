/**
 * The request of Google's feature-phone result page (`/wml/search`), the route that answers a
 * client running no JavaScript since Google's plain `/search` started sending such clients the
 * `/httpservice/retry/enablejs` page. Request shape after SearXNG's google engine (commit
 * a4cb7df05, https://github.com/searxng/searxng/pull/6546 for
 * https://github.com/searxng/searxng/issues/6359): old Nokia/MIDP User-Agents, `sca_esv=1`,
 * `ie`/`oe=utf8`, `Accept: *\/*`, the cookie `CONSENT=YES+`, no `lr` (a language restriction empties the page).
 */
import { acceptLanguage } from '../accept-language.ts'
import type { SearchRequest } from '../engine.types.ts'
import { type GoogleRequest, googleQuery, tbsOf, uuleOf } from './google-search.url.ts'

const ENDPOINT = 'https://www.google.com/wml/search'

/** Feature-phone User-Agents Google answers the WML page to (SearXNG's pool). */
export const WML_USER_AGENTS = [
  'Nokia7610/2.0 (5.0509.0) SymbianOS/7.0s Series60/2.1 Profile/MIDP-2.0 Configuration/CLDC-1.0',
  'Nokia7610/2.0 (7.0642.0) SymbianOS/7.0s Series60/2.1 Profile/MIDP-2.0 Configuration/CLDC-1.0',
  'Nokia6230/2.0 (05.50) Profile/MIDP-2.0 Configuration/CLDC-1.1',
  'Nokia6230i/2.0 (03.80) Profile/MIDP-2.0 Configuration/CLDC-1.1',
  'Nokia6280/2.0 (03.60) Profile/MIDP-2.0 Configuration/CLDC-1.1',
  'NokiaN72/2.0617.1.0.3 Series60/2.8 Profile/MIDP-2.0 Configuration/CLDC-1.1',
] as const

/**
 * One page of 10 results of `req` from `/wml/search`, starting at `start`.
 *
 * - `country` is sent as `gl` (the boost the `web` route sends too), never as `cr=country<CC>`:
 *   `cr` keeps only documents from that country, and a request always has a country (`us` by
 *   default), so it would narrow every search.
 * - `location` / `uule` / `ll` are sent as `uule`, as on the `web` route (best effort there too).
 * - `time` / `tbs` as `tbs`, `safe=active` only when asked (off is Google's default), `nfpr=1`
 *   for `autocorrect=false`; domain filters arrive as `site:` operators in `q`.
 */
export function buildGoogleWmlRequest(req: SearchRequest, start = req.offset ?? (req.page - 1) * req.num): GoogleRequest {
  const params: [string, string][] = [
    ['q', req.q],
    ['sca_esv', '1'],
    ['hl', req.language],
    ['gl', req.country],
    ['ie', 'utf8'],
    ['oe', 'utf8'],
  ]
  if (start > 0) params.push(['start', String(start)])
  const tbs = tbsOf(req)
  if (tbs) params.push(['tbs', tbs])
  if (req.safe === 'active') params.push(['safe', 'active'])
  const uule = uuleOf(req)
  if (uule) params.push(['uule', uule])
  if (req.autocorrect === false) params.push(['nfpr', '1'])
  return { url: `${ENDPOINT}?${googleQuery(params)}`, headers: wmlHeaders(req) }
}

/** A feature phone's headers: its User-Agent (the same one for a given query), any type accepted, consent pre-answered. */
function wmlHeaders(req: SearchRequest): Record<string, string> {
  return {
    'User-Agent': wmlUserAgent(req.q),
    Accept: '*/*',
    'Accept-Language': acceptLanguage(req.language),
    Cookie: 'CONSENT=YES+',
  }
}

/**
 * A User-Agent of the pool, picked by the query: the pages of one search share a phone, and
 * different searches spread over the pool. Deterministic, so a request can be replayed as sent.
 */
export function wmlUserAgent(q: string): string {
  let h = 0
  for (let i = 0; i < q.length; i++) h = (h * 31 + q.charCodeAt(i)) >>> 0
  return WML_USER_AGENTS[h % WML_USER_AGENTS.length] as string
}
