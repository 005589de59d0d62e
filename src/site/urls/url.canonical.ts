import { isTrackingParam } from './tracking-params.data.ts'

export interface CanonicalUrlOptions {
  /** Drop the whole query (map and crawl `ignore_query_parameters`). */
  ignoreQuery?: boolean
}

const HEX = '0123456789ABCDEF'
const UNRESERVED = /^[A-Za-z0-9\-._~]$/
// RFC 3986 reserved characters, plus `%` (a lone one, as in `/100%/`, is left for the server to judge).
const ALLOWED_RAW = /^[A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;=%]$/
// Most paths and queries (no escapes, nothing to encode) need no change: one test instead of a walk.
const ALREADY_NORMAL = /^[A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;=]*$/

function percentEncode(c: string): string {
  let out = ''
  for (const byte of Buffer.from(c, 'utf8')) out += `%${HEX[byte >> 4]}${HEX[byte & 15]}`
  return out
}

/**
 * RFC 3986 section 6.2.2 normalisation of an already WHATWG-serialised path or query: `%7e` and
 * `~` are the same byte on the wire, so unreserved escapes are decoded and the rest upper-cased.
 * Characters WHATWG leaves raw but RFC 3986 never allows (`|`, `^`, `{`, `` ` ``…) are encoded, so
 * both spellings fold. Reserved characters keep whichever form they had: `%2F` is not `/`.
 */
function normalisePercent(s: string): string {
  if (ALREADY_NORMAL.test(s)) return s
  let out = ''
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!
    const hex = c === '%' ? s.slice(i + 1, i + 3) : ''
    if (/^[0-9A-Fa-f]{2}$/.test(hex)) {
      const decoded = String.fromCharCode(Number.parseInt(hex, 16))
      out += UNRESERVED.test(decoded) ? decoded : `%${hex.toUpperCase()}`
      i += 2
    } else {
      out += ALLOWED_RAW.test(c) ? c : percentEncode(c)
    }
  }
  return out
}

function paramName(part: string): string {
  const raw = part.split('=', 1)[0]!
  try {
    return decodeURIComponent(raw.replace(/\+/g, ' '))
  } catch {
    return raw
  }
}

/** Query without empty pairs and tracking parameters, in the site's own order. */
function cleanQuery(search: string): string {
  if (search.length <= 1) return ''
  return search
    .slice(1)
    .split('&')
    .filter((part) => part !== '' && !isTrackingParam(paramName(part)))
    .map(normalisePercent)
    .join('&')
}

/**
 * The form in which the crawler stores, fetches and reports a URL: absolute http(s) only (relative
 * links resolved against `base`), without credentials (we would not send them), fragment or
 * tracking parameters; host lower-cased without trailing dots, default port dropped, dot segments
 * resolved (WHATWG URL), percent-encoding normalised. Query parameters keep their order, because a
 * fetched URL should be one the site itself produces; `siteKey` sorts them for de-duplication.
 * Null when the input is not such a URL.
 */
export function canonicalUrl(raw: string, base?: string, opts: CanonicalUrlOptions = {}): string | null {
  let url: URL
  try {
    url = new URL(raw, base)
  } catch {
    return null
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null
  if (url.username || url.password) return null
  const host = url.hostname.replace(/\.+$/, '')
  if (!host) return null
  const port = url.port ? `:${url.port}` : ''
  const query = opts.ignoreQuery ? '' : cleanQuery(url.search)
  return `${url.protocol}//${host}${port}${normalisePercent(url.pathname)}${query ? `?${query}` : ''}`
}

/** `www.example.com` -> `example.com`, but `www.com` stays (nothing left to be a site). */
export function foldWww(host: string): string {
  return host.startsWith('www.') && host.indexOf('.', 4) !== -1 ? host.slice(4) : host
}

/**
 * Stable sort by parameter name: repeated names keep their order (`a=1&a=2` is a list). A bare
 * `flag` becomes `flag=`: servers read both as an empty value.
 */
function sortQuery(query: string): string {
  const parts = query.split('&').map((p, index) => ({ part: p.includes('=') ? p : `${p}=`, name: p.split('=', 1)[0]!, index }))
  parts.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : a.index - b.index))
  return parts.map((p) => p.part).join('&')
}

/**
 * The de-duplication key of map and crawl: the canonical URL with `www.`, the scheme and a
 * trailing slash folded, and query parameters sorted by name. Not a URL: never fetch it. Input
 * that is no http(s) URL is its own key, so it never collides with a real page.
 */
export function siteKey(url: string, opts: CanonicalUrlOptions = {}): string {
  const canonical = canonicalUrl(url, undefined, opts)
  if (!canonical) return url.trim()
  const schemeEnd = canonical.indexOf('//') + 2
  const rest = canonical.slice(schemeEnd)
  const q = rest.indexOf('?')
  const hostAndPath = q === -1 ? rest : rest.slice(0, q)
  const query = q === -1 ? '' : rest.slice(q + 1)
  const slash = hostAndPath.indexOf('/')
  const host = foldWww(hostAndPath.slice(0, slash))
  const path = hostAndPath.slice(slash).replace(/\/+$/, '')
  return `${host}${path}${query ? `?${sortQuery(query)}` : ''}`
}
