/** "People also ask", related searches and the result count, for every layout. */
import type { CheerioAPI } from 'cheerio'
import type { AnyNode, Element } from 'domhandler'
import type { PeopleAlsoAsk, RelatedSearch } from '../engine.types.ts'
import { documentOf, domIndex, type Positions } from '../parse/dom-index.ts'
import { closestMatch, selectAll, selectOne } from '../parse/select.ts'
import { normText } from '../parse/text.ts'
import { bestTextBlock, findLabels, regionOf, searchQueryOf, shortText } from './google-blocks.util.ts'
import { compact, isElement, isInside, parseCount, resultUrl, textOf } from './google-dom.util.ts'

const PAA_LABEL =
  /^(people also ask|more questions|more to ask|autres questions posées|otras preguntas de los usuarios|las personas también preguntan|nutzer fragen auch|altre domande|другие вопросы|похожие вопросы)$/i
const RELATED_LABEL =
  /^(related searches|searches related to .+|other searches|people also search for|related to this search|recherches associées.*|búsquedas relacionadas.*|ähnliche suchanfragen|ricerche correlate|похожие запросы.*|вместе с .+ часто ищут)$/i
const NOT_A_QUERY = /^(more results|see more|view all|more|feedback|show more|more searches)$/i

/** The printed result count ("About 1,230,000 results", "Environ 54 900 000 résultats"). */
export function totalResultsOf($: CheerioAPI, html: string): number | undefined {
  const statsEl = domIndex(documentOf($)).byId('result-stats')
  const stats = statsEl ? normText($(statsEl).text()) : ''
  // Newer desktop pages ship the tools bar inside a script and insert it on load.
  const scripted = stats ? undefined : scriptedStats(html)
  const text = stats || (scripted ? normText(scripted.replace(/&nbsp;/g, ' ')) : '')
  if (!text) return undefined
  // Page 2 reads "Page 2 of about 1,230 results"; the time taken follows in parentheses.
  const count = text.replace(/^\D*page\s+\d+\D+?(?=\d)/i, '').split('(')[0] ?? ''
  return parseCount(count)
}

// The count as the tools bar's script writes it: `result-stats"` (or `\x22`), `>` (or `\x3e`), text.
const SCRIPTED_STATS = /result-stats(?:"|\\x22)(?:>|\\x3e)([^<\\]{1,80})/y

/** The first scripted count: the sticky pattern tried at each `result-stats` (a native search, not a regex scan of the page). */
function scriptedStats(html: string): string | undefined {
  for (let at = html.indexOf('result-stats'); at >= 0; at = html.indexOf('result-stats', at + 1)) {
    SCRIPTED_STATS.lastIndex = at
    const m = SCRIPTED_STATS.exec(html)
    if (m) return m[1]
  }
  return undefined
}

/** Questions of every "People also ask" block, with the answer and its source when the page has them. */
export function peopleAlsoAskOf($: CheerioAPI, scope: AnyNode): PeopleAlsoAsk[] {
  const out: PeopleAlsoAsk[] = []
  const seen = new Set<string>()
  const add = (item: PeopleAlsoAsk) => {
    const key = item.question.toLowerCase()
    if (!item.question || seen.has(key)) return
    seen.add(key)
    out.push(compact(item))
  }

  // JavaScript layouts tag each expandable question with its text in data-q (other widgets reuse
  // data-q for other things, so the expander is required too).
  for (const el of selectAll($, scope, '[data-q]')) {
    const q = normText(el.attribs['data-q'] ?? '')
    if (q.length < 3 || !selectOne($, el, '[aria-expanded]') || !textOf(el).startsWith(q)) continue
    add({ question: q, ...answerOf($, el, q) })
  }

  // The basic layout shows an accordion: each item is a question line followed by its answer panel.
  if (out.length) return out
  for (const label of findLabels($, scope, PAA_LABEL)) {
    const region = regionOf(label, scope, (el) => accordionItems($, el, label).length > 0)
    if (!region) continue
    for (const { title, panel } of accordionItems($, region, label)) add({ question: title, ...answerOf($, panel, title) })
  }
  return out
}

/** The elements holding "People also ask" questions and answers, so other readers can skip them. */
export function peopleAlsoAskRegions($: CheerioAPI, scope: AnyNode): Element[] {
  const regions = selectAll($, scope, '[data-q]').filter((el) => selectOne($, el, '[aria-expanded]') !== undefined)
  if (regions.length) return regions
  for (const label of findLabels($, scope, PAA_LABEL)) {
    const region = regionOf(label, scope, (el) => accordionItems($, el, label).length > 0)
    if (region) regions.push(region)
  }
  return regions
}

/** Items of an accordion below `label`: a short title span followed by the panel it opens. */
function accordionItems($: CheerioAPI, region: Element, label: Element): AccordionItem[] {
  // Asked for every ancestor of a label while looking for its region, then again for the region.
  let byLabel = accordionCache.get(region)
  const hit = byLabel?.get(label)
  if (hit) return hit
  const items: AccordionItem[] = []
  for (const span of selectAll($, region, 'span')) {
    if (isInside(label, span) || isInside(span, label)) continue
    const parent = span.parent
    if (!isElement(parent) || parent.children.find(isElement) !== span || closestMatch(span, 'a')) continue
    const panel = siblingDiv(parent, span)
    const title = shortText($, span, 200)
    // Result titles are headings inside links; an answer panel only links its source.
    if (!panel || !title || selectOne($, panel, 'a h3, a [role="heading"]')) continue
    if (items.some((i) => isInside(span, i.panel))) continue
    items.push({ title, panel })
  }
  if (!byLabel) {
    byLabel = new Map()
    accordionCache.set(region, byLabel)
  }
  byLabel.set(label, items)
  return items
}

/** The first `div` child of `parent` other than `span` (no array per span: a region has thousands). */
function siblingDiv(parent: Element, span: Element): Element | undefined {
  const kids = parent.children
  for (let i = 0; i < kids.length; i++) {
    const k = kids[i]
    if (k !== span && isElement(k) && k.name === 'div') return k
  }
  return undefined
}

interface AccordionItem {
  title: string
  panel: Element
}

const accordionCache = new WeakMap<Element, Map<Element, AccordionItem[]>>()

/** The answer shown under a question: its source link and text, when the page includes them. */
function answerOf($: CheerioAPI, scope: Element, question: string): { snippet?: string; link?: string } {
  let link: string | undefined
  let linkEl: Element | undefined
  for (const a of selectAll($, scope, 'a[href]')) {
    const url = resultUrl(a.attribs.href)
    const text = textOf(a)
    if (!url || !text || /support\.google\.com/.test(url)) continue
    link = url
    linkEl = a
    break
  }
  if (!link) return {}
  const skip = (el: Element) => (linkEl ? isInside(el, linkEl) : false) || textOf(el) === question
  const snippet = bestTextBlock($, scope, skip)
  return { snippet: snippet && snippet !== question ? snippet : undefined, link }
}

/**
 * Query suggestions under "Related searches" (and "People also search for" outside a knowledge
 * panel). Only the links between the label and the next section heading belong to it.
 */
export function relatedSearchesOf($: CheerioAPI, scope: AnyNode, exclude: Element[], order: Positions): RelatedSearch[] {
  const out: RelatedSearch[] = []
  const seen = new Set<string>()
  const add = (value: string) => {
    if (!value || NOT_A_QUERY.test(value) || seen.has(value.toLowerCase())) return
    seen.add(value.toLowerCase())
    out.push({ query: value })
  }
  const outside = (el: Element) => !exclude.some((x) => isInside(el, x))
  const labels = findLabels($, scope, RELATED_LABEL).filter(outside)
  // "People also search for" is an entity carousel when a real "Related searches" block exists.
  const primary = labels.filter((l) => !/people also search for/i.test(textOf(l)))
  for (const label of primary.length ? primary : labels) {
    const after = (el: Element) => (order.get(el) ?? 0) > (order.get(label) ?? 0)
    const region = regionOf(label, scope, (el) => searchLinks($, el, label).some((l) => after(l.el)))
    // A label whose nearest links are organic results is a hidden pop-up inside a result.
    if (!region || selectAll($, region, 'a h3').some((h) => resultUrl(closestMatch(h, 'a')?.attribs.href))) continue
    // The basic layout lists each suggestion as an accordion title over a panel of product chips.
    const accordion = accordionItems($, region, label)
    if (accordion.length) {
      for (const { title } of accordion) add(title)
      continue
    }
    const end = nextSectionStart($, region, label, order)
    const links = searchLinks($, region, label).filter((l) => after(l.el) && outside(l.el) && (order.get(l.el) ?? 0) < end)
    // Suggestions link to a search for their own text; other links (product chips, "more") do not.
    const exact = links.filter((l) => l.text.toLowerCase() === l.query.toLowerCase())
    for (const l of exact.length ? exact : links) add(exact.length ? l.text : l.query)
  }
  return out
}

/** Document position of the first section heading after `label` inside `region`. */
function nextSectionStart($: CheerioAPI, region: Element, label: Element, order: Positions): number {
  const from = order.get(label) ?? 0
  let end = Number.POSITIVE_INFINITY
  for (const h of selectAll($, region, 'h2, [role="heading"][aria-level="2"]')) {
    const at = order.get(h) ?? 0
    if (at > from && !isInside(h, label) && !isInside(label, h) && at < end) end = at
  }
  return end
}

function searchLinks($: CheerioAPI, region: Element, label: Element): { text: string; query: string; el: Element }[] {
  const out: { text: string; query: string; el: Element }[] = []
  for (const a of selectAll($, region, 'a[href]')) {
    if (isInside(a, label)) continue
    const query = searchQueryOf(a.attribs.href)
    const text = normText(textOf(a))
    if (query && text && text.length <= 120) out.push({ text, query, el: a })
  }
  return out
}
