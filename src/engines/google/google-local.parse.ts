/** Local pack places, top stories and text ads. */
import type { CheerioAPI } from 'cheerio'
import type { AnyNode, Element } from 'domhandler'
import type { Ad, LocalPlace, TopStory } from '../engine.types.ts'
import type { Positions } from '../parse/dom-index.ts'
import { closestMatch, matches, selectAll, selectOne } from '../parse/select.ts'
import { domainOf } from '../parse/text.ts'
import { bestTextBlock, findLabels, linesOf, regionOf } from './google-blocks.util.ts'
import { ancestors, compact, isElement, isInside, looksLikeDate, parseRating, parseRatingCount, resultUrl, textOf, unwrapGoogleUrl } from './google-dom.util.ts'
import { readCard } from './shopping/google-shopping.parse.ts'

const TOP_STORIES_LABEL = /^(top stories|à la une|principales noticias|noticias destacadas|schlagzeilen|главные новости)$/i
const RELATIVE_TIME = /^\d+\s+\w+\s+ago$|^(il y a|hace|vor)\s+\d+|назад$|^(yesterday|today)$/i
const PHONE = /^\+?[\d\s().-]{7,}\d$/
const PRICE = /^[$€£¥₹₽]{1,4}$|^[$€£¥₹₽]\d/
const HOURS = /^(open|closed|closes|opens|open 24 hours|temporarily closed|ouvert|fermé|abierto|cerrado|geöffnet|geschlossen)\b/i

/** The local pack: businesses linked by their customer id (`data-cid` or a `ludocid` link). */
export function placesOf($: CheerioAPI, scope: AnyNode): LocalPlace[] {
  const byCid = new Map<string, Element>()
  for (const el of selectAll($, scope, CID_SELECTOR)) {
    // Knowledge panels list nearby businesses too; those are not the local pack.
    if (closestMatch(el, '[data-attrid], #rhs, .kp-wholepage')) continue
    const cid = cidOf(el)
    if (cid && !byCid.has(cid)) byCid.set(cid, el)
  }
  const out: LocalPlace[] = []
  for (const [cid, el] of byCid) {
    const item = itemOf(el, (a) => {
      const ids = new Set<string>()
      for (const x of selectAll($, a, CID_SELECTOR)) {
        const id = cidOf(x)
        if (id) ids.add(id)
      }
      return ids.size <= 1
    })
    const place = placeOf($, item, cid)
    if (place) out.push({ ...place, position: out.length + 1 })
  }
  return out
}

// Video cards reuse data-cid for short hex ids; a business id is a long decimal number.
const CID_SELECTOR = 'a[data-cid], a[href*="ludocid="], [data-rc_ludocids]'

function cidOf(el: Element): string | undefined {
  const direct = el.attribs['data-cid'] ?? el.attribs['data-rc_ludocids']
  if (direct && /^\d{6,}$/.test(direct)) return direct
  return /[?&]ludocid=(\d+)/.exec(el.attribs.href ?? '')?.[1]
}

/**
 * Largest ancestor of `el` that still passes `single` (holds one item only) and is not a whole
 * section (one with its own section heading).
 */
function itemOf(el: Element, single: (el: Element) => boolean): Element {
  let item = el
  for (const a of ancestors(el)) {
    if (a.name === 'body' || a.attribs.id === 'rso' || !single(a)) break
    if (a.children.some((k) => isElement(k) && (k.name === 'h2' || k.attribs['aria-level'] === '2'))) break
    item = a
  }
  return item
}

function placeOf($: CheerioAPI, item: Element, cid: string): LocalPlace | undefined {
  const heading = selectOne($, item, '[role="heading"], h3')
  // Star images are blocks, so "4.5 ★ (60)" can come out as two lines; glue the count back on.
  const lines = linesOf(item, (el) => el.attribs['aria-hidden'] === 'true' && !/\d/.test(textOf(el))).reduce<string[]>((acc, line) => {
    const prev = acc.at(-1)
    if (prev && /^\d[.,]\d$/.test(prev) && /^\(/.test(line)) acc[acc.length - 1] = `${prev} ${line}`
    else acc.push(line)
    return acc
  }, [])
  const title = heading ? textOf(heading) : lines[0]
  if (!title) return undefined
  const place: LocalPlace = { position: 0, title, cid }
  const tokens: string[] = []
  for (const line of lines.slice(lines.indexOf(title) + 1)) {
    const m = /^(\d[.,]\d)\s*(?:\(([\d.,\s\u00a0KkMm]+)\))?\s*(.*)$/.exec(line)
    if (m && place.rating === undefined) {
      place.rating = parseRating(m[1])
      place.rating_count = parseRatingCount(m[2])
      tokens.push(...splitDots(m[3] ?? ''))
    } else tokens.push(...splitDots(line))
  }
  for (const t of tokens) {
    if (PRICE.test(t) || HOURS.test(t) || /^\(\d/.test(t)) continue
    if (PHONE.test(t)) place.phone_number ??= t
    else if (!place.type && !/\d/.test(t) && t.length <= 40 && t.split(' ').length <= 5) place.type = t
    else if (!place.address && (/\d/.test(t) || /,/.test(t)) && t.length <= 80) place.address = t
  }
  const aria = selectOne($, item, '[aria-label^="Rated"]')?.attribs['aria-label']
  place.rating ??= parseRating(aria)
  for (const a of selectAll($, item, 'a[href]')) {
    const url = resultUrl(a.attribs.href)
    if (url && !place.website && /website|site web|sitio web/i.test(textOf(a) || a.attribs['aria-label'] || '')) {
      place.website = url
    }
    const pid = /place_id[:=]([\w-]+)/.exec(a.attribs.href ?? '')?.[1]
    if (pid) place.place_id ??= pid
  }
  const pid = selectOne($, item, '[data-pid]')?.attribs['data-pid']
  if (pid) place.place_id ??= pid
  return compact(place)
}

const splitDots = (s: string): string[] =>
  s
    .split(/\s*[·⋅•]\s*/)
    .map((t) => t.trim())
    .filter(Boolean)

/** News articles under the "Top stories" heading. */
export function topStoriesOf($: CheerioAPI, scope: AnyNode): TopStory[] {
  const out: TopStory[] = []
  const seen = new Set<string>()
  const outbound = (el: Element) => selectAll($, el, 'a[href]').filter((a) => !!resultUrl(a.attribs.href)).length
  for (const label of findLabels($, scope, TOP_STORIES_LABEL)) {
    if (closestMatch(label, 'a')) continue
    const region = regionOf(label, scope, (el) => outbound(el) > 1)
    if (!region) continue
    for (const a of selectAll($, region, 'a[href]')) {
      const link = resultUrl(a.attribs.href)
      if (!link || seen.has(link)) continue
      const heading = selectAll($, a, '[role="heading"], h3').at(-1)
      const lines = linesOf(a)
      const title = heading ? textOf(heading) : lines.reduce((x, y) => (y.length > x.length ? y : x), '')
      if (!title || title.length < 15) continue
      seen.add(link)
      let source: string | undefined
      let date: string | undefined
      for (const line of lines.filter((l) => l !== title)) {
        // The basic layout prints "Axios 1 day ago" on one line.
        const tail = /^(.*?)\s*(\d+\s+\w+\s+ago|[A-Z][a-z]{2}\.? \d{1,2}, \d{4})$/.exec(line)
        if (!date && (looksLikeDate(line) || RELATIVE_TIME.test(line))) date = line
        else if (!date && tail?.[2]) {
          date = tail[2]
          if (tail[1]) source ??= tail[1]
        } else if (!source && line.length <= 60) source = line
      }
      const img = selectOne($, a, 'img[src^="http"]')?.attribs.src
      out.push(compact({ title, link, source, date, image_url: img }))
    }
  }
  return out
}

/**
 * Ads above (`top`) and below (`bottom`) the organic results, in page order: text ads and product
 * ads (the "Sponsored products" cards). Product ads beside the results (right-hand column) count
 * as `top`: they are shown at the top of the page, next to the first results.
 */
export function adsOf($: CheerioAPI, scope: AnyNode, order: Positions, firstOrganic: number): Ad[] {
  const products = productAdUnits($, scope)
  const inProduct = (el: Element) => products.some((u) => isInside(el, u))
  const texts: Element[] = selectAll($, scope, '[data-text-ad]')
  // Ad links: click-through (aclk) links, advertiser-URL attributes, or any titled link in an ads zone.
  const adLinks = [...selectAll($, scope, 'a[href*="/aclk?"], a[data-pcu], a[data-rw]'), ...selectAll($, scope, '#tads a, #tadsb a, #bottomads a, #tvcap a')]
  for (const a of adLinks) {
    if (inProduct(a) || texts.some((u) => isInside(a, u))) continue
    if (!selectOne($, a, 'h3, [role="heading"]')) continue
    texts.push(itemOf(a, (x) => selectAll($, x, 'h3, [role="heading"]').length <= 1 && !selectOne($, x, '#rso')))
  }

  const units = [...texts.map((unit) => ({ unit, product: false })), ...products.map((unit) => ({ unit, product: true }))]
  units.sort((a, b) => (order.get(a.unit) ?? 0) - (order.get(b.unit) ?? 0))
  const seen = new Set<string>()
  const out: Ad[] = []
  for (const { unit, product } of units) {
    const ad = product ? productAdOf($, unit) : adOf($, unit)
    if (!ad) continue
    const key = `${ad.title}|${ad.link}`
    if (seen.has(key)) continue
    seen.add(key)
    const zone = closestMatch(unit, '#tads, #tvcap, #atvcap, #bottomads, #tadsb, #rhs')?.attribs.id
    const block: Ad['block'] = zone === 'bottomads' || zone === 'tadsb' ? 'bottom' : zone ? 'top' : (order.get(unit) ?? 0) < firstOrganic ? 'top' : 'bottom'
    out.push({ ...ad, block, position: out.filter((x) => x.block === block).length + 1 })
  }
  return out
}

/**
 * Product ad cards: Google's `pla-unit` cards, and the card around each merchant-offer link
 * (`data-offer-id` / `data-merchant-id`), which holds should the class be renamed.
 */
function productAdUnits($: CheerioAPI, scope: AnyNode): Element[] {
  const units: Element[] = selectAll($, scope, '.pla-unit').filter((el) => !matches(el, '.view-all-unit'))
  const offerOf = (a: Element) => a.attribs['data-offer-id'] ?? a.attribs['data-merchant-id'] ?? ''
  for (const a of selectAll($, scope, 'a[data-offer-id], a[data-merchant-id]')) {
    if (units.some((u) => isInside(a, u) || isInside(u, a))) continue
    const offer = offerOf(a)
    units.push(itemOf(a, (x) => selectAll($, x, 'a[data-offer-id], a[data-merchant-id]').every((o) => offerOf(o) === offer)))
  }
  // Cards nest (a hover card repeats the ad inside its card): the outermost one is the ad.
  return units.filter((u) => !units.some((o) => o !== u && isInside(u, o)))
}

/**
 * A product ad as an ad item: the product title, the merchant's page, the merchant name where a
 * text ad shows its address, and the price (with delivery) as the description.
 */
function productAdOf($: CheerioAPI, unit: Element): Omit<Ad, 'position' | 'block'> | undefined {
  const card = readCard($, unit, undefined)
  if (!card?.title || !card.link) return undefined
  const domain = unit.attribs['data-dtld'] ?? selectOne($, unit, '[data-dtld]')?.attribs['data-dtld'] ?? domainOf(card.link)
  const snippet = [card.price, card.delivery].filter(Boolean).join(' · ')
  return compact({ title: card.title, link: card.link, domain: domain.replace(/^www\./, ''), displayed_link: card.source, snippet })
}

function adOf($: CheerioAPI, unit: Element): Omit<Ad, 'position' | 'block'> | undefined {
  const heading = selectOne($, unit, 'h3, [role="heading"]')
  if (!heading) return undefined
  const anchor = closestMatch(heading, 'a') ?? (selectOne($, unit, 'a[data-pcu], a[href]') as Element | undefined)
  const title = textOf(heading)
  const link = landingOf(anchor)
  if (!title || !link) return undefined
  const shown = selectOne($, unit, '[data-dtld], cite, [role="text"]')
  const displayed = shown ? textOf(shown) : undefined
  const domain = shown?.attribs['data-dtld'] ?? domainOf(link)
  // The description: not the title, the shown URL (often printed twice) or the "why this ad" menu.
  const skip = (el: Element) =>
    isInside(el, heading) ||
    closestMatch(el, 'cite, [role="button"], [role="menu"], [data-dtld]') !== undefined ||
    selectOne($, el, 'cite, [data-dtld]') !== undefined
  const snippet = bestTextBlock($, unit, skip)
  return compact({ title, link, domain: domain.replace(/^www\./, ''), displayed_link: displayed, snippet })
}

/** Where an ad leads: the advertiser URL Google prints in data-pcu or the click-through target. */
function landingOf(a: Element | undefined): string | undefined {
  if (!a) return undefined
  const pcu = a.attribs['data-pcu']?.split(',')[0]
  if (pcu && /^https?:/.test(pcu)) return pcu
  for (const href of [a.attribs.href, a.attribs['data-rw']]) {
    const url = unwrapGoogleUrl(href)
    if (url) return url
  }
  return undefined
}
