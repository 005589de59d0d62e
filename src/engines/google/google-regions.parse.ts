/**
 * Finds result candidates (a heading inside a link) and the feature regions (video packs, top
 * stories, local packs, featured snippets…) whose items must not be read as organic results.
 * Works on structure — heading roles, levels and their placement — not on class names.
 */
import type { CheerioAPI } from 'cheerio'
import type { AnyNode, Element } from 'domhandler'
import { closest, documentOf, domIndex, hasClass, type Positions } from '../parse/dom-index.ts'
import { selectAll } from '../parse/select.ts'
import { normText } from '../parse/text.ts'
import { findLabels } from './google-blocks.util.ts'
import { ancestors, isElement, isInside, looksLikeBreadcrumb, looksLikeDate, resultUrl, textOf } from './google-dom.util.ts'

export interface Candidate {
  anchor: Element
  heading: Element
  /** Largest element around the candidate that holds no other candidate. */
  container: Element
  order: number
}

export interface RegionOptions {
  /**
   * Where titles are: `headings` inside (or around) result links, as on the desktop, mobile and
   * basic layouts; or `links`, a line of text of each outbound link (see `titleLine`), for layouts
   * that print titles without any heading (the feature-phone /wml page, older basic mobile pages).
   */
  titles?: 'headings' | 'links'
  /** Only known feature names mark a region, so an unknown section label cannot hide the results under it. */
  lenient?: boolean
}

export interface RegionMap {
  candidates: Candidate[]
  /** Feature region roots, with the heading text that labelled them. */
  features: Map<Element, string>
}

// Accessibility labels Google puts over plain organic results; they do not start a feature.
const ORGANIC_LABEL =
  /^(web results?|web results? with site ?links|main results|search results|results|résultats web|résultats de recherche|resultados( de la)? web|resultados de (la )?búsqueda|webergebnisse|suchergebnisse|risultati web|risultati di ricerca|результаты поиска|веб-результаты)$/i

// Known feature names. They mark a region even over a single result (a featured snippet is one
// result under an <h2>), and count as headings where the basic layout prints them as plain text.
const FEATURE_LABEL =
  /^(featured snippets?( from the web)?|top stories|videos?|short videos|trending videos|images( for .*)?|news|latest|recipes|local results|places|twitter( results)?|perspectives|discussions and forums|podcasts|scholarly articles|things to do|hotels|flights|explore brands|popular products|products|refine (results|by)|available on|watch movie|trailers & clips|interesting finds|visual stories|résultats de recherche à proximité|à la une|vidéos|noticias|vídeos|principales noticias|видео|главные новости)$/i

// Sections that never hold result links, so they can't be the header of a result region.
const NON_RESULT_SECTION =
  /^(people also ask|related searches|people also search for|more to ask|more questions|other searches|searches related to|related to this search|recherches associées|autres questions posées|búsquedas relacionadas|otras preguntas|ähnliche fragen|похожие запросы)/i

const HEADER_NOISE = /you will see more english now\.?|about this result|feedback/gi

/** Collects candidates inside `root` and the feature regions that cover some of them. */
export function mapRegions($: CheerioAPI, root: Element, order: Positions, opts: RegionOptions = {}): RegionMap {
  const byAnchor = opts.titles === 'links' ? linkTitles($, root) : headingTitles($, root)

  // How many candidates sit under each element: a container is the top of a single-candidate chain.
  const count = new Map<Element, number>()
  for (const anchor of byAnchor.keys()) {
    for (const a of ancestors(anchor, root)) count.set(a, (count.get(a) ?? 0) + 1)
  }

  const candidates: Candidate[] = []
  for (const [anchor, heading] of byAnchor) {
    let container: Element = anchor
    for (const a of ancestors(anchor, root)) {
      if ((count.get(a) ?? 0) > 1) break
      container = a
    }
    candidates.push({ anchor, heading, container, order: order.get(anchor) ?? 0 })
  }
  candidates.sort((a, b) => a.order - b.order)

  const features = new Map<Element, string>()
  // Section headings: ARIA level-2 headings on the JavaScript layouts; the basic layout prints
  // feature titles as plain text, so known feature names count there too.
  const headings = new Set<Element>(selectAll($, root, 'h2, [role="heading"][aria-level="2"]'))
  for (const label of findLabels($, root, FEATURE_LABEL)) if (!closest(label, isA)) headings.add(label)
  for (const h of headings) {
    const label = textOf(h)
    if (!label || ORGANIC_LABEL.test(label) || NON_RESULT_SECTION.test(label)) continue
    if (opts.lenient && !FEATURE_LABEL.test(label)) continue
    if (candidates.some((c) => isInside(h, c.anchor))) continue
    const region = ancestors(h, root).find((a) => (count.get(a) ?? 0) > 0)
    if (!region) continue
    const hOrder = order.get(h) ?? 0
    const inside = candidates.filter((c) => isInside(c.anchor, region))
    if (inside.some((c) => c.order < hOrder)) continue
    // A heading covers the region only when it is a bare header above it: a heading followed by
    // its own content (an "Available on" list, a PAA block) is a sibling section instead.
    const branch = branchOf(h, region)
    const extra = textOf(branch, { skip: new Set<AnyNode>([h]) })
      .replace(HEADER_NOISE, '')
      .trim()
    if (extra.length > 60) continue
    // A lone result under an <h2> is an organic result with a screen-reader label.
    if (inside.length === 1 && h.name === 'h2' && !FEATURE_LABEL.test(label)) continue
    features.set(region, label)
  }

  return { candidates, features }
}

/** Result links titled by a heading: an <h3> or level-3 ARIA heading inside the link, or a link inside one. */
function headingTitles($: CheerioAPI, root: Element): Map<Element, Element> {
  const byAnchor = new Map<Element, Element>()
  // `a h3, a [role="heading"][aria-level="3"], h3 a[href], [role="heading"][aria-level="3"] a[href]`,
  // the outer element inside `root`, without a selector engine: this runs over every element.
  const inRoot = (el: Element, test: (x: Element) => boolean) => {
    for (let cur = el.parent; cur && cur !== root && isElement(cur); cur = cur.parent) if (test(cur)) return true
    return false
  }
  const found = domIndex(documentOf($)).findAll(root, (el) =>
    isTitleHeading(el) ? inRoot(el, isA) : isA(el) && el.attribs.href !== undefined && inRoot(el, isTitleHeading),
  )
  for (const el of found) {
    const isLinkInHeading = el.name === 'a'
    const anchor = isLinkInHeading ? el : closest(el, isA)
    const heading = isLinkInHeading ? closest(el, (x) => x.name === 'h3' || x.attribs.role === 'heading') : el
    if (!anchor || !heading || byAnchor.has(anchor)) continue
    if (closest(anchor, isExcludedZone)) continue
    byAnchor.set(anchor, heading)
  }
  return byAnchor
}

const isA = (el: Element) => el.name === 'a'
const isTitleHeading = (el: Element) => el.name === 'h3' || (el.attribs.role === 'heading' && el.attribs['aria-level'] === '3')
// Ads (text ads, the product-ad carousel) and the right-hand panel are parsed on their own:
// `#tads, #tadsb, #bottomads, #tvcap, #atvcap, [data-text-ad], [data-pla], .pla-unit, #rhs`.
const EXCLUDED_IDS = new Set(['tads', 'tadsb', 'bottomads', 'tvcap', 'atvcap', 'rhs'])
const isExcludedZone = (el: Element) =>
  EXCLUDED_IDS.has(el.attribs.id as string) || el.attribs['data-text-ad'] !== undefined || el.attribs['data-pla'] !== undefined || hasClass(el, 'pla-unit')

/**
 * Outbound links titled by a line of their own text. Only the first link to each target counts:
 * thumbnails and repeated links share the result's URL.
 */
function linkTitles($: CheerioAPI, root: Element): Map<Element, Element> {
  const byAnchor = new Map<Element, Element>()
  const targets = new Set<string>()
  for (const a of selectAll($, root, 'a[href]')) {
    const url = resultUrl(a.attribs.href)
    if (!url || targets.has(url) || closest(a, isExcludedZone)) continue
    const title = titleLine(a)
    if (!title) continue
    targets.add(url)
    byAnchor.set(a, title)
  }
  return byAnchor
}

/**
 * The title among the text lines of a result link. Layouts print either the title above the
 * address ("Title / example.com › docs") or the site name and address above the title ("Site /
 * example.com › docs / Title"): the first line after the address wins, else the first line.
 */
function titleLine(a: Element): Element | undefined {
  const lines = textLeaves(a).filter((el) => !looksLikeDate(textOf(el)))
  const crumb = lines.findLastIndex((el) => looksLikeBreadcrumb(textOf(el)))
  // A title has letters: a bare "2:20" is a video's duration.
  const isTitle = (el: Element) => /\p{L}/u.test(textOf(el)) && !looksLikeBreadcrumb(textOf(el))
  return lines.slice(crumb + 1).find(isTitle) ?? lines.find(isTitle)
}

/** Elements holding text of their own (read whole, with their inline children), in document order. */
function textLeaves(el: Element, out: Element[] = []): Element[] {
  if (el.children.some((c) => c.type === 'text' && normText((c as unknown as { data: string }).data))) {
    if (textOf(el)) out.push(el)
    return out
  }
  for (const k of el.children) if (isElement(k) && k.name !== 'script' && k.name !== 'style') textLeaves(k, out)
  return out
}

/** The child of `region` on the path down to `el`. */
function branchOf(el: Element, region: Element): Element {
  let cur: Element = el
  while (cur.parent && cur.parent !== region) cur = cur.parent as Element
  return cur
}

/** The label of the feature region holding `el`, if any. */
export function featureOf(el: Element, features: Map<Element, string>, root: Element): string | undefined {
  for (const a of ancestors(el, root)) {
    const label = features.get(a)
    if (label !== undefined) return label
  }
  return undefined
}
