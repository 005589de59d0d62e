/**
 * Organic results for every layout: a result is a titled link (an <h3>, or a level-3 ARIA heading
 * on mobile) outside the feature regions, read together with the container around it.
 */
import type { CheerioAPI } from 'cheerio'
import type { Element } from 'domhandler'
import type { OrganicResult, Sitelink } from '../engine.types.ts'
import { closest, documentOf, domIndex, hasClass, type Positions } from '../parse/dom-index.ts'
import { domainOf, normText } from '../parse/text.ts'
import { bestTextBlock, hasBlockChild, lineOf } from './google-blocks.util.ts'
import { compact, isElement, isInside, looksLikeBreadcrumb, looksLikeDate, resultUrl, splitLeadingDate, textOf } from './google-dom.util.ts'
import { type Candidate, featureOf, mapRegions, type RegionOptions } from './google-regions.parse.ts'

export interface OrganicParse {
  results: OrganicResult[]
  /** Containers that looked like organic results but lacked the fields to be one. */
  failed: number
  /**
   * Result markup seen, read or not: links titled by a heading, or by a line of text above a
   * breadcrumb. A page with some is never a genuine no-results page.
   */
  markup: number
  /** Links shown inside feature regions (featured snippet, videos…), kept out of `results`. */
  featureLinks: Set<string>
  /** Document-order index of the first organic result, to tell ads above results from ads below. */
  firstOrder: number
}

interface Draft {
  result: OrganicResult
  container: Element
  order: number
}

const CHROME_TEXT =
  /^(cached|similar|learn why|learn more|translate this page|en cache|similaires|traduire cette page|more results from .*|read more|more items\.*)$/i

export function parseOrganic($: CheerioAPI, root: Element, order: Positions, opts: RegionOptions = {}): OrganicParse {
  const { candidates, features } = mapRegions($, root, order, opts)
  const byLinks = opts.titles === 'links'
  const drafts: Draft[] = []
  const featureLinks = new Set<string>()
  let failed = 0
  let markup = 0

  for (const c of candidates) {
    const link = resultUrl(c.anchor.attribs.href)
    if (!link) continue
    const displayed = displayedLinkOf($, c)
    // Without headings any link has a first line; only one above a breadcrumb is result markup.
    if (!byLinks || displayed) markup++
    if (featureOf(c.anchor, features, root) !== undefined || find($).findFirst(c.heading, isCite)) {
      featureLinks.add(link)
      continue
    }
    if (!displayed && isSitelinkRow($, c)) {
      const owner = drafts.at(-1)
      if (owner?.container.parent && isInside(c.anchor, owner.container.parent)) {
        const title = textOf(c.heading)
        if (title) owner.result.sitelinks = [...(owner.result.sitelinks ?? []), { title, link }]
        continue
      }
    }
    const title = textOf(c.heading)
    const { snippet, date } = snippetOf($, c)
    // Cards titled by a role=heading (app installs, carousels) and links titled by a plain line of
    // text count only with a breadcrumb.
    if (!title || (!displayed && (!snippet || c.heading.name !== 'h3'))) {
      if (c.heading.name === 'h3') failed++
      continue
    }
    const sitelinks = sitelinksOf($, c, link, title)
    drafts.push({
      container: c.container,
      order: c.order,
      result: compact({
        position: 0,
        title,
        link,
        domain: domainOf(link),
        displayed_link: displayed,
        snippet,
        date,
        sitelinks,
      }),
    })
  }

  const results = drafts.map((d, i) => ({ ...d.result, position: i + 1 }))
  return { results, failed, markup, featureLinks, firstOrder: drafts[0]?.order ?? Number.POSITIVE_INFINITY }
}

/** Rows of a sitelinks table: a titled link with a one-line description and no breadcrumb. */
function isSitelinkRow(_$: CheerioAPI, c: Candidate): boolean {
  const parent = c.anchor.parent
  return closest(c.anchor, (el) => el.name === 'table' || el.attribs.role === 'list') !== undefined || (isElement(parent) && parent.name === 'h3')
}

const isCite = (el: Element) => el.name === 'cite'
const isLink = (el: Element) => el.name === 'a' && el.attribs.href !== undefined
const isRoleText = (el: Element) => el.attribs.role === 'text'
/** The page's element index (selectors run over it without re-walking the tree). */
const find = ($: CheerioAPI) => domIndex(documentOf($))

function displayedLinkOf($: CheerioAPI, c: Candidate): string | undefined {
  const cite = find($).findFirst(c.container, (el) => el.name === 'cite' && !isInside(el, c.heading))
  if (cite) {
    const t = textOf(cite)
    if (t) return t
  }
  // Mobile pages show the breadcrumb as a `role=text` span next to the site name.
  for (const el of find($).findAll(c.container, isRoleText)) {
    if (isInside(el, c.heading) || closest(el.parent, isRoleText)) continue
    const t = textOf(el)
    if (t && looksLikeBreadcrumb(t)) return t
  }
  // The basic layout prints the breadcrumb as a plain line under the title, inside the link.
  const line = find($).findFirst(c.anchor, (el) => {
    if ((el.name !== 'div' && el.name !== 'span') || isInside(el, c.heading) || hasBlockChild(el)) return false
    const t = textOf(el)
    return !!t && looksLikeBreadcrumb(t)
  })
  return line ? textOf(line) : undefined
}

/**
 * The snippet and the date printed before it: Google's clamped snippet block, else the longest
 * plain text block (some results show only a date and a list).
 */
function snippetOf($: CheerioAPI, c: Candidate): { snippet?: string; date?: string } {
  let date: string | undefined
  const found = (text: string) => {
    const split = splitLeadingDate(text)
    return { snippet: split.rest || undefined, date: date ?? split.date }
  }
  const skip = (el: Element) => isInside(el, c.anchor) || withinChrome(el, c.container)

  // Google clamps the snippet block with an inline line-clamp style; the class names (current and
  // 2020's span.st) are only a second signal.
  // `[style*="line-clamp"], [data-content-feature="1"], .VwiC3b, span.st`
  const structured = find($).findAll(
    c.container,
    (el) =>
      (el.attribs.style?.includes('line-clamp') ||
        el.attribs['data-content-feature'] === '1' ||
        hasClass(el, 'VwiC3b') ||
        (el.name === 'span' && hasClass(el, 'st'))) &&
      !skip(el),
  )
  for (const el of structured) {
    const t = textOf(el).replace(/\s*[—–]$/, '')
    if (looksLikeDate(t)) date ??= t
    else if (t.length >= 2) return found(t)
  }

  const block = bestTextBlock($, c.container, skip)
  return block ? found(block) : { date }
}

// Breadcrumbs, menus and decorative copies inside a result. The check stops at the result
// container because Google marks the whole page aria-hidden while its consent dialog is open.
function withinChrome(el: Element, container: Element): boolean {
  for (let cur: Element | null = el; cur && cur !== container; cur = cur.parent as Element | null) {
    if (!isElement(cur)) return false
    const role = cur.attribs.role
    if (cur.name === 'cite' || cur.name === 'g-snackbar' || cur.attribs['aria-hidden'] === 'true') return true
    if (role === 'button' || role === 'text' || role === 'menu' || role === 'menuitem') return true
  }
  return false
}

const FACT_ROW = /^[^·:›]{1,60}:\s/

function sitelinksOf($: CheerioAPI, c: Candidate, link: string, title: string): Sitelink[] {
  const out: Sitelink[] = []
  const seen = new Set([link])
  for (const a of find($).findAll(c.container, isLink)) {
    if (a === c.anchor || isInside(a, c.anchor)) continue
    if (withinChrome(a, c.container)) continue
    const target = resultUrl(a.attribs.href)
    const text = normText(textOf(a))
    if (!target || !text || text === title || text.length > 80 || CHROME_TEXT.test(text)) continue
    if (seen.has(target)) continue
    // "Key people: Sundar Pichai" style facts link entities; sitelinks stand on their own.
    if (FACT_ROW.test(textOf(lineOf(a, c.container)))) continue
    seen.add(target)
    out.push({ title: text, link: target })
  }
  return out
}
