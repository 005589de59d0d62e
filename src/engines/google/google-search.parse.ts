/**
 * Parses a Google web result page — desktop, mobile or the basic (gbv=1 / no-JS) layout — into
 * organic results and SERP features. The readers key on structure (headings inside links, ARIA
 * roles and levels, `data-*` attributes, section labels) and use class names only as a hint, so a
 * layout change is usually a one-file fix.
 */

import type { CheerioAPI } from 'cheerio'
import type { Element } from 'domhandler'
import type { ParsedSearchPage, ParseQuality } from '../engine.types.ts'
import { documentOf, domIndex, type Positions } from '../parse/dom-index.ts'
import { loadPage } from '../parse/html.ts'
import { selectAll } from '../parse/select.ts'
import { detectGoogleBlockInHtml } from './google-block.detect.ts'
import { documentOrder } from './google-dom.util.ts'
import { peopleAlsoAskOf, relatedSearchesOf, totalResultsOf } from './google-features.parse.ts'
import { outboundResults } from './google-links.parse.ts'
import { adsOf, placesOf, topStoriesOf } from './google-local.parse.ts'
import { type OrganicParse, parseOrganic } from './google-organic.parse.ts'
import { answerBoxOf, knowledgeGraphOf } from './google-panels.parse.ts'

export type GoogleLayout = 'desktop' | 'mobile' | 'basic' | 'unknown'

export interface ParseOptions {
  /** Include ads (`ads[]`); they are skipped otherwise. */
  includeAds?: boolean
}

/**
 * What no Google reader looks at, cut before the tree is built: inline image data (image URLs
 * must be http(s)), icons' drawings (inline SVG), Google's script hooks, tracking and layout
 * attributes, and focus and SVG attributes: about a third of what is left of a page once scripts
 * are emptied. A reader that starts using one of these attributes must take it off this list.
 */
const LEAN = {
  cutDataUris: true,
  dropSvg: true,
  dropAttributes: new Set([
    ...['data-ved', 'jsaction', 'ping', 'jsname', 'jscontroller', 'jsdata', 'd', 'tabindex', 'focusable', 'xmlns'],
    ...['data-snf', 'data-sncf', 'data-snc', 'data-snhf', 'data-atf', 'data-frt', 'data-frm', 'data-bsextraheight'],
    ...['data-isdesktop', 'data-deferred', 'data-ctpacw', 'data-async-fc', 'data-lpage'],
  ]),
}

/** Parses one Google web result page. A block or consent page yields no results and quality 'empty'. */
export function parseGoogleSearch(html: string, opts: ParseOptions = {}): ParsedSearchPage {
  return readGoogleSearch(html, opts).page
}

/**
 * parseGoogleSearch, with the layout the page was read as: a page without results whose layout is
 * `unknown` is not a result page at all (an error or interstitial page nobody recognised), which
 * the provider reports as unparseable rather than as "no results".
 */
export function readGoogleSearch(html: string, opts: ParseOptions = {}): { page: ParsedSearchPage; layout: GoogleLayout | 'blocked' } {
  if (!html || detectGoogleBlockInHtml(html)) return { page: { results: [], parse_quality: 'empty' }, layout: 'blocked' }
  const $ = loadPage(html, LEAN)
  const index = domIndex(documentOf($))
  const layout = detectLayout($)
  const body = (index.findFirst(documentOf($), (el) => el.name === 'body') ?? documentOf($)) as Element
  // Organic results live in the centre column; side panels and ads are read separately. Should a
  // redesign move them out of it, the whole page is read instead.
  const root = index.byId('center_col') ?? index.byId('rso') ?? index.byId('main') ?? body
  const order = documentOrder($)

  const organic = readOrganic($, root, body, order)
  const kgScope = knowledgeScope($)
  const knowledge_graph = knowledgeGraphOf($, body, layout === 'basic' || layout === 'unknown')
  const page: ParsedSearchPage = {
    results: organic.results,
    people_also_ask: peopleAlsoAskOf($, body),
    related_searches: relatedSearchesOf($, body, kgScope, order),
    knowledge_graph,
    answer_box: answerBoxOf($, body),
    top_stories: topStoriesOf($, body),
    places: placesOf($, body),
    ads: opts.includeAds ? adsOf($, body, order, organic.firstOrder) : undefined,
    // Only desktop pages write the count from a script: a mobile page (up to 2 MB) is not searched for it.
    total_results: totalResultsOf($, layout === 'mobile' ? '' : html),
    parse_quality: 'ok',
  }
  page.parse_quality = qualityOf(page, organic, layout)
  if (page.results.length === 0 && saysNoResults($, html)) {
    page.parse_quality = 'empty'
    page.saysNoResults = true
  }
  return { page: dropEmpty(page), layout }
}

/** "Your search - … - did not match any documents." */
export const NO_RESULTS = /did not match any documents/i

/**
 * Google's own no-results card: in any language a heading in `#topstuff` quoting the query
 * (`.card-section [role="heading"] em`), which no saved result page has (`.mnr-c` alone is a card
 * class result pages use too); else the English wording (the no-JS page has no such markup).
 */
function saysNoResults($: CheerioAPI, html: string): boolean {
  const topstuff = domIndex(documentOf($)).byId('topstuff')
  return (topstuff !== undefined && selectAll($, topstuff, '.card-section [role="heading"] em').length > 0) || NO_RESULTS.test(html)
}

interface OrganicRead extends OrganicParse {
  /** Read by a fallback reader: the layout was not fully understood. */
  fallback: boolean
}

/**
 * Organic results, trying stricter readers first. A page with result markup must not come out
 * empty: if the usual reader finds nothing, the whole page is read again with only known feature
 * names kept out (an unknown section label, e.g. in another language, may cover the results), then
 * with link text as titles for layouts without headings, and last as plain outbound links that
 * carry a title (google-links.parse.ts): a page holding result links is never "no results".
 */
function readOrganic($: CheerioAPI, root: Element, body: Element, order: Positions): OrganicRead {
  const first = parseOrganic($, root, order)
  if (first.results.length) return { ...first, fallback: false }
  const whole = root === body ? first : parseOrganic($, body, order)
  if (whole.results.length) return { ...whole, fallback: false }
  let markup = Math.max(first.markup, whole.markup)
  for (const titles of ['headings', 'links'] as const) {
    const next = parseOrganic($, body, order, { titles, lenient: true })
    if (next.results.length) return { ...next, fallback: true }
    markup = Math.max(markup, next.markup)
  }
  const outbound = outboundResults($, body)
  if (outbound.length) return { ...whole, results: outbound, markup: Math.max(markup, outbound.length), fallback: true }
  return { ...whole, markup, fallback: false }
}

/** Which Google layout the page is: it picks the knowledge-panel reader and feeds the quality verdict. */
export function detectLayout($: CheerioAPI): GoogleLayout {
  const doc = documentOf($)
  const index = domIndex(doc)
  if (index.byId('rso') || index.byId('center_col') || index.byId('search')) {
    // Desktop pages are fixed-width and carry no device-width viewport.
    const viewport = index.findFirst(doc, (el) => el.name === 'meta' && el.attribs.name === 'viewport')?.attribs.content ?? ''
    return /width=device-width/.test(viewport) ? 'mobile' : 'desktop'
  }
  // The basic layout wraps every outbound link in a /url?q= redirect.
  const redirect = (el: Element) => el.name === 'a' && /^\/url\?(q|url)=/.test(el.attribs.href ?? '')
  if (index.findFirst(doc, redirect)) return 'basic'
  return 'unknown'
}

/** Side panel and knowledge-panel fields: their "People also search for" lists entities, not queries. */
function knowledgeScope($: CheerioAPI): Element[] {
  return selectAll($, documentOf($), '#rhs, [data-attrid]')
}

/** `empty` only for a page without result markup: one with markup that yields nothing is `partial`. */
function qualityOf(page: ParsedSearchPage, organic: OrganicRead, layout: GoogleLayout): ParseQuality {
  if (page.results.length === 0) return organic.failed > 0 || organic.markup > 0 ? 'partial' : 'empty'
  if (organic.failed > 0 || organic.fallback || layout === 'unknown') return 'partial'
  return 'ok'
}

function dropEmpty(page: ParsedSearchPage): ParsedSearchPage {
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(page)) {
    if (v === undefined || (Array.isArray(v) && v.length === 0 && k !== 'results')) continue
    out[k] = v
  }
  return out as unknown as ParsedSearchPage
}
