/**
 * format=markdown layouts for every vertical except web search (markdown.search.ts). Long text (snippets) goes in
 * numbered lists; short, comparable fields (shopping prices) go in a table, where a reader scans a column.
 */
import {
  code,
  count,
  domainOf,
  image,
  inline,
  items,
  joinParts,
  link,
  numberedItem,
  object,
  paragraph,
  plain,
  position,
  ratingLabel,
  stars,
  table,
} from '../../../text/markdown.text.ts'
import type { JsonObject } from './output.types.ts'

/** Renders one vertical's body to Markdown blocks, without heading and footer. */
export type BlockRenderer = (body: JsonObject) => string[]

export const renderNewsBlocks: BlockRenderer = (body) =>
  list(body, (item) => ({
    first: headline(item, [inline(item.source || item.domain || domainOf(item.link)), inline(item.date)]),
    rest: [paragraph(item.snippet)],
  }))

export const renderImageBlocks: BlockRenderer = (body) =>
  list(body, (item) => {
    const picture = image(item.title, item.thumbnail_url || item.image_url)
    const page = link(item.source || item.domain || domainOf(item.link) || item.title, item.link)
    const size = dimensions(item.image_width, item.image_height)
    const full = plain(item.image_url) && item.thumbnail_url ? link('full image', item.image_url) : ''
    // Without a thumbnail the title still has to appear, as the page link's text.
    const first = picture
      ? joinParts([picture, joinParts([page, size, full])], ' — ')
      : joinParts([link(item.title, item.link), joinParts([size, full])], ' — ')
    return { first, rest: [] }
  })

export const renderVideoBlocks: BlockRenderer = (body) =>
  list(body, (item) => ({
    first: headline(item, [inline(item.channel), inline(item.source || item.domain || domainOf(item.link)), inline(item.duration), inline(item.date)]),
    rest: [paragraph(item.snippet)],
  }))

export const renderPlaceBlocks: BlockRenderer = (body) => {
  const places = renderPlaceList(items(body.results))
  return places ? [places] : []
}

/**
 * Maps, places and the local pack of web search share one layout: name, rating and kind on the first line; how to
 * reach it on the second; opening hours last. The place id is printed because it is what /v1/reviews takes.
 */
export function renderPlaceList(places: readonly JsonObject[]): string {
  return places
    .filter((place) => plain(place.title))
    .map((place, index) => {
      const kind = inline(place.type) || inline(place.types)
      const first = joinParts(
        [`**${inline(place.title)}**`, joinParts([ratingLabel(place.rating, place.rating_count), kind, inline(place.price_level)])],
        ' — ',
      )
      const website = plain(place.website) ? link(domainOf(place.website), place.website) : ''
      const contact = joinParts([paragraph(place.address), inline(place.phone_number), website, code(place.place_id) ? `place_id ${code(place.place_id)}` : ''])
      return numberedItem(position(place, index), first, [contact, openingHours(place.opening_hours)])
    })
    .join('\n\n')
}

export const renderShoppingBlocks: BlockRenderer = (body) => {
  const products = items(body.results).filter((item) => plain(item.title))
  if (products.length === 0) return []
  return [
    table(
      [
        { header: '#', value: (item, index) => String(position(item, index)) },
        { header: 'Product', value: (item) => link(item.title, item.link) },
        { header: 'Price', value: (item) => inline(item.price) || priceFromValue(item) },
        { header: 'Source', value: (item) => inline(item.source) },
        { header: 'Rating', value: (item) => ratingLabel(item.rating, item.rating_count) },
        { header: 'Delivery', value: (item) => inline(item.delivery) },
        { header: 'Offers', value: (item) => inline(item.offers) },
      ],
      products,
    ),
  ]
}

export const renderScholarBlocks: BlockRenderer = (body) =>
  list(body, (item) => {
    const info = inline(item.publication_info)
    const year = plain(item.year)
    const cited = count(item.cited_by)
    return {
      first: headline(item, [info || inline(item.domain || domainOf(item.link)), year && !info.includes(year) ? year : '']),
      rest: [paragraph(item.snippet), joinParts([cited ? `Cited by ${cited}` : '', plain(item.pdf_url) ? link('PDF', item.pdf_url) : ''])],
    }
  })

export const renderPatentBlocks: BlockRenderer = (body) =>
  list(body, (item) => ({
    first: headline(item, [inline(item.publication_number)]),
    rest: [
      joinParts([
        labelled('Inventor', item.inventor),
        labelled('Assignee', item.assignee),
        labelled('Priority', item.priority_date),
        labelled('Filed', item.filing_date),
        labelled('Granted', item.grant_date),
        labelled('Published', item.publication_date),
        labelled('Language', item.language),
      ]),
      paragraph(item.snippet),
      plain(item.pdf_url) ? link('PDF', item.pdf_url) : '',
    ],
  }))

export const renderReviewBlocks: BlockRenderer = (body) => {
  const reviews = items(body.results).map((review, index) => {
    const user = object(review.user)
    const reviewsByUser = count(user?.reviews)
    const rating = typeof review.rating === 'number' ? `${stars(review.rating)} ${review.rating}/5` : ''
    const likes = count(review.likes)
    const first = joinParts(
      [
        rating,
        joinParts([
          joinParts([inline(user?.name), reviewsByUser ? `(${plural(reviewsByUser, 'review')})` : ''], ' '),
          reviewDate(review),
          likes && review.likes !== 0 ? plural(likes, 'like') : '',
        ]),
      ],
      ' — ',
    )
    return numberedItem(index + 1, first || 'Review', [paragraph(review.snippet), ownerResponse(object(review.response))])
  })
  const token = code(body.next_page_token)
  return [reviews.join('\n\n'), token ? `More reviews: pass page_token ${token} with the same place and sort.` : ''].filter(Boolean)
}

/** A numbered list of `results`, numbered by position; [] when there is nothing to list. */
function list(body: JsonObject, render: (item: JsonObject) => { first: string; rest: string[] }): string[] {
  const entries = items(body.results)
    .filter((item) => plain(item.title) || plain(item.link)) // an entry with neither has nothing to point at
    .map((item, index) => {
      const { first, rest } = render(item)
      return numberedItem(position(item, index), first, rest)
    })
  return entries.length > 0 ? [entries.join('\n\n')] : []
}

/** `[Title](link) — part · part`, the first line of most list layouts. */
function headline(item: JsonObject, parts: readonly string[]): string {
  return joinParts([link(item.title, item.link), joinParts(parts)], ' — ')
}

function plural(formatted: string, noun: string): string {
  return `${formatted} ${formatted === '1' ? noun : `${noun}s`}`
}

function labelled(label: string, value: unknown): string {
  const text = inline(value)
  return text ? `${label}: ${text}` : ''
}

function dimensions(width: unknown, height: unknown): string {
  return typeof width === 'number' && typeof height === 'number' ? `${width}×${height}` : ''
}

function priceFromValue(item: JsonObject): string {
  if (typeof item.price_value !== 'number') return ''
  return joinParts([String(item.price_value), inline(item.currency)], ' ')
}

/** "2 weeks ago (2024-03-01)": the text as shown plus the exact day, which a relative date alone loses. */
function reviewDate(review: JsonObject): string {
  const shown = inline(review.date)
  const day = /^\d{4}-\d{2}-\d{2}/.exec(plain(review.iso_date))?.[0] ?? ''
  if (shown && day) return `${shown} (${day})`
  return shown || day
}

function ownerResponse(response: JsonObject | undefined): string {
  const text = inline(response?.snippet)
  if (!text) return ''
  const date = inline(response?.date)
  return `> **Owner response**${date ? ` (${date})` : ''}: ${text}`
}

function openingHours(hours: unknown): string {
  const days = Object.entries(object(hours) ?? {})
    .filter(([, text]) => plain(text) !== '')
    .map(([day, text]) => `${inline(day)} ${inline(text)}`)
  return days.length > 0 ? `Hours: ${days.join('; ')}` : ''
}
