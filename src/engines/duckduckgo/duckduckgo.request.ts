/**
 * Builds DuckDuckGo's web search requests.
 * - html and lite routes: a form POST to html.duckduckgo.com/html/ (or lite.duckduckgo.com/lite/),
 *   the way the site's own search box and "Next" button send it. Page 1 is `q`, `b=` (empty), `kl`
 *   region, `df` time; later pages post the fields of the previous page's "Next" form (`s` offset,
 *   `dc` = s+1, `vqd` token, `api=d.js`, …).
 * - djs route: a GET of the JS app's page `duckduckgo.com/?q=…` (the shell), then a GET of the
 *   `links.duckduckgo.com/d.js?…` URL the shell preloads (duckduckgo.djs.ts reads both).
 * Every route sends the query with its `!bang` tokens quoted (quoteBangs).
 */
import { ApiError } from '../../errors.ts'
import type { SearchRequest } from '../engine.types.ts'

export type DuckDuckGoEndpoint = 'html' | 'lite'

export const ENDPOINTS: Record<DuckDuckGoEndpoint, string> = {
  html: 'https://html.duckduckgo.com/html/',
  lite: 'https://lite.duckduckgo.com/lite/',
}

export interface DuckDuckGoRequest {
  url: string
  headers: Record<string, string>
  form: Record<string, string>
}

/**
 * The one browser every DuckDuckGo request is sent as: html, lite, the shell, d.js and autocomplete.
 *
 * DuckDuckGo answers 202 with an empty anomaly page when the User-Agent names another browser
 * family than the TLS handshake (a Firefox UA over a Chrome or Python hello), when the cipher order
 * is not a browser's, when a form is posted without `; charset=utf-8` (searxng/searxng#6596), and
 * to Chrome handshakes older than 131 (nickclyde/duckduckgo-mcp-server#46: chrome124 gets 202,
 * chrome131 gets 200). Trawl's transport picks the TLS profile, header order and `Sec-CH-UA` from
 * this UA (upstream/browser-headers.ts): Chrome 151 gets impit's `chrome151` hello, the newest Chrome
 * profile Trawl knows. The `vqd` token is bound to the UA that fetched it (searxng/searxng#6658):
 * tokens and d.js links are kept under this UA (duckduckgo.search.ts), so a change of identity
 * never sends an old token.
 */
export const DDG_CHROME_MAJOR = 151
export const DDG_USER_AGENT = `Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/${DDG_CHROME_MAJOR}.0.0.0 Safari/537.36`

/** Chrome's Accept for a top-level navigation (a form post included). */
const NAVIGATION_ACCEPT =
  'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,image/apng,*/*;q=0.8,application/signed-exchange;v=b3;q=0.7'

/** The form's type with its charset: DuckDuckGo answers a form posted without it with 202 (searxng#6596). */
export const FORM_CONTENT_TYPE = 'application/x-www-form-urlencoded; charset=utf-8'

// DuckDuckGo's regions (the `kl` select of the html and lite forms), `<country>-<language>`.
const REGIONS = (
  'ar-es au-en at-de be-fr be-nl br-pt bg-bg ca-en ca-fr ct-ca cl-es cn-zh co-es hr-hr cz-cs dk-da ee-et fi-fi fr-fr de-de gr-el ' +
  'hk-tzh hu-hu is-is in-en id-en ie-en il-en it-it jp-jp kr-kr lv-lv lt-lt my-en mx-es nl-nl nz-en no-no pk-en pe-es ph-en pl-pl ' +
  'pt-pt ro-ro ru-ru xa-ar sg-en sk-sk sl-sl za-en es-ca es-es se-sv ch-de ch-fr tw-tzh th-en tr-tr us-en us-es ua-uk uk-en vn-en'
).split(' ')

// ISO country codes DuckDuckGo spells its own way.
const COUNTRY_ALIASES: Record<string, string> = { gb: 'uk', sa: 'xa', si: 'sl' }
// Region language parts that are not ISO language codes.
const LANGUAGE_ALIASES: Record<string, string> = { tzh: 'zh', jp: 'ja', kr: 'ko' }

const TIME: Record<NonNullable<SearchRequest['time']>, string> = {
  // DuckDuckGo has no past-hour filter: the past day is the narrowest it offers.
  hour: 'd',
  day: 'd',
  week: 'w',
  month: 'm',
  year: 'y',
}

/** DuckDuckGo refuses queries of 500 characters or more. */
export const MAX_QUERY_LENGTH = 499

/**
 * The `kl` region for a country and language: the country's region whose language matches,
 * else its first region, else `wt-wt` (no region) for a country DuckDuckGo has no region for.
 */
export function regionOf(country: string, language: string): string {
  const cc = COUNTRY_ALIASES[country.toLowerCase()] ?? country.toLowerCase()
  const lang = language.toLowerCase().split('-')[0] ?? ''
  const candidates = REGIONS.filter((r) => r.startsWith(`${cc}-`))
  const langOf = (r: string) => {
    const part = r.slice(r.indexOf('-') + 1)
    return LANGUAGE_ALIASES[part] ?? part
  }
  return candidates.find((r) => langOf(r) === lang) ?? candidates[0] ?? 'wt-wt'
}

export const timeFilterOf = (req: Pick<SearchRequest, 'time'>): string | undefined => (req.time ? TIME[req.time] : undefined)

/** `kp`: 1 strict, -2 off (DuckDuckGo's own default, moderate, matches neither of our values). */
export const safeSearchOf = (req: Pick<SearchRequest, 'safe'>): string => (req.safe === 'active' ? '1' : '-2')

/**
 * The query with every `!bang` token quoted: `!w coffee` is sent as `'!w' coffee`. DuckDuckGo reads
 * a whitespace-separated token starting with `!` anywhere in the query as a bang and answers with a
 * redirect to that site (a lone `!` goes to the first result), so such a token is wrapped in single
 * quotes, which DuckDuckGo does not take for a bang. SearXNG does the same (searx/engines/duckduckgo.py
 * `quote_ddg_bangs`, https://github.com/searxng/searxng/pull/2309; its bang-list check there, `get_node`, returns a
 * non-empty tuple for any token, so in effect every `!` token is quoted). Nothing else changes.
 */
export function quoteBangs(q: string): string {
  return q.replace(/(^|\s)(![^\s]*)/g, "$1'$2'")
}

/** The query as sent (bangs quoted); refused when DuckDuckGo would refuse it. */
function sentQuery(req: Pick<SearchRequest, 'q'>): string {
  const q = quoteBangs(req.q)
  if (q.length > MAX_QUERY_LENGTH) throw new ApiError('invalid_request', `DuckDuckGo refuses queries longer than ${MAX_QUERY_LENGTH} characters`)
  return q
}

/** The first-page request for `req`. */
export function buildDuckDuckGoRequest(req: SearchRequest, endpoint: DuckDuckGoEndpoint = 'html'): DuckDuckGoRequest {
  const kl = regionOf(req.country, req.language)
  const df = timeFilterOf(req)
  const form: Record<string, string> = { q: sentQuery(req), b: '', kl }
  if (df) form.df = df
  form.kp = safeSearchOf(req)
  return { url: ENDPOINTS[endpoint], headers: duckDuckGoHeaders(req, endpoint), form }
}

/**
 * A later page: the fields of the site's "Next" form, with `kp` added (the form does not carry
 * it) and, when `offset` is given, `s` / `dc` moved there so deep pages need not walk every page.
 */
export function buildNextPageRequest(req: SearchRequest, next: Record<string, string>, endpoint: DuckDuckGoEndpoint, offset?: number): DuckDuckGoRequest {
  const form = { ...next }
  if (offset !== undefined) {
    form.s = String(offset)
    form.dc = String(offset + 1)
  }
  form.kp = safeSearchOf(req)
  return { url: ENDPOINTS[endpoint], headers: duckDuckGoHeaders(req, endpoint), form }
}

/**
 * The "Next" form DuckDuckGo sends, rebuilt from a vqd token kept from an earlier answer for
 * the same query (the token is what lets a later page be asked without fetching page 1 again).
 */
export function nextFormFromToken(req: SearchRequest, vqd: string, offset: number): Record<string, string> {
  const form: Record<string, string> = {
    q: quoteBangs(req.q),
    s: String(offset),
    nextParams: '',
    v: 'l',
    o: 'json',
    dc: String(offset + 1),
    api: 'd.js',
    vqd,
    kl: regionOf(req.country, req.language),
  }
  const df = timeFilterOf(req)
  if (df) form.df = df
  return form
}

/** Chrome's navigation headers for a form POST from the site's own page (client hints are added from the UA by the transport). */
export function duckDuckGoHeaders(req: Pick<SearchRequest, 'country' | 'language' | 'time' | 'safe'>, endpoint: DuckDuckGoEndpoint): Record<string, string> {
  const origin = new URL(ENDPOINTS[endpoint]).origin
  // The settings the form carries are mirrored in cookies, as the site itself stores them.
  const cookies = [`kl=${regionOf(req.country, req.language)}`, `kp=${safeSearchOf(req)}`]
  const df = timeFilterOf(req)
  if (df) cookies.push(`df=${df}`)
  return {
    'Cache-Control': 'max-age=0',
    'User-Agent': DDG_USER_AGENT,
    Accept: NAVIGATION_ACCEPT,
    'Accept-Language': acceptLanguage(req.language),
    'Content-Type': FORM_CONTENT_TYPE,
    Origin: origin,
    Referer: `${origin}/`,
    Cookie: cookies.join('; '),
    'Upgrade-Insecure-Requests': '1',
    'Sec-Fetch-Dest': 'document',
    'Sec-Fetch-Mode': 'navigate',
    'Sec-Fetch-Site': 'same-origin',
    'Sec-Fetch-User': '?1',
  }
}

/** The JS app's page, whose `link#deep_preload_link` is the signed d.js URL of the first results. */
export const SHELL_URL = 'https://duckduckgo.com/'

export interface DuckDuckGoGet {
  url: string
  headers: Record<string, string>
}

/**
 * The djs route's first request: `GET https://duckduckgo.com/?q=…&t=h_&ia=web&kl=…&kp=…[&df=…]`,
 * as a search from DuckDuckGo's home page navigates (SearXNG's duckduckgo_web.py asks
 * `?q=…&t=h_&ia=web`). The settings go in the URL, DuckDuckGo's own URL parameters (`kl` region,
 * `kp` safe search, `df` time), because the d.js URL the page hands out is signed (`dp`) and cannot
 * be changed afterwards.
 */
export function buildShellRequest(req: SearchRequest): DuckDuckGoGet {
  const params = new URLSearchParams({ q: sentQuery(req), t: 'h_', ia: 'web', kl: regionOf(req.country, req.language), kp: safeSearchOf(req) })
  const df = timeFilterOf(req)
  if (df) params.set('df', df)
  return {
    url: `${SHELL_URL}?${params}`,
    headers: {
      'User-Agent': DDG_USER_AGENT,
      Accept: NAVIGATION_ACCEPT,
      'Accept-Language': acceptLanguage(req.language),
      Referer: SHELL_URL,
      'Upgrade-Insecure-Requests': '1',
      'Sec-Fetch-Dest': 'document',
      'Sec-Fetch-Mode': 'navigate',
      'Sec-Fetch-Site': 'same-origin',
      'Sec-Fetch-User': '?1',
    },
  }
}

/** A d.js URL fetched as the shell's script preload does (Sec-Fetch script / no-cors / same-site). */
export function buildDjsRequest(req: Pick<SearchRequest, 'language'>, url: string): DuckDuckGoGet {
  return {
    url,
    headers: {
      'User-Agent': DDG_USER_AGENT,
      Accept: '*/*',
      'Accept-Language': acceptLanguage(req.language),
      Referer: SHELL_URL,
      'Sec-Fetch-Dest': 'script',
      'Sec-Fetch-Mode': 'no-cors',
      'Sec-Fetch-Site': 'same-site',
    },
  }
}

/** "pt-BR,pt;q=0.9,en;q=0.8": the language, its base, then English. */
export function acceptLanguage(language: string): string {
  const base = language.split('-')[0]?.toLowerCase() || 'en'
  const parts = [language]
  if (base !== language) parts.push(`${base};q=0.9`)
  if (base !== 'en') parts.push('en;q=0.8')
  return parts.join(',')
}
