/** The knowledge panel and the answer box (featured snippet and direct answers). */
import type { CheerioAPI } from 'cheerio'
import type { AnyNode, Element } from 'domhandler'
import type { AnswerBox, KnowledgeGraph } from '../engine.types.ts'
import { closestMatch, selectAll, selectOne } from '../parse/select.ts'
import { domainOf, normText } from '../parse/text.ts'
import { bestTextBlock, findLabels, hasBlockChild, linesOf, regionOf } from './google-blocks.util.ts'
import { compact, isInside, resultUrl, textOf, unwrapGoogleUrl } from './google-dom.util.ts'
import { peopleAlsoAskRegions } from './google-features.parse.ts'

const FACT = /^([^:]{1,40}?)\s*:\s*(.{1,200})$/s
const FEATURED_LABEL = /^featured snippet( from the web)?$|^extrait optimisé|^fragmento destacado|^hervorgehobenes snippet|^избранный фрагмент/i

/** The knowledge panel, read from its `data-attrid` fields, or from the basic layout's entity card. */
export function knowledgeGraphOf($: CheerioAPI, scope: AnyNode, basicLayout: boolean): KnowledgeGraph | undefined {
  return attridPanel($, scope) ?? (basicLayout ? basicPanel($, scope) : undefined)
}

function attridPanel($: CheerioAPI, scope: AnyNode): KnowledgeGraph | undefined {
  const titles = selectAll($, scope, '[data-attrid="title"]')
  if (!titles.length) return undefined
  const description = selectOne($, scope, '[data-attrid="description"], [data-attrid="VisualDigestDescription"]')
  // With several panels (a business and a topic), the one holding the description is the topic.
  const title = (description && closestTo(titles, description)) || titles[0]
  if (!title) return undefined
  const panel = description ? commonAncestor(title, description) : (closestMatch(title, '#rhs, .kp-wholepage') ?? scope)
  const field = (id: string) => selectOne($, panel, `[data-attrid="${id}"]`)

  const kg: KnowledgeGraph = { title: textOf(title) }
  const subtitle = field('subtitle')
  if (subtitle) kg.type = textOf(subtitle)
  if (description) {
    const source = selectAll($, description, 'a[href]').find((a) => resultUrl(a.attribs.href))
    const heading = selectAll($, description, 'h2, h3, [role="heading"]')
    const text = textOf(description, { skip: new Set<AnyNode>([...heading, ...(source ? [source] : [])]) })
    Object.assign(kg, withSource(text, source))
  }
  const site = field('visit_official_site')
  const siteLink = site && (site.name === 'a' ? site : selectOne($, site, 'a[href]'))
  const website = siteLink ? resultUrl(siteLink.attribs.href) : null
  if (website) kg.website = website
  const image = imageOf($, field('image'))
  if (image) kg.image_url = image

  const attributes: Record<string, string> = {}
  for (const el of selectAll($, panel, '[data-attrid^="kc:/"], [data-attrid^="ss:/"], [data-attrid^="hw:/"]')) {
    const m = FACT.exec(textOf(el))
    if (!m?.[1] || !m[2] || attributes[m[1]] || !looksLikeFact(m[1], m[2])) continue
    attributes[m[1]] = cleanValue(m[2])
  }
  if (Object.keys(attributes).length) kg.attributes = attributes
  return compact(kg)
}

/**
 * Fact rows are short "Label: value" lines ("Founders: …"). Widgets that happen to contain a colon
 * (a nutrition table: "Nutrition Facts Coffee Sources include: USDA…") are not facts.
 */
function looksLikeFact(label: string, value: string): boolean {
  // Stuttered text ("USDAUSDAUSDA") is a widget's repeated source badges, not a value.
  return label.split(/\s+/).length <= 4 && value.length <= 300 && !/(\w{3,})\1\1/.test(value)
}

/** The basic layout's entity card: a heading outside any link, a type line, a sourced description and facts. */
function basicPanel($: CheerioAPI, scope: AnyNode): KnowledgeGraph | undefined {
  for (const h of selectAll($, scope, 'h3')) {
    if (closestMatch(h, 'a')) continue
    const card = regionOf(h, scope, (el) => linesOf(el).some((l) => l.length > 80))
    if (!card) continue
    const lines = linesOf(card)
    const title = textOf(h)
    const typeLine = lines[lines.indexOf(title) + 1]
    const facts: Record<string, string> = {}
    let description: Element | undefined
    for (const el of selectAll($, card, 'div')) {
      if (hasBlockChild(el)) continue
      const text = textOf(el)
      const m = FACT.exec(text)
      if (m?.[1] && m[2] && text.length < 200) facts[m[1]] ??= cleanValue(m[2])
      else if (text.length > (description ? textOf(description).length : 80)) description = el
    }
    if (!description) continue
    const kg: KnowledgeGraph = { title }
    if (typeLine && !FACT.test(typeLine)) {
      kg.type = typeLine.split(' · ')[0]
      const site = selectAll($, card, 'a[href]').find((a) => typeLine.includes(textOf(a)) && resultUrl(a.attribs.href))
      if (site) kg.website = resultUrl(site.attribs.href) ?? undefined
    }
    const source = selectAll($, description, 'a[href]').find((a) => resultUrl(a.attribs.href))
    Object.assign(kg, withSource(textOf(description, { skip: new Set<AnyNode>(source ? [source] : []) }), source))
    const image = imageOf($, card)
    if (image) kg.image_url = image
    if (Object.keys(facts).length) kg.attributes = facts
    return compact(kg)
  }
  return undefined
}

/**
 * The description and its source. When the source link is an icon, its name ("Wikipedia") is
 * printed after the last sentence instead.
 */
function withSource(text: string, source: Element | undefined): Pick<KnowledgeGraph, 'description' | 'source'> {
  const link = source ? resultUrl(source.attribs.href) : null
  if (!link || !source) return { description: text || undefined }
  let name = textOf(source) || source.attribs['aria-label'] || ''
  let description = text
  const trailer = /[.!?…]\s+([^.!?…]{2,30})$/.exec(text)
  if (!name && trailer?.[1]) {
    name = trailer[1]
    description = text.slice(0, trailer.index + 1)
  }
  return { description: description || undefined, source: { name: name || domainOf(link), link } }
}

/** A real image URL: a direct http(s) src, or the original behind an `imgurl=` link; never inline data. */
function imageOf($: CheerioAPI, el: Element | undefined): string | undefined {
  if (!el) return undefined
  for (const a of selectAll($, el, 'a[href*="imgurl="]')) {
    const u = new URL(a.attribs.href ?? '', 'https://www.google.com').searchParams.get('imgurl')
    if (u && /^https?:/.test(u)) return u
  }
  for (const img of selectAll($, el, 'img')) {
    const src = img.attribs['data-src'] ?? img.attribs.src
    if (src && /^https?:/.test(src)) return src
  }
  return undefined
}

function cleanValue(v: string): string {
  return normText(v.replace(/,?\s*\bMORE\b\s*$/, '').replace(/\s+,/g, ','))
}

function closestTo(candidates: Element[], target: Element): Element | undefined {
  let best: Element | undefined
  let bestDepth = -1
  for (const c of candidates) {
    const depth = depthOf(commonAncestor(c, target))
    if (depth > bestDepth) {
      best = c
      bestDepth = depth
    }
  }
  return best
}

function commonAncestor(a: Element, b: Element): Element {
  const up = new Set<AnyNode>()
  for (let cur: AnyNode | null = a; cur; cur = cur.parent) up.add(cur)
  for (let cur: AnyNode | null = b; cur; cur = cur.parent) if (up.has(cur)) return cur as Element
  return a
}

function depthOf(el: AnyNode): number {
  let d = 0
  for (let cur = el.parent; cur; cur = cur.parent) d++
  return d
}

/**
 * The answer box: a featured snippet (found by its label or its "About featured snippets" link)
 * or a direct answer (calculator, weather, a one-line fact).
 */
export function answerBoxOf($: CheerioAPI, scope: AnyNode): AnswerBox | undefined {
  return featuredSnippet($, scope) ?? directAnswer($, scope)
}

function featuredSnippet($: CheerioAPI, scope: AnyNode): AnswerBox | undefined {
  const paa = peopleAlsoAskRegions($, scope)
  const inPaa = (el: Element) => paa.some((p) => isInside(el, p))
  const anchors = [...findLabels($, scope, FEATURED_LABEL), ...selectAll($, scope, 'a[href*="featured_snippets"]')].filter((el) => !inPaa(el))

  for (const start of anchors) {
    const region = regionOf(start, scope, (el) => sourceOf($, el) !== undefined)
    if (!region || inPaa(region)) continue
    const source = sourceOf($, region)
    if (!source) continue
    const heading = selectOne($, source, 'h3, [role="heading"]')
    const title = heading ? textOf(heading) : linesOf(source)[0]
    const link = resultUrl(source.attribs.href) as string
    const description = selectOne($, region, '[data-attrid="wa:/description"], [data-tts="answers"]')
    const skip = (el: Element) =>
      isInside(el, source) || isInside(el, start) || el.name === 'cite' || el.attribs.role === 'button' || /featured snippet/i.test(textOf(el))
    const snippet = description ? textOf(description) : bestTextBlock($, region, skip)
    const boldEl = description && selectOne($, description, 'b')
    const bold = boldEl ? $(boldEl).text() : ''
    return compact({
      type: 'featured_snippet',
      title,
      answer: bold && bold.length < (snippet?.length ?? 0) ? normText(bold) : undefined,
      snippet,
      link,
      domain: domainOf(link),
    })
  }
  return undefined
}

/** The result the snippet was taken from: the first outbound link that carries a title. */
function sourceOf($: CheerioAPI, region: Element): Element | undefined {
  return selectAll($, region, 'a[href]').find((a) => {
    const url = resultUrl(a.attribs.href)
    return !!url && !/support\.google\.com/.test(url) && textOf(a).length > 0
  })
}

function directAnswer($: CheerioAPI, scope: AnyNode): AnswerBox | undefined {
  // cheerio's text() of the first match, '' when nothing matches.
  const textOfFirst = (selector: string) => {
    const el = selectOne($, scope, selector)
    return el ? $(el).text() : ''
  }
  const calc = selectOne($, scope, '#cwos')
  if (calc) {
    const expr = normText(textOfFirst('.vUGUtc, #cwles'))
    return compact({ type: 'calculator', title: expr || undefined, answer: normText($(calc).text()) })
  }
  const temp = selectOne($, scope, '#wob_tm')
  if (temp) {
    const place = normText(textOfFirst('#wob_loc'))
    const sky = normText(textOfFirst('#wob_dc'))
    return compact({ type: 'weather', title: place || undefined, answer: `${normText($(temp).text())}°`, snippet: sky || undefined })
  }
  const fact = selectOne($, scope, '[data-tts="answers"], .Z0LcW')
  if (fact && !closestMatch(fact, '#rhs')) {
    const answer = normText($(fact).text())
    const card = closestMatch(fact, '[data-hveid]')
    const link = (card ? selectAll($, card, 'a[href]') : []).map((a) => unwrapGoogleUrl(a.attribs.href)).find(Boolean)
    if (answer) return compact({ type: 'answer', answer, link: link ?? undefined, domain: link ? domainOf(link) : undefined })
  }
  return undefined
}
