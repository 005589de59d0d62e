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
 * Whether `url` belongs to the site that `start` names (SPEC: "kept on the site's host"): the same
 * host with `www.` folded, whatever the scheme or port. With `includeSubdomains`, any host under the
 * same registrable domain (`blog.example.com` for `www.example.com`), judged by the Public Suffix
 * List including its private section, so `alice.github.io` never takes in `bob.github.io`. IP
 * addresses and single-label hosts only ever match themselves.
 */
export function onSite(url: string, start: string, includeSubdomains: boolean): boolean {
  const host = siteHost(url)
  const startHost = siteHost(start)
  if (!host || !startHost) return false
  if (host === startHost) return true
  if (!includeSubdomains) return false
  const domain = getDomain(host, { allowPrivateDomains: true })
  return domain !== null && domain === getDomain(startHost, { allowPrivateDomains: true })
}
