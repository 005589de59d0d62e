/**
 * include_domains / exclude_domains: compiled to `site:` operators for the query, then enforced
 * on the parsed results because Google treats operators as hints on some layouts.
 *
 * Entry forms: a domain ("example.com": the domain and its subdomains), a path prefix
 * ("example.com/blog") or a top-level domain (".gov").
 */
import type { OrganicResult, SearchRequest, VerticalRequest } from './engine.types.ts'

interface DomainRule {
  kind: 'tld' | 'host' | 'path'
  host: string
  path: string
}

function parseRule(entry: string): DomainRule | undefined {
  let e = entry.trim().toLowerCase()
  if (!e) return undefined
  if (/^\.[a-z0-9-]+(\.[a-z0-9-]+)*$/.test(e)) return { kind: 'tld', host: e.slice(1), path: '' }
  e = e.replace(/^[a-z][a-z0-9+.-]*:\/\//, '').replace(/^www\./, '')
  const slash = e.indexOf('/')
  const host = (slash === -1 ? e : e.slice(0, slash)).replace(/:\d+$/, '')
  const path = slash === -1 ? '' : e.slice(slash).replace(/\/+$/, '')
  if (!host) return undefined
  return path ? { kind: 'path', host, path } : { kind: 'host', host, path: '' }
}

const operand = (r: DomainRule) => (r.kind === 'path' ? `${r.host}${r.path}` : r.host)

/** "(site:a.com OR site:b.com) -site:c.com"; empty when there are no filters. */
export function compileSiteOperators(include: readonly string[], exclude: readonly string[]): string {
  const inc = include.map(parseRule).filter((r): r is DomainRule => !!r)
  const exc = exclude.map(parseRule).filter((r): r is DomainRule => !!r)
  const parts: string[] = []
  if (inc.length === 1 && inc[0]) parts.push(`site:${operand(inc[0])}`)
  else if (inc.length > 1) parts.push(`(${inc.map((r) => `site:${operand(r)}`).join(' OR ')})`)
  for (const r of exc) parts.push(`-site:${operand(r)}`)
  return parts.join(' ')
}

function matches(rule: DomainRule, host: string, path: string): boolean {
  const h = host.replace(/^www\./, '')
  if (rule.kind === 'tld') return h === rule.host || h.endsWith(`.${rule.host}`)
  const hostOk = h === rule.host || h.endsWith(`.${rule.host}`)
  if (rule.kind === 'host') return hostOk
  return hostOk && path.startsWith(rule.path)
}

/** Drops results outside `include` or inside `exclude`, then renumbers positions from 1. */
export function enforceDomainFilters(results: OrganicResult[], include: readonly string[], exclude: readonly string[]): OrganicResult[] {
  const inc = include.map(parseRule).filter((r): r is DomainRule => !!r)
  const exc = exclude.map(parseRule).filter((r): r is DomainRule => !!r)
  const kept = results.filter((r) => {
    let host: string
    let path: string
    try {
      const u = new URL(r.link)
      host = u.hostname.toLowerCase()
      path = decodeURIComponent(u.pathname).toLowerCase()
    } catch {
      return false
    }
    if (inc.length && !inc.some((rule) => matches(rule, host, path))) return false
    return !exc.some((rule) => matches(rule, host, path))
  })
  return kept.map((r, i) => ({ ...r, position: i + 1 }))
}

/** The items whose URL (`urlOf`) passes `include` and `exclude`, in order; items without a URL fail any filter. */
export function keepDomains<T>(items: T[], include: readonly string[], exclude: readonly string[], urlOf: (item: T) => string | null | undefined): T[] {
  if (!include.length && !exclude.length) return items
  // enforceDomainFilters renumbers positions, so each probe carries its item's index in `title`.
  const probes = items.map((item, i) => ({ position: i + 1, title: String(i), link: urlOf(item) ?? '', domain: '' }))
  const kept = new Set(enforceDomainFilters(probes, include, exclude).map((p) => Number(p.title)))
  return items.filter((_, i) => kept.has(i))
}

/** The request with its domain filters moved into the query as `site:` operators, where the engine has them. */
export function withSites<R extends { q?: string; include_domains?: string[]; exclude_domains?: string[] }>(req: R, siteOperator: boolean): R {
  const sites = compileSiteOperators(req.include_domains ?? [], req.exclude_domains ?? [])
  if (!sites || !siteOperator || req.q === undefined) return req
  return { ...req, q: `${req.q} ${sites}`, include_domains: undefined, exclude_domains: undefined }
}

/** The items of a result list that pass the request's domain filters (engines treat operators as hints). */
export function filterLinks<T extends { link?: string | null }>(items: T[], req: SearchRequest | VerticalRequest): T[] {
  return keepDomains(items, req.include_domains ?? [], req.exclude_domains ?? [], (item) => item.link)
}
