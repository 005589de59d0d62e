/**
 * The last reader of a Google result page, for a layout no other reader understood: outbound
 * result links (an http(s) link off Google, or a `/url?q=` redirect to one) that carry a title,
 * inside the main results container. A page holding such links is never read as "no results";
 * what this reader finds is answered as `partial`.
 */
import type { CheerioAPI } from 'cheerio'
import type { AnyNode, Element } from 'domhandler'
import type { OrganicResult } from '../engine.types.ts'
import { closest, type DomIndex, documentOf, domIndex, hasClass } from '../parse/dom-index.ts'
import { domainOf, normText } from '../parse/text.ts'
import { bestTextBlock } from './google-blocks.util.ts'
import { ancestors, compact, isElement, isInside, looksLikeBreadcrumb, looksLikeDate, resultUrl, splitLeadingDate, textOf } from './google-dom.util.ts'

/** Where results are looked for, narrowest first; the body when the page has none of them. */
const CONTAINER_IDS = ['rso', 'search', 'center_col', 'main'] as const

// Google's own hosts: a link there titled by plain text is the page's chrome (help, sign-in, policies).
const GOOGLE_OWNED = /(^|\.)(google\.[a-z.]+|gstatic\.com|googleapis\.com|googleusercontent\.com|googleadservices\.com|doubleclick\.net)$/i
// Link texts of result chrome, never a title.
const CHROME_TEXT = /^(cached|similar|translate this page|more results( from .*)?|learn more|read more|see more|feedback|more|next|previous)$/i
// Ads, the side panel and the page's own navigation, header and footer.
const EXCLUDED_IDS = new Set(['tads', 'tadsb', 'bottomads', 'tvcap', 'atvcap', 'rhs', 'foot', 'footcnt', 'top_nav', 'hdtb', 'searchform'])
const EXCLUDED_TAGS = new Set(['header', 'footer', 'nav', 'form'])
const EXCLUDED_ROLES = new Set(['navigation', 'banner', 'contentinfo', 'search'])
// Google's own elements (g-inner-card, g-scrolling-carousel, g-section-with-header…) frame its
// carousels and panels; an organic result is never inside one.
const isExcluded = (el: Element) =>
  el.name.startsWith('g-') ||
  EXCLUDED_IDS.has(el.attribs.id as string) ||
  EXCLUDED_TAGS.has(el.name) ||
  EXCLUDED_ROLES.has(el.attribs.role as string) ||
  el.attribs['data-text-ad'] !== undefined ||
  el.attribs['data-pla'] !== undefined ||
  hasClass(el, 'pla-unit')

const isHeading = (el: Element) => /^h[1-6]$/.test(el.name) || el.attribs.role === 'heading'

interface Titled {
  anchor: Element
  link: string
  title: string
  /** The element the title was read from. */
  titleEl: Element
  /** Titled by a heading (inside the link or around it), rather than by a line of its text. */
  heading: boolean
}

/**
 * Outbound titled links of the first results container that has any (see CONTAINER_IDS), read as
 * organic results: links titled by a heading when the page has some, else by a line of their
 * own text. Each link once, in page order.
 */
export function outboundResults($: CheerioAPI, body: Element): OrganicResult[] {
  const index = domIndex(documentOf($))
  const containers = [...CONTAINER_IDS.map((id) => index.byId(id)).filter((el): el is Element => el !== undefined), body]
  for (const root of containers) {
    const results = readContainer($, root)
    if (results.length) return results
  }
  return []
}

function readContainer($: CheerioAPI, root: Element): OrganicResult[] {
  const index = domIndex(documentOf($))
  const titled: Titled[] = []
  for (const anchor of index.findAll(root, (el) => el.name === 'a' && el.attribs.href !== undefined)) {
    const link = resultUrl(anchor.attribs.href)
    if (!link || excludedBelow(anchor, root)) continue
    const t = titleOf(anchor, index)
    // Google's own pages are results of queries about Google, but only under a heading: its
    // help, sign-in and policy links are plain text.
    if (!t || (!t.heading && !offGoogle(link))) continue
    titled.push({ anchor, link, ...t })
  }
  // Links titled by headings are the results when the page has any; the others are sitelinks,
  // menus, panels and thumbnails around them. Each target once, at its first chosen link.
  const targets = new Set<string>()
  const chosen = (titled.some((t) => t.heading) ? titled.filter((t) => t.heading) : titled).filter((t) => {
    if (targets.has(t.link)) return false
    targets.add(t.link)
    return true
  })

  // A result's container: the largest element around its link that holds no other chosen link.
  const count = new Map<Element, number>()
  for (const t of chosen) for (const a of ancestors(t.anchor, root)) count.set(a, (count.get(a) ?? 0) + 1)
  return chosen.map((t, i) => {
    let container = t.anchor
    for (const a of ancestors(t.anchor, root)) {
      if ((count.get(a) ?? 0) > 1) break
      container = a
    }
    const block = bestTextBlock($, container, (el) => isInside(el, t.anchor) || isInside(el, t.titleEl))
    const { date, rest } = block ? splitLeadingDate(block) : { date: undefined, rest: '' }
    return compact({
      position: i + 1,
      title: t.title,
      link: t.link,
      domain: domainOf(t.link),
      displayed_link: breadcrumbOf(container, t.titleEl),
      snippet: rest && rest !== t.title ? rest : undefined,
      date,
    })
  })
}

function offGoogle(link: string): boolean {
  try {
    return !GOOGLE_OWNED.test(new URL(link).hostname)
  } catch {
    return false
  }
}

/** A link's title: a heading inside it or around it, else its first line of text that reads like one. */
function titleOf(anchor: Element, index: DomIndex): { title: string; titleEl: Element; heading: boolean } | undefined {
  const inner = index.findFirst(anchor, isHeading)
  const outer = inner ? undefined : closest(anchor.parent, isHeading)
  const headingEl = inner ?? outer
  if (headingEl) {
    const title = textOf(inner ?? anchor)
    if (isTitle(title)) return { title, titleEl: inner ?? anchor, heading: true }
  }
  for (const line of textLines(anchor)) {
    const title = textOf(line)
    if (isTitle(title)) return { title, titleEl: line, heading: false }
  }
  return undefined
}

const isTitle = (t: string) => t.length >= 3 && t.length <= 300 && /\p{L}/u.test(t) && !looksLikeBreadcrumb(t) && !looksLikeDate(t) && !CHROME_TEXT.test(t)

/** Whether `el` sits in an excluded zone (ads, side panel, navigation) inside `root`. */
function excludedBelow(el: Element, root: Element): boolean {
  for (let cur: AnyNode | null = el; cur && cur !== root && isElement(cur); cur = cur.parent) if (isExcluded(cur)) return true
  return false
}

/** Elements holding text of their own (read whole, with their inline children), in document order. */
function textLines(el: Element, out: Element[] = []): Element[] {
  if (el.children.some((c) => c.type === 'text' && normText((c as unknown as { data: string }).data))) {
    out.push(el)
    return out
  }
  for (const k of el.children) if (isElement(k) && k.name !== 'script' && k.name !== 'style') textLines(k, out)
  return out
}

/** The address line of a result ("example.com › docs"), outside its title. */
function breadcrumbOf(container: Element, titleEl: Element): string | undefined {
  for (const line of textLines(container)) {
    if (isInside(line, titleEl) || isInside(titleEl, line)) continue
    const t = textOf(line)
    if (t && t.length <= 120 && looksLikeBreadcrumb(t)) return t
  }
  return undefined
}
