import { isIP } from 'node:net'
import { getDomain } from 'tldts'
import { foldWww } from './url.canonical.ts'

function siteHost(raw: string): string | null {
  try {
    const url = new URL(raw)
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return null
    return foldWww(url.hostname.replace(/\.+$/, '')) || null
  } catch {
    return null
  }
}

/**
 * Whether `url` belongs to the site that `start` names (map and crawl keep to the site's host): the same
 * host with `www.` folded, whatever the scheme or port. With `includeSubdomains`, any host under the
 * same registrable domain (`blog.example.com` for `www.example.com`), judged by the Public Suffix
 * List including its private section, so `alice.github.io` never takes in `bob.github.io`.
 *
 * A single-label start host (`localhost`, an intranet name such as `wiki`) has no registrable
 * domain by the list, yet hosts below it (`blog.localhost`, `docs.wiki`) are its subdomains: no
 * public site answers on a bare label, so tldts is told to treat it as a domain (`validHosts`), as
 * it always is for `localhost`.
 * IP addresses only ever match themselves.
 */
export function onSite(url: string, start: string, includeSubdomains: boolean): boolean {
  const host = siteHost(url)
  const startHost = siteHost(start)
  if (!host || !startHost) return false
  if (host === startHost) return true
  if (!includeSubdomains) return false
  const singleLabel = !startHost.includes('.') && isIP(startHost.replace(/^\[|\]$/g, '')) === 0
  // `localhost` (RFC 6761) is such a domain whatever the start: blog.localhost and shop.localhost are one site.
  const opts = { allowPrivateDomains: true, validHosts: singleLabel ? ['localhost', startHost] : ['localhost'] }
  const domain = getDomain(host, opts)
  return domain !== null && domain === getDomain(startHost, opts)
}
