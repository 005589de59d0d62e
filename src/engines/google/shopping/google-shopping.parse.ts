/**
 * Parses a Google Shopping result page (`tbm=shop`) into products.
 *
 * Two kinds of product card are read, with one set of field readers:
 *  - listing cards of the Shopping tab (the classic grid `sh-dgr__grid-result` and list
 *    `sh-dlr__list-result` layouts, and cards carrying a numeric `data-docid` and a
 *    `/shopping/product/<id>` link);
 *  - product ads (`pla-unit`), which Google shows above listings and in web results. They are used
 *    only when a page has no listing cards, so sponsored units never mix into organic listings.
 *
 * Field readers key on what each field looks like (a heading, a text that parses as a price, an
 * outbound link, a rating in an aria-label, a "(1,234)" count) and use Google's class names only as
 * the first place to look, so a renamed class costs a fallback, not the field.
 */
import type { CheerioAPI } from 'cheerio'
import type { AnyNode, Element } from 'domhandler'
import type { ShoppingResult, VerticalPage, VerticalRequest } from '../../engine.types.ts'
import { loadCheerio } from '../../parse/cheerio-load.ts'
import { normText } from '../../parse/text.ts'
import { detectGoogleBlockInHtml } from '../google-block.detect.ts'
import { compact, isElement, parseRating, parseRatingCount, textOf, unwrapGoogleUrl } from '../google-dom.util.ts'
import { isScriptShell } from './google-shopping.block.ts'
import { SHOPPING_PAGE_SIZE } from './google-shopping.request.ts'
import { currencyOf, parsePriceText } from './price-text.parse.ts'

export type ShoppingParseRequest = Pick<VerticalRequest, 'page' | 'country'>

const LISTING_CARDS = '.sh-dgr__grid-result, .sh-dlr__list-result, .sh-dgr__content, .i0X6df'
const AD_CARDS = '.pla-unit'
const PRICE_HINTS = '.a8Pemb, .e10twf, .kHxwFf, .HRLxBb, .OFFNJ, .lmQWe, .T14wmb'
const MERCHANT_HINTS = '.aULzUe, .IuHnof, .E5ocAb, .WJMUdc, .LbUacb, .zPEcBd'
const DELIVERY_HINTS = '.vEjMR, .RKZBic, .bONr3b'
const RATING_HINTS = '.Rsc7Yb, .yi40Hd'
const COUNT_HINTS = '.pbAs0b, .QIrs8'
// A previous (struck-through) price shown beside the current one.
const OLD_PRICE = '.hdYIY, s, del, strike, [aria-label^="Was "], [aria-label^="was "]'

const GOOGLE_HOST = /(^|\.)(google\.[a-z.]{2,6}|googleadservices\.com|doubleclick\.net)$/i
const DELIVERY_TEXT =
  /\b(free\s+(delivery|shipping|returns?)|delivery|shipping|ships|livraison|envío|envio|versand|lieferung|spedizione|consegna|frete|entrega|verzending|dostawa)\b/i
const OFFERS_TEXT =
  /compare prices|compare \d|\b\d+\+?\s+(stores|shops|sellers|merchants|offers)\b|preise.*vergleichen|comparer les prix|comparar precios|comparar preços|confronta i prezzi|prijzen vergelijken/i
const RATING_LABEL = /(?<![\d.,])(\d(?:[.,]\d+)?)\s*(?:out of|sur|von|de|di|su|из|van|av|z|na|\/)\s*5\b/i
const COUNT_IN_PARENS = /\(\s*(\d[\d.,\s\u00a0\u202f]*(?:[kKmM])?)\+?\s*\)/
const COUNT_WORDS = /(\d[\d.,\s\u00a0\u202f]*[kKmM]?)\+?\s*(?:product\s+)?(?:reviews|ratings|avis|bewertungen|reseñas|recensioni|avaliações|beoordelingen)/i

/** Parses one Shopping page. Block, consent and script-only pages yield no products. */
export function parseGoogleShopping(html: string, req: ShoppingParseRequest = {}): VerticalPage<ShoppingResult> {
  if (!html || detectGoogleBlockInHtml(html) || isScriptShell(html)) return { results: [], parse_quality: 'empty' }
  const $ = loadCheerio(html)
  const listings = outermost(
    $(`${LISTING_CARDS}, [data-docid]`)
      .toArray()
      .filter((el) => $(el).is(LISTING_CARDS) || isProductDoc($, el as Element)) as Element[],
  )
  const cards = listings.length ? listings : outermost($(AD_CARDS).not('.view-all-unit').toArray() as Element[])
  if (!cards.length) return { results: [], parse_quality: 'empty' }

  const offset = ((req.page ?? 1) - 1) * SHOPPING_PAGE_SIZE
  const results: ShoppingResult[] = []
  const seen = new Set<string>()
  let failed = 0
  for (const card of cards) {
    const item = readCard($, card, req.country)
    if (!item) {
      failed++
      continue
    }
    const key = `${item.title}\u0000${item.link ?? item.product_id ?? ''}`
    if (seen.has(key)) continue
    seen.add(key)
    results.push({ position: offset + results.length + 1, ...item })
  }
  if (!results.length) return { results, parse_quality: failed ? 'partial' : 'empty' }
  const complete = failed === 0 && results.every((r) => r.price !== undefined)
  return { results, parse_quality: complete ? 'ok' : 'partial' }
}

/** Cards (in document order) that are not inside another card: Google nests wrappers inside grid cells. */
function outermost(els: Element[]): Element[] {
  const set = new Set(els)
  return els.filter((el) => {
    for (let p = el.parent; p && isElement(p); p = p.parent) if (set.has(p)) return false
    return true
  })
}

/** A `data-docid` block that is a product (image blocks on web pages carry one too). */
function isProductDoc($: CheerioAPI, el: Element): boolean {
  return /^\d{6,}$/.test(el.attribs['data-docid'] ?? '') && $(el).find('a[href*="/shopping/product/"]').length > 0
}

/** One product card (a listing or a product ad, also the ads of a web result page). */
export function readCard($: CheerioAPI, card: Element, country: string | undefined): Omit<ShoppingResult, 'position'> | undefined {
  const heading = titleElement($, card)
  const title = heading ? headingText($, heading) : titleFromLabel($, card)
  if (!title) return undefined
  const skip = new Set<AnyNode>(heading ? [heading] : [])
  const priceEl = priceElement($, card, skip)
  const price = priceEl ? priceText($, priceEl) : undefined
  if (priceEl) skip.add(priceEl)
  const { value, currency } = parsePriceText(price, country)
  const rating = ratingOf($, card)
  return compact({
    title,
    source: merchantOf($, card, skip),
    link: linkOf($, card),
    price,
    price_value: value,
    currency,
    delivery: leafText($, card, DELIVERY_HINTS, DELIVERY_TEXT, skip),
    image_url: imageOf($, card),
    rating,
    rating_count: ratingCountOf($, card, skip, rating !== undefined),
    offers: leafText($, card, '', OFFERS_TEXT, skip),
    product_id: productIdOf($, card),
  })
}

function titleElement($: CheerioAPI, card: Element): Element | undefined {
  return $(card).find('h3, h4, [role="heading"], .pla-unit-title').first()[0] as Element | undefined
}

/** Heading text. Old product ads repeat the title once per breakpoint; the first copy is read. */
function headingText($: CheerioAPI, heading: Element): string {
  const copy = $(heading).find('.pymv4e').first()[0]
  return textOf(copy ?? heading, { skipHidden: true })
}

function titleFromLabel($: CheerioAPI, card: Element): string {
  return normText($(card).find('a.pla-unit-title-link[aria-label]').first().attr('aria-label') ?? '')
}

/** The element showing the current price: a known price class, else the first text that reads as a price. */
function priceElement($: CheerioAPI, card: Element, skip: ReadonlySet<AnyNode>): Element | undefined {
  for (const el of $(card).find(PRICE_HINTS).toArray() as Element[]) {
    if (!$(el).is(OLD_PRICE) && looksLikePrice(priceText($, el))) return el
  }
  return leaves(card, skip).find((el) => !$(el).is(OLD_PRICE) && looksLikePrice(textOf(el)))
}

function priceText($: CheerioAPI, el: Element): string {
  // Google marks the visual price aria-hidden (the accessible copy sits in a label), so hidden text is kept.
  return textOf(el, { skip: new Set($(el).find(OLD_PRICE).toArray()) })
}

function looksLikePrice(s: string): boolean {
  return s.length > 0 && s.length <= 32 && /\d/.test(s) && currencyOf(s) !== undefined
}

/** Merchant name. Old ads repeat it per breakpoint, truncated differently: the longest copy wins. */
function merchantOf($: CheerioAPI, card: Element, skip: ReadonlySet<AnyNode>): string | undefined {
  const el = $(card)
    .find(MERCHANT_HINTS)
    .toArray()
    .find((e) => !skip.has(e) && textOf(e)) as Element | undefined
  if (!el) return undefined
  const copies = $(el).children().toArray() as Element[]
  const texts = (copies.length > 1 ? copies : [el]).map((e) => textOf(e)).filter(Boolean)
  const name = texts.sort((a, b) => b.length - a.length)[0]
  return name ? untruncate($, card, name) : undefined
}

/** "LaBoutiqueOffici..." → the full name when an aria-label of the card spells it out. */
function untruncate($: CheerioAPI, card: Element, name: string): string {
  const m = /^(.*?)\s*(\.\.\.|…)$/.exec(name)
  if (!m?.[1]) return name
  const stem = m[1]
  for (const el of $(card).find('[aria-label]').toArray() as Element[]) {
    const label = el.attribs['aria-label'] ?? ''
    const i = label.indexOf(stem)
    if (i >= 0) return normText(`${stem}${/^\S*/.exec(label.slice(i + stem.length))?.[0] ?? ''}`)
  }
  return name
}

/** The merchant's page: the first outbound link (unwrapping /url and ad redirects), else Google's product page. */
function linkOf($: CheerioAPI, card: Element): string | undefined {
  let productPage: string | undefined
  for (const a of $(card).find('a[href]').toArray() as Element[]) {
    const url = unwrapGoogleUrl(a.attribs.href)
    if (!url) continue
    const u = new URL(url)
    if (!GOOGLE_HOST.test(u.hostname)) return url
    if (!productPage && /^\/shopping\/product\/\d+\/?$/.test(u.pathname)) productPage = url
  }
  return productPage
}

function productIdOf($: CheerioAPI, card: Element): string | undefined {
  const docid = card.attribs['data-docid'] ?? $(card).closest('[data-docid]').attr('data-docid')
  if (docid && /^\d{6,}$/.test(docid)) return docid
  for (const a of $(card).find('a[href*="/shopping/product/"]').toArray() as Element[]) {
    const m = /\/shopping\/product\/(\d+)/.exec(a.attribs.href ?? '')
    if (m?.[1]) return m[1]
  }
  return undefined
}

function ratingOf($: CheerioAPI, card: Element): number | undefined {
  for (const el of $(card).find('[aria-label]').toArray() as Element[]) {
    // Star labels are short ("Rated 4.7 out of 5,"); long labels repeat the title, where "2 de 5" may be a size.
    const label = el.attribs['aria-label'] ?? ''
    const m = label.length <= 48 ? RATING_LABEL.exec(label) : null
    if (m?.[1]) return parseRating(m[1])
  }
  const hinted = $(card).find(RATING_HINTS).first()[0]
  return hinted ? parseRating(textOf(hinted)) : undefined
}

/** "(325)", "(9k+)", "1,234 reviews". A bare parenthesised number only counts next to a rating. */
function ratingCountOf($: CheerioAPI, card: Element, skip: ReadonlySet<AnyNode>, rated: boolean): number | undefined {
  const hinted = $(card).find(COUNT_HINTS).first()[0]
  if (hinted) {
    const n = parseRatingCount(COUNT_IN_PARENS.exec(textOf(hinted))?.[1] ?? textOf(hinted))
    if (n !== undefined) return n
  }
  const text = textOf(card, { skip, skipHidden: true })
  const words = COUNT_WORDS.exec(text)?.[1]
  if (words) return parseRatingCount(words)
  const parens = rated ? COUNT_IN_PARENS.exec(text)?.[1] : undefined
  return parens ? parseRatingCount(parens) : undefined
}

/** An http(s) product image; inline `data:` thumbnails are left out (they are placeholders or large blobs). */
function imageOf($: CheerioAPI, card: Element): string | undefined {
  for (const img of $(card).find('img').toArray() as Element[]) {
    for (const attr of ['src', 'data-src']) {
      const src = img.attribs[attr]
      if (src && /^https?:\/\//i.test(src)) return src
    }
  }
  return undefined
}

/** The text of a hinted element, else of the first leaf whose text matches `pattern`. */
function leafText($: CheerioAPI, card: Element, hints: string, pattern: RegExp, skip: ReadonlySet<AnyNode>): string | undefined {
  if (hints) {
    const hinted = ($(card).find(hints).toArray() as Element[]).map((e) => textOf(e)).find(Boolean)
    if (hinted) return hinted
  }
  return leaves(card, skip)
    .map((el) => textOf(el))
    .find((t) => t.length <= 80 && pattern.test(t))
}

/** The smallest text-bearing elements of `card` (an element with text of its own counts whole), outside `skip`. */
function leaves(card: Element, skip: ReadonlySet<AnyNode>): Element[] {
  const out: Element[] = []
  const walk = (el: Element) => {
    if (skip.has(el) || el.name === 'script' || el.name === 'style') return
    const kids = el.children.filter(isElement)
    const ownText = el.children.some((c) => c.type === 'text' && normText((c as unknown as { data: string }).data))
    if (ownText || !kids.length) {
      if (textOf(el)) out.push(el)
      if (ownText) return
    }
    for (const k of kids) walk(k)
  }
  for (const k of card.children.filter(isElement)) walk(k)
  return out
}
