/** DOM helpers shared by the Google parsers: block-aware text, link unwrapping and dates. */
import type { CheerioAPI } from 'cheerio'
import type { AnyNode, Element } from 'domhandler'
import { DomUtils, parseDocument } from 'htmlparser2'
import { documentOf, domIndex, type Positions } from '../parse/dom-index.ts'
import { normText } from '../parse/text.ts'

const SKIPPED_TAGS = new Set(['script', 'style', 'noscript', 'template', 'svg', 'textarea', 'input', 'select', 'button'])

// Inline elements are glued to their neighbours; everything else is a word boundary. Google splits
// breadcrumbs and snippets over many spans, so plain `.text()` would merge words ("Googlehttps://…").
const INLINE_TAGS = new Set('a abbr b bdi bdo cite code em font i kbd mark q s small span strong sub sup time u wbr g-img img'.split(' '))

export const isElement = (node: AnyNode | null | undefined): node is Element =>
  !!node && (node.type === 'tag' || node.type === 'script' || node.type === 'style')

export interface TextOptions {
  /** Subtrees to leave out (e.g. the title inside a result container). */
  skip?: ReadonlySet<AnyNode>
  /** Leave out `aria-hidden` subtrees, which hold decorative duplicates. */
  skipHidden?: boolean
}

/** Visible text of `node`, with block boundaries turned into spaces. */
export function textOf(node: AnyNode | null | undefined, opts?: TextOptions): string {
  if (!node) return ''
  // Readers ask for the same element's text many times (labels, titles, snippet candidates); the
  // parsers never change a tree, so the plain text is kept per node. (No `{}` default for `opts`:
  // an object per call, on the hottest path.)
  if (!opts || (!opts.skip && !opts.skipHidden)) {
    // A wrapper around one element reads as that element (textOf trims the spaces a block adds).
    if (isElement(node) && node.children.length === 1 && !SKIPPED_TAGS.has(node.name) && node.name !== 'br') {
      const only = node.children[0]
      if (isElement(only)) return textOf(only)
    }
    let text = (node as Cached)[TEXT]
    if (text === undefined) {
      text = normText(rawText(node))
      ;(node as Cached)[TEXT] = text
    }
    return text
  }
  const parts: string[] = []
  collectText(node, opts, parts)
  return normText(parts.join(''))
}

// Kept on the nodes themselves under private symbols: a page asks for thousands of texts, and
// a property read is several times cheaper than a WeakMap lookup.
const TEXT = Symbol('text')
const RAW = Symbol('raw')
type Cached = AnyNode & { [TEXT]?: string; [RAW]?: string }

/**
 * What `collectText` gathers for `n`, built from its children's (kept) strings: label lookups ask
 * for the text of nested wrappers around the same content, which would otherwise be walked again
 * for each level.
 */
function rawText(n: AnyNode): string {
  if (n.type === 'text') return (n as unknown as { data: string }).data
  if (!isElement(n) || SKIPPED_TAGS.has(n.name)) return ''
  if (n.name === 'br') return ' '
  let raw = (n as Cached)[RAW]
  if (raw === undefined) {
    // A wrapper around one element adds at most two spaces: not worth a string of its own. Nor
    // is an element around one text node (most of them): its string is already there, and an
    // element not given one more property keeps a smaller property store.
    const only = n.children.length === 1 ? n.children[0] : undefined
    if (only && isElement(only)) return INLINE_TAGS.has(n.name) ? rawText(only) : ` ${rawText(only)} `
    if (only?.type === 'text') {
      const data = (only as unknown as { data: string }).data
      return INLINE_TAGS.has(n.name) ? data : ` ${data} `
    }
    raw = ''
    // Indexed loops here and below: these walks run on every node, and a for-of allocates an iterator per call until optimised.
    const kids = n.children
    for (let i = 0; i < kids.length; i++) raw += rawText(kids[i] as AnyNode)
    if (!INLINE_TAGS.has(n.name)) raw = ` ${raw} `
    ;(n as Cached)[RAW] = raw
  }
  return raw
}

function collectText(n: AnyNode, opts: TextOptions, parts: string[]): void {
  if (opts.skip?.has(n)) return
  if (n.type === 'text') {
    parts.push((n as unknown as { data: string }).data)
    return
  }
  if (!isElement(n)) return
  if (SKIPPED_TAGS.has(n.name)) return
  if (opts.skipHidden && n.attribs['aria-hidden'] === 'true') return
  if (n.name === 'br') {
    parts.push(' ')
    return
  }
  const block = !INLINE_TAGS.has(n.name)
  if (block) parts.push(' ')
  const kids = n.children
  for (let i = 0; i < kids.length; i++) collectText(kids[i] as AnyNode, opts, parts)
  if (block) parts.push(' ')
}

/** Ancestors of `el`, nearest first, stopping before `stop` (exclusive) or the document. */
export function ancestors(el: AnyNode, stop?: AnyNode | null): Element[] {
  const out: Element[] = []
  let cur = el.parent
  while (cur && cur !== stop && isElement(cur)) {
    out.push(cur)
    cur = cur.parent
  }
  return out
}

export function isInside(el: AnyNode, container: AnyNode): boolean {
  let cur: AnyNode | null = el
  while (cur) {
    if (cur === container) return true
    cur = cur.parent
  }
  return false
}

/** Document-order index of every element, for "does A come before B" checks. */
export function documentOrder($: CheerioAPI): Positions {
  return domIndex(documentOf($)).order
}

const GOOGLE_HOST = /(^|\.)google\.[a-z.]{2,6}$/i
// Google's own UI endpoints. Matched on the whole path: google.com/search/about/ is a real page.
const GOOGLE_UI_PATHS = /^\/(search|url|imgres|aclk|setprefs|preferences|webhp|sorry\/index|sorry|httpservice\/.*|gen_204|complete\/search)$/

/**
 * Turns a result href into the target URL: resolves relative links, unwraps `/url?q=` and
 * `/url?url=` redirects and ad click-through `adurl`. Returns null for non-http links.
 */
export function unwrapGoogleUrl(href: string | undefined | null): string | null {
  if (!href) return null
  const raw = href.trim()
  if (!raw || raw.startsWith('#') || /^(javascript|mailto|tel|data|intent):/i.test(raw)) return null
  let u: URL
  try {
    u = new URL(raw, 'https://www.google.com')
  } catch {
    return null
  }
  if (GOOGLE_HOST.test(u.hostname) && (u.pathname === '/url' || u.pathname === '/interstitial')) {
    const target = u.searchParams.get('q') || u.searchParams.get('url')
    return target ? unwrapGoogleUrl(target) : null
  }
  const adHost = GOOGLE_HOST.test(u.hostname) || /(^|\.)googleadservices\.com$/i.test(u.hostname)
  if (adHost && (u.pathname === '/aclk' || u.pathname === '/pagead/aclk')) {
    const target = u.searchParams.get('adurl')
    return target && /^https?:/i.test(target) ? unwrapGoogleUrl(target) : u.toString()
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return null
  return u.toString()
}

/**
 * Absolute links into Google's own search UI (searches, cache, translations, settings) rather
 * than to a result. Google's product pages (google.com/maps, /search/howsearchworks/) are real
 * results for queries about Google and are kept.
 */
export function isGoogleInternal(url: string): boolean {
  let u: URL
  try {
    u = new URL(url)
  } catch {
    return true
  }
  const host = u.hostname.toLowerCase()
  if (host === 'webcache.googleusercontent.com' || host.endsWith('.gstatic.com')) return true
  if (/^translate\.google\./.test(host) && u.pathname.startsWith('/translate')) return true
  if (/^(www\.)?google\.[a-z.]+$/.test(host) && GOOGLE_UI_PATHS.test(u.pathname)) return true
  return false
}

/**
 * Target of a result link, or null when it is not an outbound result link. Relative hrefs are
 * Google UI links (other verticals, place pages, "more results") unless they are `/url` redirects.
 */
export function resultUrl(href: string | undefined | null): string | null {
  // A page asks about the same links many times (each reader, each candidate region).
  return rememberedResultUrl(href ?? '')
}

/**
 * `read` with its answers remembered, up to 5,000 inputs (then all forgotten at once): for link
 * readers whose answer depends on the string alone and costs a URL parse.
 */
export function remembered<T>(read: (s: string) => T): (s: string) => T {
  const answers = new Map<string, T>()
  return (s) => {
    if (answers.has(s)) return answers.get(s) as T
    if (answers.size >= 5000) answers.clear()
    const answer = read(s)
    answers.set(s, answer)
    return answer
  }
}

const rememberedResultUrl = remembered(readResultUrl)

function readResultUrl(href: string): string | null {
  const raw = href.trim()
  const relative = raw.startsWith('/') && !raw.startsWith('//')
  if (relative && !/^\/(url|interstitial|aclk)\?/.test(raw)) return null
  const url = unwrapGoogleUrl(raw)
  return url && !isGoogleInternal(url) ? url : null
}

const MONTHS =
  'jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec|janv|févr|fevr|mars|avr|mai|juin|juil|août|aout|déc|ene|abr|ago|dic|mär|okt|dez|gen|mag|giu|lug|set|ott|янв|фев|мар|апр|мая|май|июн|июл|авг|сен|окт|ноя|дек'
const DATE_LIKE = new RegExp(
  [
    `^(?:${MONTHS})[a-zа-яé.]*\\s+\\d{1,2},?\\s+\\d{4}$`, // Mar 3, 2023
    `^\\d{1,2}\\.?\\s+(?:de\\s+)?(?:${MONTHS})[a-zа-яéû.]*\\.?\\s+(?:de\\s+)?\\d{4}(?:\\s*г\\.?)?$`, // 3 mars 2023, 11 янв. 2022 г.
    '^\\d{1,4}[./-]\\d{1,2}[./-]\\d{1,4}$', // 2023-03-03, 03/03/2023
    '^\\d+\\s+\\w+\\s+ago$', // 2 days ago
    '^(?:il y a|hace|vor)\\s+\\d+\\s+\\w+$',
    '^\\d+\\s+\\S+\\s+назад$',
    '^(?:yesterday|today|hier|ayer|gestern|вчера)$',
  ].join('|'),
  'iu',
)

const BREADCRUMB_LIKE = /›|^https?:\/\/|^[\w-]+(\.[\w-]+)*\.[a-z]{2,}(\/|\s|$)/i

/** True when `s` reads like the address line Google prints under a title ("example.com › docs"). */
export const looksLikeBreadcrumb = (s: string): boolean => BREADCRUMB_LIKE.test(s)

/** True when `s` reads like a date Google prints in front of a snippet. */
export const looksLikeDate = (s: string): boolean => s.length <= 32 && DATE_LIKE.test(s.trim())

/** Splits "Mar 3, 2023 — Snippet…" (or "· " in the basic layout) into its date and the rest. */
export function splitLeadingDate(snippet: string): { date?: string; rest: string } {
  const m = /^(.{3,32}?)\s+[—–·-]\s+(.*)$/su.exec(snippet)
  if (m?.[1] && m[2] !== undefined && looksLikeDate(m[1])) return { date: m[1].trim(), rest: m[2].trim() }
  return { rest: snippet }
}

/** Parses "1,230,000", "1.230.000", "1 230 000" or "25,150,000,000" into a number. */
export function parseCount(s: string): number | undefined {
  const m = /\d[\d.,\s\u00a0\u202f]*/.exec(s)
  if (!m) return undefined
  const digits = m[0].replace(/[^\d]/g, '')
  if (!digits) return undefined
  const n = Number(digits)
  return Number.isSafeInteger(n) ? n : undefined
}

/** "4.5" or "4,5" to 4.5; undefined when out of the 0-5 star range. */
export function parseRating(s: string | undefined): number | undefined {
  if (!s) return undefined
  const m = /(\d(?:[.,]\d)?)/.exec(s)
  if (!m?.[1]) return undefined
  const n = Number(m[1].replace(',', '.'))
  return n >= 0 && n <= 5 ? n : undefined
}

/** "(1,234)", "1.2K", "26M" to a number of ratings. */
export function parseRatingCount(s: string | undefined): number | undefined {
  if (!s) return undefined
  const m = /([\d][\d.,\s\u00a0]*)\s*([KkMm])?/.exec(s.replace(/[()]/g, ''))
  if (!m?.[1]) return undefined
  const unit = m[2]?.toLowerCase()
  if (unit) {
    const n = Number(m[1].replace(/\s/g, '').replace(',', '.'))
    return Number.isFinite(n) ? Math.round(n * (unit === 'k' ? 1e3 : 1e6)) : undefined
  }
  return parseCount(m[1])
}

/** Drops undefined / empty-string / empty-array keys so outputs only carry data that was found. */
export function compact<T extends object>(obj: T): T {
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(obj)) {
    if (v === undefined || v === '' || (Array.isArray(v) && v.length === 0)) continue
    if (v && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length === 0) continue
    out[k] = v
  }
  return out as T
}

/** Visible text of an HTML snippet (JSON fields with highlight tags): tags dropped, entities decoded, whitespace collapsed. */
export function htmlText(html: string): string {
  if (!/[<&]/.test(html)) return normText(html)
  return normText(DomUtils.textContent(parseDocument(html)))
}
