/**
 * Google's feature-phone result page (`/wml/search`, the `wml` route). Markup as SearXNG's google
 * engine reads it (commit a4cb7df05, PR #6546): each result is a `div.zMzFAb` titled by
 * `a.fuLhoc span.CVA68e`, its link a `/url?q=<target>&sa=U…` redirect, its snippet
 * `div.taTFJ span.FrIlee`; related searches are `table.HExoMb a.ZWRArf`. The body may open with
 * an `<?xml …?>` prologue. A page this reader finds no result in is read again by the web-page
 * readers (basic layout, outbound links), so a changed class name is a `partial` page, not `empty`.
 */
import type { Element } from 'domhandler'
import type { OrganicResult, ParsedSearchPage, ParseQuality, RelatedSearch } from '../engine.types.ts'
import { closest, documentOf, domIndex, hasClass } from '../parse/dom-index.ts'
import { loadPage } from '../parse/html.ts'
import { selectAll, selectOne } from '../parse/select.ts'
import { domainOf } from '../parse/text.ts'
import { compact, isElement, isGoogleInternal, isInside, looksLikeBreadcrumb, splitLeadingDate, textOf } from './google-dom.util.ts'
import { type GoogleLayout, NO_RESULTS, readGoogleSearch } from './google-search.parse.ts'

export interface WmlRead {
  page: ParsedSearchPage
  /** `wml` when the feature-phone markup was read; else the layout the web readers saw. */
  layout: 'wml' | GoogleLayout | 'blocked'
}

// What parseGoogleWml can recognise a page by.
const WML_MARKERS = /zMzFAb|HExoMb|did not match any documents/i

/**
 * Reads a `/wml/search` answer. The feature-phone reader first; when it finds no result, the web
 * readers (google-search.parse.ts) read the same page: Google may answer its basic layout, and a
 * renamed class must not turn a page of results into "no results". Results read that way from a
 * page that was recognised as the feature-phone page are `partial`.
 */
export function readGoogleWml(body: string): WmlRead {
  // A page without any of the feature-phone markers (a result page of another layout) goes
  // straight to the web readers: no second tree of a page that may be 2 MB.
  if (!WML_MARKERS.test(body)) return readGoogleSearch(stripPrologue(body))
  const wml = parseGoogleWml(body)
  if (wml.page.results.length > 0) return { page: wml.page, layout: 'wml' }
  const web = readGoogleSearch(stripPrologue(body))
  if (web.page.results.length > 0) {
    return { page: wml.recognised ? { ...web.page, parse_quality: 'partial' } : web.page, layout: wml.recognised ? 'wml' : web.layout }
  }
  if (!wml.recognised) return web
  // "Your search - … - did not match any documents.": the web readers saw the wording too.
  if (web.page.saysNoResults) return { page: { ...wml.page, parse_quality: 'empty', saysNoResults: true }, layout: 'wml' }
  const quality: ParseQuality = wml.page.parse_quality === 'partial' || web.page.parse_quality === 'partial' ? 'partial' : 'empty'
  return { page: { ...wml.page, parse_quality: quality }, layout: 'wml' }
}

/** The feature-phone reader alone; `recognised` when the page carries its result or suggestion markup. */
export function parseGoogleWml(body: string): { page: ParsedSearchPage; recognised: boolean } {
  const $ = loadPage(stripPrologue(body))
  const doc = documentOf($)
  const blocks = selectAll($, doc, 'div.zMzFAb')
  const results: OrganicResult[] = []
  const seen = new Set<string>()
  let failed = 0
  for (const block of blocks) {
    // Blocks without a title link are other sections (image strips, "People also search for").
    const titleEl = selectOne($, block, 'a.fuLhoc span.CVA68e')
    const anchor = closest(titleEl, (el) => el.name === 'a')
    if (!titleEl || !anchor) continue
    const title = textOf(titleEl)
    const target = wmlTarget(anchor.attribs.href)
    if (target === 'internal') continue // Google's own pages (more images, maps, other searches)
    if (!title || !target) {
      failed++
      continue
    }
    if (seen.has(target)) continue
    seen.add(target)
    const snippetText = selectAll($, block, 'div.taTFJ span.FrIlee')
      .filter((el, _i, all) => !all.some((o) => o !== el && isInside(el, o)))
      .map((el) => textOf(el))
      .filter(Boolean)
      .join(' ')
    const { date, rest } = splitLeadingDate(snippetText)
    results.push(
      compact({
        position: results.length + 1,
        title,
        link: target,
        domain: domainOf(target),
        displayed_link: displayedLinkOf(anchor, titleEl),
        snippet: rest || undefined,
        date,
      }),
    )
  }
  const related_searches = relatedOf(selectAll($, doc, 'table.HExoMb a.ZWRArf'))
  const recognised =
    blocks.length > 0 || related_searches.length > 0 || NO_RESULTS.test(textOf(domIndex(doc).findFirst(doc, (el) => el.name === 'body') ?? doc))
  const parse_quality: ParseQuality = failed > 0 ? 'partial' : results.length > 0 ? 'ok' : 'empty'
  const page: ParsedSearchPage = { results, parse_quality }
  if (related_searches.length) page.related_searches = related_searches
  return { page, recognised }
}

/** The body without a leading `<?xml …?>` declaration (the WML/XHTML page starts with one). */
export function stripPrologue(body: string): string {
  return body.replace(/^\uFEFF?\s*<\?xml[^>]*\?>/, '')
}

/**
 * A result link's target: `/url?q=<target>&sa=U…` unwrapped (prefix stripped, cut at `&sa=U`,
 * URL-decoded), or an absolute link as is. `internal` for Google's own search pages; undefined
 * when the link cannot be read.
 */
export function wmlTarget(href: string | undefined): string | 'internal' | undefined {
  const raw = href?.trim()
  if (!raw) return undefined
  let target = raw
  if (raw.startsWith('/url?q=')) {
    const rest = raw.slice('/url?q='.length)
    const cut = rest.indexOf('&sa=U')
    try {
      target = decodeURIComponent(cut >= 0 ? rest.slice(0, cut) : (rest.split('&')[0] ?? ''))
    } catch {
      return undefined
    }
  } else if (raw.startsWith('/') && !raw.startsWith('//')) {
    return 'internal' // /search?…, /imgres?…: the page's own navigation
  }
  let url: URL
  try {
    url = new URL(target, 'https://www.google.com')
  } catch {
    return undefined
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined
  return isGoogleInternal(url.href) ? 'internal' : url.href
}

/** The address line printed inside the result link, under the title ("example.com › docs"). */
function displayedLinkOf(anchor: Element, titleEl: Element): string | undefined {
  const stack: Element[] = [anchor]
  while (stack.length) {
    const el = stack.shift() as Element
    if (el === titleEl || isInside(el, titleEl)) continue
    const hasOwnText = el.children.some((k) => k.type === 'text' && (k as unknown as { data: string }).data.trim())
    if (el !== anchor && hasOwnText) {
      const t = textOf(el)
      if (t && looksLikeBreadcrumb(t)) return t
    }
    for (const k of el.children) if (isElement(k)) stack.push(k)
  }
  return undefined
}

function relatedOf(links: Element[]): RelatedSearch[] {
  const out: RelatedSearch[] = []
  const seen = new Set<string>()
  for (const a of links) {
    // A result title link carries these classes too; only links of the suggestion table count.
    if (hasClass(a, 'fuLhoc') && closest(a, (el) => hasClass(el, 'zMzFAb'))) continue
    const query = textOf(a)
    if (!query || seen.has(query.toLowerCase())) continue
    seen.add(query.toLowerCase())
    out.push({ query })
  }
  return out
}
