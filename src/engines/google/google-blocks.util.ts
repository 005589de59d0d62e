/** Structural lookups shared by the feature parsers: section labels, text blocks, search links. */
import type { CheerioAPI } from 'cheerio'
import type { AnyNode, Element } from 'domhandler'
import { documentOf, domIndex } from '../parse/dom-index.ts'
import { normText, trimmedLength } from '../parse/text.ts'
import { isElement, remembered, textOf } from './google-dom.util.ts'

const BLOCK = new Set(['div', 'p', 'ul', 'ol', 'li', 'table', 'tr', 'td', 'h1', 'h2', 'h3', 'h4', 'section'])

export const hasBlockChild = (el: Element): boolean => el.children.some((k) => isElement(k) && BLOCK.has(k.name))

/** The nearest block-level element around `el` (inside `stop`): its visual line. */
export function lineOf(el: Element, stop: Element): Element {
  let cur: Element = el
  while (cur.parent && cur !== stop && !BLOCK.has(cur.name)) cur = cur.parent as Element
  return cur
}

/**
 * Elements whose whole text is a section label matching `label` ("People also ask"). Headings are
 * preferred, but the basic layout prints labels as plain spans, so any short element counts; the
 * innermost match wins.
 */
export function findLabels($: CheerioAPI, scope: AnyNode, label: RegExp): Element[] {
  const doc = documentOf($)
  let byLabel = labelHits.get(doc)
  if (!byLabel) {
    byLabel = new Map()
    labelHits.set(doc, byLabel)
  }
  let all = byLabel.get(label)
  if (!all) {
    all = labelCandidates($).filter((el) => label.test(textOf(el)))
    byLabel.set(label, all)
  }
  const index = domIndex(doc)
  const hits = all.filter((el) => index.inside(el, scope))
  return hits.filter((el) => !hits.some((o) => o !== el && isDescendant(o, el)))
}

// The matches of each label in the whole document; a scope only narrows them.
const labelHits = new WeakMap<AnyNode, Map<RegExp, Element[]>>()

// Every element short enough to be a label, in document order, found once per document: a page
// is searched for several labels (features, "People also ask", related searches, top stories).
const labelCache = new WeakMap<AnyNode, Element[]>()
const LABEL_TAGS = new Set(['h1', 'h2', 'h3', 'h4', 'span', 'div'])
const TEXT_BLOCK = new Set(['div', 'span', 'p', 'li'])
const isA = (el: Element) => el.name === 'a'

function labelCandidates($: CheerioAPI): Element[] {
  const doc = documentOf($)
  const cached = labelCache.get(doc)
  if (cached) return cached
  textLengths($)
  // `h1, h2, h3, h4, [role="heading"], span, div` with 1 to 80 characters of text.
  const found = domIndex(doc).findAll(doc, (el) => {
    if (!LABEL_TAGS.has(el.name) && el.attribs.role !== 'heading') return false
    const len = (el as Sized)[LENGTH] ?? 0
    return len > 0 && len <= 80
  })
  labelCache.set(doc, found)
  return found
}

/** The element's text when it is at most `max` characters long. */
export function shortText($: CheerioAPI, el: Element, max: number): string | undefined {
  textLengths($)
  const len = (el as Sized)[LENGTH] ?? 0
  return len > 0 && len <= max ? textOf(el) : undefined
}

// Text length of every element, computed in one pass per document: label lookups run several
// times per page and would otherwise walk big subtrees again and again. Each length is kept on its
// element (like textOf's cache; a Map of thousands of entries cost more to fill and to collect);
// a subtree's length does not depend on the document root it was reached from.
const LENGTH = Symbol('textLength')
type Sized = Element & { [LENGTH]?: number }
const measured = new WeakSet<AnyNode>()

function textLengths($: CheerioAPI): void {
  const doc = documentOf($)
  if (measured.has(doc)) return
  measureText(doc)
  measured.add(doc)
}

/** Sets the trimmed text length of every element under `n` (itself included); returns `n`'s. */
function measureText(n: AnyNode): number {
  if (n.type === 'text') return trimmedLength((n as unknown as { data: string }).data)
  const kids = (n as { children?: AnyNode[] }).children
  if (!kids || (isElement(n) && (n.name === 'script' || n.name === 'style'))) return 0
  let sum = 0
  for (let i = 0; i < kids.length; i++) sum += measureText(kids[i] as AnyNode)
  if (isElement(n)) (n as Sized)[LENGTH] = sum
  return sum
}

function isDescendant(node: AnyNode, of: AnyNode): boolean {
  let cur = node.parent
  while (cur) {
    if (cur === of) return true
    cur = cur.parent
  }
  return false
}

/** The nearest ancestor of `label` that also holds something matching `test`. */
export function regionOf(label: Element, stop: AnyNode, test: (el: Element) => boolean): Element | undefined {
  let cur = label.parent
  while (cur && cur !== stop && isElement(cur)) {
    if (test(cur)) return cur
    cur = cur.parent
  }
  return undefined
}

/**
 * The main text of a block: the longest run of text not split by block elements, leaving out
 * `skip` subtrees and links. A list of short lines (steps, names) is joined with " · ".
 */
export function bestTextBlock($: CheerioAPI, scope: Element, skip: (el: Element) => boolean): string | undefined {
  let best: Element | undefined
  let bestText = ''
  const index = domIndex(documentOf($))
  for (const el of index.findAll(scope, (x) => TEXT_BLOCK.has(x.name))) {
    if (skip(el) || hasBlockChild(el)) continue
    // Links trailing a snippet in the basic layout are sitelinks, not snippet words.
    const links = index.findAll(el, isA)
    const t = (links.length ? textOf(el, { skip: new Set<AnyNode>(links) }) : textOf(el)).replace(/(\s*·)+\s*$/, '').replace(/^(\s*·)+\s*/, '')
    if (t.length > bestText.length) {
      best = el
      bestText = t
    }
  }
  if (!best || bestText.length < 25) return undefined
  const siblings = (best.parent?.children ?? []).filter(
    (k): k is Element => isElement(k) && !hasBlockChild(k) && !skip(k) && !index.findFirst(k, isA) && textOf(k).length > 0,
  )
  if (siblings.length >= 3 && siblings.every((k) => textOf(k).length <= 80)) {
    return siblings.map((k) => textOf(k)).join(' · ')
  }
  return bestText
}

/** The query of a Google search link (`/search?q=…`), or undefined for any other link. */
export function searchQueryOf(href: string | undefined): string | undefined {
  if (!href) return undefined
  // Related-search regions are looked for around every label's ancestors: the same links again.
  return rememberedSearchQuery(href)
}

const rememberedSearchQuery = remembered(readSearchQuery)

function readSearchQuery(href: string): string | undefined {
  try {
    const u = new URL(href, 'https://www.google.com')
    if (!/(^|\.)google\.[a-z.]+$/.test(u.hostname) || u.pathname !== '/search') return undefined
    const q = u.searchParams.get('q')
    return q ? normText(q) : undefined
  } catch {
    return undefined
  }
}

/** The visual lines of an element: text split at block boundaries and `<br>`. */
export function linesOf(el: Element, skip?: (el: Element) => boolean): string[] {
  const parts: string[] = []
  const walk = (n: AnyNode) => {
    if (n.type === 'text') {
      parts.push((n as unknown as { data: string }).data)
      return
    }
    if (!isElement(n) || n.name === 'script' || n.name === 'style') return
    if (skip?.(n)) return
    if (n.name === 'br') {
      parts.push('\n')
      return
    }
    const block = BLOCK.has(n.name) || n.name === 'g-tray-header'
    if (block) parts.push('\n')
    for (const c of n.children) walk(c)
    if (block) parts.push('\n')
  }
  walk(el)
  return parts
    .join('')
    .split('\n')
    .map((l) => normText(l))
    .filter((l) => l.length > 0)
}
