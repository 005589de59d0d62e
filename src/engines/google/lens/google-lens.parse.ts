/**
 * Parses a Google Lens results page into visual matches.
 *
 * Lens has no stable public format; this is the most fragile parser in the engine. It reads the
 * page generations public clients document, first one that yields matches:
 *  1. HTML match cards, of either generation (one selector list, so a page mixing them reads both):
 *     - today's results page (www.google.com/search?…&udm=26): `div.vEWxFf` cards with an
 *       `a.LBcIee` link to the page, title `.Yt787`, site name `.R8BTeb`, thumbnail `img` whose
 *       address comes from the `google.ldi` id map;
 *     - the older lens.google.com page: `div.G19kAf.ENn9pd` cards with an `a.GZrdsf` (also
 *       `data-action-url`) link to the page, title `.UAiK1e` (also `data-item-title`), site name
 *       `.fjbPGe` beside its favicon in `.PlAMyb`, thumbnail `.Me0cf img` (also
 *       `data-thumbnail-url`).
 *     If the card classes are renamed, outbound links that wrap a thumbnail are read instead (only
 *     on a page with Lens session links) and the page is marked partial.
 *  2. The data blob of the older lens.google.com page: `AF_initDataCallback({… data:[…]})`. Its
 *     nesting changes between releases, so matches are found by shape rather than by path: an
 *     array with a thumbnail URL at [0][0], a title at [3], a page URL at [5] and the site name
 *     at [14].
 * Anything else (a consent wall, the CAPTCHA, a script-only shell) yields no matches.
 */
import type { CheerioAPI } from 'cheerio'
import type { Element } from 'domhandler'
import type { LensResult, ParseQuality, VerticalPage } from '../../engine.types.ts'
import { loadCheerio } from '../../parse/cheerio-load.ts'
import { balancedJsonAt } from '../../parse/json-text.ts'
import { domainOf, normText } from '../../parse/text.ts'
import { detectGoogleBlockInHtml } from '../google-block.detect.ts'
import { compact, isElement, isGoogleInternal, resultUrl, textOf } from '../google-dom.util.ts'
import { isLensScriptShell } from './google-lens.block.ts'

type Match = Omit<LensResult, 'position'>

interface Read {
  matches: Match[]
  failed: number
  quality: ParseQuality
}

const CARD = '.vEWxFf, a.LBcIee, div.G19kAf.ENn9pd'
const TITLE = '.Yt787, .UAiK1e, [role="heading"]'
const SITE = '.R8BTeb, .fjbPGe'
const THUMB = '.gdOPf img, .Me0cf img'
/** The older cards' favicon box, beside (not around) the site name. */
const FAVICON_BOX = '.PlAMyb'
// Lens session markers in the page's own links: the loose fallback runs only on a Lens page, so a
// web result page (whose outbound links also wrap images) is never read as visual matches.
const LENS_PAGE = /[?&;](vsrid|lns_mode|lns_surface)=/

/** Parses one Lens results page. */
export function parseGoogleLens(html: string): VerticalPage<LensResult> {
  if (!html || detectGoogleBlockInHtml(html) || isLensScriptShell(html)) return { results: [], parse_quality: 'empty' }
  const $ = loadCheerio(html)
  const thumbs = imageMap(html)
  const cards = readCards($, $(CARD).toArray() as Element[], thumbs, 'ok')
  let read = cards
  if (!read.matches.length) read = readInitData(html)
  if (!read.matches.length && LENS_PAGE.test(html)) read = readCards($, looseCards($), thumbs, 'partial')
  const results = dedupe(read.matches).map((m, i) => ({ position: i + 1, ...m }))
  // Cards that were there but unreadable make even an empty answer partial.
  if (!results.length) return { results, parse_quality: read.failed || cards.failed ? 'partial' : 'empty' }
  return { results, parse_quality: read.failed ? 'partial' : read.quality }
}

function readCards($: CheerioAPI, els: Element[], thumbs: Map<string, string>, quality: ParseQuality): Read {
  const matches: Match[] = []
  let failed = 0
  for (const card of outermost(els)) {
    const m = readCard($, card, thumbs)
    if (m) matches.push(m)
    else failed++
  }
  return { matches, failed, quality }
}

function readCard($: CheerioAPI, card: Element, thumbs: Map<string, string>): Match | undefined {
  const anchors = (card.name === 'a' ? [card] : $(card).find('a[href]').toArray()) as Element[]
  const anchor = anchors.find((a) => resultUrl(a.attribs.href))
  const link = anchor ? resultUrl(anchor.attribs.href) : resultUrl($(card).find('[data-action-url]').attr('data-action-url'))
  if (!link) return undefined
  const siteEl = $(card).find(SITE).first()[0] as Element | undefined
  const titleEl = $(card).find(TITLE).first()[0]
  const title =
    (titleEl ? textOf(titleEl) : '') ||
    normText($(card).find('[data-item-title]').attr('data-item-title') ?? '') ||
    normText(anchor?.attribs['aria-label'] ?? '') ||
    longestText($, card, siteEl)
  if (!title) return undefined
  return compact({
    title,
    source: siteEl ? textOf(siteEl) : undefined,
    link,
    domain: domainOf(link),
    thumbnail_url: thumbnailOf($, card, siteEl, thumbs),
  })
}

/** Fallback cards: outbound links wrapping an image, as every Lens match card is. */
function looseCards($: CheerioAPI): Element[] {
  const root = $('#rso')[0] ?? $('#search')[0] ?? $('body')[0]
  if (!root) return []
  return $(root)
    .find('a[href]')
    .toArray()
    .filter((a) => $(a).find('img').length > 0 && resultUrl((a as Element).attribs.href) !== null) as Element[]
}

/** Card text other than the site name, longest piece first (used when no title element exists). */
function longestText($: CheerioAPI, card: Element, siteEl: Element | undefined): string {
  const skip = new Set(siteEl ? [siteEl] : [])
  return (
    ($(card).find('div, span').toArray() as Element[])
      .filter((e) => !skip.has(e) && !$(e).closest(SITE).length && !$(e).find('div, span').length)
      .map((e) => textOf(e))
      .sort((a, b) => b.length - a.length)[0] ?? ''
  )
}

/** The card's picture (not the site favicon), resolved to an http(s) address when the page has one. */
function thumbnailOf($: CheerioAPI, card: Element, siteEl: Element | undefined, thumbs: Map<string, string>): string | undefined {
  const boxed = $(card).find(THUMB).toArray() as Element[]
  const imgs = boxed.length
    ? boxed
    : ($(card).find('img').toArray() as Element[]).filter((img) => (!siteEl || !$(img).closest(SITE).length) && !$(img).closest(FAVICON_BOX).length)
  for (const img of imgs) {
    const id = img.attribs['data-iid'] ?? img.attribs.id
    const mapped = id ? thumbs.get(id) : undefined
    if (mapped) return mapped
    for (const attr of ['data-src', 'src']) {
      const src = img.attribs[attr]
      if (src && /^https?:\/\//i.test(src)) return src
    }
  }
  const declared = $(card).find('[data-thumbnail-url]').attr('data-thumbnail-url')
  return declared && /^https?:\/\//i.test(declared) ? declared : undefined
}

/**
 * Google fills thumbnails after load from `google.ldi = {"dimg_…": "https://…"}` maps in inline
 * scripts (base64 ones come from `_setImagesSrc` and are not used: they are large and not URLs).
 */
export function imageMap(html: string): Map<string, string> {
  const map = new Map<string, string>()
  for (const m of html.matchAll(/google\.ldi\s*=\s*(\{[^}]*\})/g)) {
    let obj: unknown
    try {
      obj = JSON.parse(m[1] as string)
    } catch {
      continue
    }
    for (const [k, v] of Object.entries(obj as Record<string, unknown>)) {
      if (typeof v === 'string' && /^https?:\/\//i.test(v)) map.set(k, v)
    }
  }
  return map
}

/** Matches in the `AF_initDataCallback` data blobs of the older Lens page. */
function readInitData(html: string): Read {
  const matches: Match[] = []
  for (const data of initDataBlobs(html)) walk(data, matches)
  return { matches, failed: 0, quality: 'ok' }
}

/** The parsed `data:[…]` array of every `AF_initDataCallback({…})` call in the page. */
export function initDataBlobs(html: string): unknown[] {
  const out: unknown[] = []
  const marker = 'AF_initDataCallback('
  for (let i = html.indexOf(marker); i >= 0; i = html.indexOf(marker, i + marker.length)) {
    const key = /data\s*:\s*\[/.exec(html.slice(i, i + 400))
    if (!key) continue
    const start = i + key.index + key[0].length - 1
    const text = balancedJsonAt(html, start)
    if (!text) continue
    try {
      out.push(JSON.parse(text))
    } catch {
      // Not JSON (a JS expression): this blob is skipped, the others are still read.
    }
  }
  return out
}

function walk(node: unknown, out: Match[]): void {
  if (!Array.isArray(node)) return
  const m = matchOf(node)
  if (m) {
    out.push(m)
    return
  }
  for (const child of node) walk(child, out)
}

const isHttp = (v: unknown): v is string => typeof v === 'string' && /^https?:\/\//i.test(v)

/** A visual-match entry: [[thumbnail, …], score, _, title, _, page, …, site name at 14]. */
function matchOf(a: unknown[]): Match | undefined {
  const thumb = Array.isArray(a[0]) ? a[0][0] : undefined
  const title = a[3]
  const page = a[5]
  if (!isHttp(thumb) || typeof title !== 'string' || !normText(title) || !isHttp(page) || isGoogleInternal(page)) return undefined
  const source = typeof a[14] === 'string' ? normText(a[14]) : undefined
  return compact({ title: normText(title), source, link: page, domain: domainOf(page), thumbnail_url: thumb })
}

function outermost(els: Element[]): Element[] {
  const set = new Set(els)
  return els.filter((el) => {
    for (let p = el.parent; p && isElement(p); p = p.parent) if (set.has(p)) return false
    return true
  })
}

/** One result per page: Lens often shows the same page twice (two crops of one image). */
function dedupe(matches: Match[]): Match[] {
  const seen = new Set<string>()
  return matches.filter((m) => {
    const key = m.link.replace(/#.*$/, '')
    if (seen.has(key)) return false
    seen.add(key)
    return true
  })
}
