/**
 * Parses one listugcposts answer: `)]}'\n[null, <continuation token or null>, [entry, …]]`.
 * Each entry is `[review, null, <entry cursor>]`; inside `review`:
 *   [0] review id
 *   [1] meta: [2] created (µs since epoch), [3] edited, [4][5] author ([0] name, [1] photo,
 *       [5] review count, [10][0] "Local Guide · 46 reviews"), [6] date as displayed,
 *       [13] source ([0] "Google", [4] rating scale)
 *   [2] content: [0][0] stars, [14] languages, [15] text ([0][0] original, [1][0] translation)
 *   [3] owner reply: [1] created (µs), [3] date as displayed, [13] languages, [14] text as above
 *   [4] actions: [6][1] reactions as [kind, count] pairs; kind 1 is the "like" count
 */
import type { Review, VerticalPage } from '../../engine.types.ts'
import { normText } from '../../parse/text.ts'
import { compact, parseCount } from '../google-dom.util.ts'
import { arrAt, at, numAt, parseMapsJson, strAt } from '../maps/google-maps-json.ts'

export interface GoogleReviewsPage extends VerticalPage<Review> {
  /** Google's continuation token; absent on the last page. */
  cursor?: string
}

export function parseGoogleReviews(body: string): GoogleReviewsPage {
  const data = parseMapsJson(body)
  if (!Array.isArray(data)) return { results: [], parse_quality: 'empty' }
  // A bare list of entries (a saved fragment rather than the RPC answer) is read too, as partial.
  const fragment = arrAt(data, 2) === undefined && reviewOf(data[0]) !== undefined
  const cursor = fragment ? undefined : strAt(data, 1)
  const entries = fragment ? data : (arrAt(data, 2) ?? [])
  const results: Review[] = []
  let unreadable = 0
  for (const entry of entries) {
    const review = reviewOf(entry)
    if (review === undefined) unreadable++
    else if (review) results.push(review)
  }
  const parse_quality = results.length === 0 ? 'empty' : unreadable > 0 || fragment ? 'partial' : 'ok'
  return cursor ? { results, parse_quality, cursor } : { results, parse_quality }
}

/**
 * One entry as a Review; null for a review that is not a Google star rating (partner sites rate
 * on other scales), undefined when the entry is not shaped like a review.
 */
export function reviewOf(entry: unknown): Review | null | undefined {
  // Entries wrap the review once; accept a bare review too.
  const review = typeof at(entry, 0) === 'string' ? entry : at(entry, 0)
  const rating = numAt(review, 2, 0, 0)
  const scale = numAt(review, 1, 13, 4)
  if (scale !== undefined && scale !== 5) return null
  if (rating === undefined || rating < 1 || rating > 5) return undefined
  return compact<Review>({
    rating,
    date: textAt(review, 1, 6),
    iso_date: isoFromMicros(numAt(review, 1, 2)),
    snippet: textOf(at(review, 2, 15)),
    likes: likesOf(review),
    user: userOf(review),
    response: responseOf(review),
  })
}

function userOf(review: unknown): Review['user'] {
  const author = at(review, 1, 4, 5)
  const name = textAt(author, 0)
  if (!name) return undefined
  const count = numAt(author, 5) ?? countFromLabel(strAt(author, 10, 0))
  return compact({ name, thumbnail: strAt(author, 1), reviews: count })
}

function responseOf(review: unknown): Review['response'] {
  const snippet = textOf(at(review, 3, 14))
  if (!snippet) return undefined
  return compact({ snippet, date: textAt(review, 3, 3) })
}

/** The review's own text: the original, else Google's translation. */
function textOf(texts: unknown): string | undefined {
  const text = strAt(texts, 0, 0) ?? strAt(texts, 1, 0)
  return text?.trim() || undefined
}

function likesOf(review: unknown): number | undefined {
  for (const reaction of arrAt(review, 4, 6, 1) ?? []) {
    const count = numAt(reaction, 1)
    if (numAt(reaction, 0) === 1 && count !== undefined && count >= 0) return count
  }
  return undefined
}

/** "Local Guide · 46 reviews" → 46. */
function countFromLabel(label: string | undefined): number | undefined {
  if (!label) return undefined
  const part = label.split('·').at(-1) ?? label
  return /\d/.test(part) ? parseCount(part) : undefined
}

function isoFromMicros(micros: number | undefined): string | undefined {
  if (micros === undefined || micros <= 0) return undefined
  const date = new Date(Math.floor(micros / 1000))
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString()
}

function textAt(value: unknown, ...path: number[]): string | undefined {
  const s = strAt(value, ...path)
  return s ? normText(s) : undefined
}
