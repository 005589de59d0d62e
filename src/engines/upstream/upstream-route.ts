/**
 * Where an engine request really goes (TRAWL_UPSTREAM_HOSTS, README.md "Configuration") and which redirects
 * the client may follow. Pure functions, so the rules are testable without a network.
 */

export interface MappedTarget {
  /** The URL actually requested: the engine URL, or the mapped base URL plus path and query. */
  requestUrl: string
  /** Original `host[:port]` to send as X-Forwarded-Host; null when not mapped. */
  forwardedHost: string | null
  /** The normalised base URL used, so redirects back into it can be translated back. */
  base: string | null
}

/** Rewrites an engine URL through the host map; `*` matches every host not listed. */
export function mapUpstream(hosts: ReadonlyMap<string, string>, url: URL): MappedTarget {
  const raw = hosts.get(url.host.toLowerCase()) ?? hosts.get(url.hostname.toLowerCase()) ?? hosts.get('*')
  if (!raw) return { requestUrl: url.href, forwardedHost: null, base: null }
  const base = normaliseBase(raw)
  return { requestUrl: `${base}${url.pathname}${url.search}`, forwardedHost: url.host, base }
}

/**
 * Resolves a Location header into the URL the engine would have seen. A fake upstream answers
 * with relative or base-absolute locations; those are translated back to the engine host so the
 * next hop is mapped again and the block / same-site rules look at real engine hosts.
 */
export function resolveRedirect(location: string, logical: URL, target: MappedTarget): URL | null {
  let abs: URL
  try {
    abs = new URL(location, target.requestUrl)
  } catch {
    return null
  }
  if (target.base && isUnder(abs.href, target.base)) {
    return new URL(abs.href.slice(target.base.length) || '/', `${logical.protocol}//${logical.host}`)
  }
  return abs
}

/**
 * Redirects stay "within the engine" when both hosts belong to the same site, e.g.
 * google.com -> www.google.com. Anything else (an off-site link, another scheme) is not followed.
 */
export function isSameSite(a: URL, b: URL): boolean {
  if (!/^https?:$/.test(b.protocol)) return false
  return siteOf(a.hostname) === siteOf(b.hostname)
}

/** Last two labels, or three under a two-level public suffix like co.uk or com.au. */
export function siteOf(hostname: string): string {
  const labels = hostname.toLowerCase().replace(/\.$/, '').split('.')
  if (labels.length <= 2 || /^[\d.]+$/.test(hostname)) return labels.join('.')
  const second = labels[labels.length - 2] ?? ''
  const last = labels[labels.length - 1] ?? ''
  const take = last.length === 2 && /^(co|com|net|org|gov|edu|ac|or|ne|go)$/.test(second) ? 3 : 2
  return labels.slice(-take).join('.')
}

function normaliseBase(base: string): string {
  return new URL(base).href.replace(/\/$/, '')
}

function isUnder(href: string, base: string): boolean {
  if (!href.startsWith(base)) return false
  const next = href.charAt(base.length)
  return next === '' || next === '/' || next === '?' || next === '#'
}
