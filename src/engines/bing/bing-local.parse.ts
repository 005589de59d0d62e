/**
 * Bing's local pack (restaurants, hotels, shops "near" a place): the answer with a small map and
 * a stack of business cards, read into the web answer's `places`.
 *
 * The markup known (2020-2022 captures and public scrapers of the same years): each card is a
 * `.b_scard` holding a `[data-ypid]` business with a `.lc_content` block: the name in an `h2`,
 * `.b_factrow` lines with the rating (`.csrc` whose aria-label reads "Star Rating: 4.5 out of 5.")
 * and its count ("Tripadvisor (596)" as link text, or "(1,234)" in a `title` on hotel cards), the
 * hotel class ("3-star hotel"), opening hours (`.opHours`) and the address (`.b_address`); then
 * buttons: directions (`/maps/directions?rtp=adr.~pos.<lat>_<lon>_<address>_<name>_<phone>`) and
 * the website. An empty `[etype][ename]` marker precedes each card. Cards are found by their
 * business id or content block, so a card missing a line still counts; when no card can be read
 * the markers still give the names.
 */
import type * as cheerio from 'cheerio'
import type { Element } from 'domhandler'
import type { LocalPlace } from '../engine.types.ts'
import { bingText, isBingHost, unwrapBingLink } from './bing.util.ts'

type Cheerio = cheerio.CheerioAPI
type Nodes = cheerio.Cheerio<Element>

// Where a card is not the local pack: the side column (one business's panel), organic results, ads.
const NOT_THE_PACK = '#b_context, li.b_algo, .b_ad, .b_adTop, .b_adBottom'
const CONTENT = '.lc_content'
const HEADING = 'h2, h3, [role="heading"], .lc_title'
const RATING_LABEL = /\brat(?:ing|ed)\b|\bstars?\b|étoiles|estrellas|sterne|stelle|estrelas|звезд|\d\s*(?:out of|of|de|sur|von|su|из)\s*5\b/i
const PHONE = /^\+?[\d\s().-]{6,}\d$/
const PRICE = /^[$€£¥₹₽]{1,4}$|^[$€£¥₹₽]\s?\d/
const HOURS = /^(open|opens|closed|closes|closing|open 24 hours|temporarily closed|ouvert|fermé|abierto|cerrado|geöffnet|geschlossen|aperto|chiuso)\b/i
const STAR_CLASS = /\b\d(?:[.,]5)?[-\s]?stars?\b|\b\d(?:[.,]5)?[-\s]?étoiles?\b|\b\d(?:[.,]5)?[-\s]?estrellas?\b|\b\d[-\s]?sterne\b/i
const WEBSITE = /^(website|web site|site web|sitio web|webseite|sito web|site|web)$/i
// Short lines that are offers or amenities, not what the place is.
const NOT_A_KIND = /cancel|deal|price|free|book|sponsored|\bads?\b|wi-?fi|breakfast|parking|pool|delivery|takeout|dine-in/i

/** The local pack's places in page order (empty when the page has none). */
export function bingPlaces($: Cheerio): LocalPlace[] {
  const out: LocalPlace[] = []
  const seen = new Set<string>()
  for (const card of cards($)) {
    const place = readCard($, card)
    if (!place) continue
    const key = `${place.title.toLowerCase()}|${(place.address ?? '').toLowerCase()}`
    if (seen.has(key)) continue
    seen.add(key)
    out.push({ ...place, position: out.length + 1 })
  }
  return out.length ? out : markerPlaces($)
}

/**
 * Each card's element: from a business id or content block, the largest ancestor still holding
 * only that one business (so buttons and the card's wrapper belong to it), never the whole stack.
 */
function cards($: Cheerio): Element[] {
  const seeds = $(`[data-ypid], ${CONTENT}`)
    .toArray()
    .filter((el) => !$(el).closest(NOT_THE_PACK).length)
  const out: Element[] = []
  for (const seed of seeds) {
    // A business id around a content block is the same card, reached from the block.
    if (!$(seed).is(CONTENT) && $(seed).find(CONTENT).length) continue
    const card = widest($, seed)
    if (!out.includes(card)) out.push(card)
  }
  return out
}

/** Businesses inside `el`: content blocks, and business ids without one. */
function businessesIn($: Cheerio, el: Element): number {
  const $el = $(el)
  const blocks = $el.find(CONTENT).length + ($el.is(CONTENT) ? 1 : 0)
  const bare = $el.find('[data-ypid]').filter((_, x) => !$(x).find(CONTENT).length && !$(x).closest(CONTENT).length).length
  return blocks + bare
}

function widest($: Cheerio, seed: Element): Element {
  let card = seed
  for (const up of $(seed).parents().toArray()) {
    if (up.name === 'li' || up.name === 'ol' || up.name === 'body' || up.attribs.id === 'b_results') break
    if (businessesIn($, up) > 1 || $(up).find(HEADING).length > 1) break
    card = up
  }
  return card
}

function readCard($: Cheerio, card: Element): LocalPlace | undefined {
  const $card = $(card)
  const content = $card.is(CONTENT) ? $card : $card.find(CONTENT).first().length ? $card.find(CONTENT).first() : $card
  const title = bingText(content.find(HEADING).first().text()) || markerName($card)
  if (!title) return undefined
  const place: LocalPlace = { position: 0, title }

  const rows = factRows($, content)
  const ratingEl = $card
    .find('[aria-label]')
    .toArray()
    .find((el) => RATING_LABEL.test(el.attribs['aria-label'] ?? '') && ratingOf(el.attribs['aria-label']) !== undefined)
  const ratingRow = ratingEl ? rows.find((r) => r === ratingEl || $(r).find(ratingEl).length > 0) : undefined
  place.rating = ratingOf(ratingEl?.attribs['aria-label'])
  if (place.rating === undefined) {
    for (const row of rows) {
      const m = /(?:^|\s)(\d(?:[.,]\d)?)\s*\/\s*5(?!\d)/.exec(bingText($(row).text()))
      if (m?.[1]) {
        place.rating = Number(m[1].replace(',', '.'))
        break
      }
    }
  }
  place.rating_count = ratingCountOf($, ratingRow ? [ratingRow, ...rows.filter((r) => r !== ratingRow)] : rows)

  const address = bingText(content.find('.b_address').first().text())
  if (address) place.address = address

  // Lines left once the rating, review sources, hours and address are taken out: class, kind, phone.
  for (const row of rows) {
    if (row === ratingRow) continue
    const copy = $(row).clone()
    copy.find('a, .csrc, .b_address, .opHours, [aria-label]').remove()
    for (const token of bingText(copy.text()).split(/\s*[·•|]\s*/)) {
      if (!token || PRICE.test(token) || HOURS.test(token) || /^\(?[\d.,\s]+\)?$/.test(token)) continue
      if (PHONE.test(token)) place.phone_number ??= token
      else if (STAR_CLASS.test(token)) place.type ??= token
      else if (!/\d/.test(token) && !NOT_A_KIND.test(token) && token.length <= 40 && token.split(' ').length <= 5) place.type ??= token
    }
  }

  const directions = directionsOf($card)
  const tel = $card.find('a[href^="tel:"]').first()
  const phone = bingText(tel.text()) || decodeURIComponent(tel.attr('href')?.slice(4) ?? '').trim()
  if (phone && PHONE.test(phone)) place.phone_number = phone
  if (!place.phone_number && directions?.phone) place.phone_number = directions.phone
  if (!place.address && directions?.address) place.address = directions.address

  const website = websiteOf($, $card)
  if (website) place.website = website
  return withoutUndefined(place)
}

/** A card's `.b_factrow` lines, or the content block's child blocks when it has none. */
function factRows($: Cheerio, content: Nodes): Element[] {
  const rows = content.find('.b_factrow').toArray()
  if (rows.length) return rows
  return content
    .children()
    .toArray()
    .filter((el) => !$(el).is(HEADING) && bingText($(el).text()))
}

/** "Star Rating: 4.5 out of 5." → 4.5 (a comma decimal too); undefined when no 0-5 number leads it. */
function ratingOf(label: string | undefined): number | undefined {
  const m = /(\d+(?:[.,]\d+)?)/.exec(label ?? '')
  if (!m?.[1]) return undefined
  const n = Number(m[1].replace(',', '.'))
  return Number.isFinite(n) && n >= 0 && n <= 5 ? n : undefined
}

/**
 * The review count: "(596)" after a review source or in a `title` ("TripAdvisor (1,234)"), or
 * "1,234 reviews"; a parenthesised phone area code ("(415) 551-1590") is not one.
 */
function ratingCountOf($: Cheerio, rows: Element[]): number | undefined {
  for (const row of rows) {
    const texts = [
      bingText($(row).text()),
      ...$(row)
        .find('[title]')
        .toArray()
        .map((el) => el.attribs.title ?? ''),
      row.attribs.title ?? '',
    ]
    for (const text of texts) {
      const m =
        /\(([\d.,\s\u00a0\u202f]*\d[KkMm]?)\)(?!\s*\d)/.exec(text) ??
        /(\d[\d.,\s\u00a0\u202f]*[KkMm]?)\s+(?:reviews?|ratings?|avis|reseñas|opiniones|bewertungen|recensioni|avaliações|отзыв)/i.exec(text)
      const n = countOf(m?.[1])
      if (n !== undefined) return n
    }
  }
  return undefined
}

/** "1,234" / "1.234" / "1 234" → 1234, "1.2K" → 1200. */
function countOf(s: string | undefined): number | undefined {
  const t = s?.replace(/[\s\u00a0\u202f]/g, '')
  if (!t) return undefined
  const scale = /k$/i.test(t) ? 1_000 : /m$/i.test(t) ? 1_000_000 : 1
  if (scale > 1) {
    const n = Number(t.slice(0, -1).replace(',', '.'))
    return Number.isFinite(n) ? Math.round(n * scale) : undefined
  }
  const n = Number(t.replace(/[.,]/g, ''))
  return Number.isSafeInteger(n) ? n : undefined
}

/**
 * Address and phone from the directions link: `rtp=adr.~pos.<lat>_<lon>_<address>_<name>_<phone>`
 * (the phone may be empty). The address is taken only when the fields split cleanly.
 */
function directionsOf($card: Nodes): { address?: string; phone?: string } | undefined {
  const href = $card.find('a[href*="rtp="]').first().attr('href')
  if (!href) return undefined
  let rtp: string | null
  try {
    rtp = new URL(href, 'https://www.bing.com').searchParams.get('rtp')
  } catch {
    return undefined
  }
  const stop = rtp?.split('~').findLast((s) => s.startsWith('pos.'))
  if (!stop) return undefined
  const fields = stop.slice(4).split('_')
  if (fields.length < 4) return undefined
  const phone = bingText(fields.at(-1))
  const address = fields.length === 5 ? bingText(fields[2]) : ''
  return { phone: PHONE.test(phone) ? phone : undefined, address: address || undefined }
}

/** The card's website button (aria-label or label "Website", or the web icon), off Bing. */
function websiteOf($: Cheerio, $card: Nodes): string | undefined {
  for (const a of $card.find('a[href]').toArray()) {
    const $a = $(a)
    const label = bingText(a.attribs['aria-label']) || bingText($a.find('.b_primtxt').first().text()) || bingText($a.text())
    if (!WEBSITE.test(label) && !$a.find('.ibsb_web').length) continue
    const url = unwrapBingLink(a.attribs.href)
    if (url && !isBingHost(new URL(url).hostname)) return url
  }
  return undefined
}

/** The name on the card's `[ename]` marker (just before the card, or inside it). */
function markerName($card: Nodes): string {
  const marker = $card.prev('[ename]').first().length ? $card.prev('[ename]').first() : $card.find('[ename]').first()
  return bingText(marker.attr('ename'))
}

/** Names only, from the `[etype][ename]` markers of an answer that holds a map, when no card could be read. */
function markerPlaces($: Cheerio): LocalPlace[] {
  const out: LocalPlace[] = []
  const seen = new Set<string>()
  for (const el of $('[etype][ename]').toArray()) {
    const $el = $(el)
    if ($el.closest(NOT_THE_PACK).length) continue
    if (!$el.closest('li').find('[data-resultsoverlay], #lMapContainer, .lMapContainer, #lm_dynmap').length) continue
    const title = bingText(el.attribs.ename)
    if (!title || seen.has(title.toLowerCase())) continue
    seen.add(title.toLowerCase())
    out.push({ position: out.length + 1, title })
  }
  return out
}

function withoutUndefined(place: LocalPlace): LocalPlace {
  for (const k of Object.keys(place) as (keyof LocalPlace)[]) if (place[k] === undefined) delete place[k]
  return place
}
