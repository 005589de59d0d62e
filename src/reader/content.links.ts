import type { Element, ParentNode } from 'domhandler'
import { walkElements } from './dom.utils.ts'

/**
 * Where a page's links go: to the page's own site or elsewhere. A list of links inside an article
 * reads differently by destination: links to the same site are navigation, "related stories" and
 * tag lists, while a list whose every link leaves the site is the article citing things (sources,
 * products, bug reports, downloads).
 *
 * The own site is the page's host plus any host that takes a large share of the links around the
 * article (menus, footers, sidebars): a saved or mirrored page has a different URL than its links
 * were written for, and sites link their own pages from other host names (www.x.com vs x.com,
 * edition hosts). Links inside the article are not counted: an article citing one bug tracker or
 * shop fifty times does not make that host its own.
 */

const OWN_SHARE = 0.25

const hostOf = (href: string, base: string): string | null => {
  try {
    const u = new URL(href, base)
    return /^https?:$/.test(u.protocol) ? u.hostname.replace(/^www\d*\./, '') : null
  } catch {
    return null
  }
}

export interface Site {
  base: string
  own: Set<string>
}

/** The page's own hosts, from its URL and the hosts of the links outside `article`. */
export function siteOf(doc: ParentNode, base: string, article: Element): Site {
  const own = new Set<string>()
  const page = hostOf(base, base)
  if (page) own.add(page)
  const counts = new Map<string, number>()
  let total = 0
  walkElements(doc, (el) => {
    if (el === article) return false
    if (el.name !== 'a' || !el.attribs.href) return true
    const host = hostOf(el.attribs.href, base)
    if (!host) return true
    counts.set(host, (counts.get(host) ?? 0) + 1)
    total++
    return true
  })
  for (const [host, n] of counts) if (n >= OWN_SHARE * total) own.add(host)
  return { base, own }
}

/**
 * True when `el` has links and every one leaves the site. Share buttons also link off-site but
 * carry this page's address in their query ("sharer.php?u=https://site/page"), so those count as own.
 */
export function linksLeaveSite(el: Element, site: Site): boolean {
  let any = false
  let away = true
  walkElements({ children: [el] } as unknown as ParentNode, (c) => {
    if (!away) return false
    if (c.name !== 'a') return true
    const href = c.attribs.href ?? ''
    const host = hostOf(href, site.base)
    if (!host || site.own.has(host) || [...site.own].some((h) => href.includes(h))) away = false
    any = true
    return true
  })
  return any && away
}
