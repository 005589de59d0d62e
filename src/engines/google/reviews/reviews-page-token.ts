/**
 * The /v1/reviews page token: opaque to clients, base64url JSON of where the next page starts
 * (place, sort, reviews already returned, Google's continuation token, the resolved fid), signed
 * with HMAC-SHA256 under a server secret. The signature stops clients from forging an offset to
 * page past the first 100 reviews or pointing the cursor at another place; the binding to place
 * and sort keeps a token from being replayed against a different request.
 */
import { createHmac, timingSafeEqual } from 'node:crypto'
import { ApiError } from '../../../errors.ts'
import type { ReviewSort, VerticalRequest } from '../../engine.types.ts'

/** Paging reaches the first 100 reviews of a sort order (README.md "What works today"). */
export const REVIEWS_CAP = 100

export interface ReviewsPageState {
  /** The identifier the client sent, as `fid:…`, `cid:…` or `place_id:…`. */
  place: string
  sort: ReviewSort
  /** Reviews already returned for this place and sort. */
  offset: number
  /** Google's continuation token for the next listugcposts page. */
  cursor: string
  /** The place's feature id, so later pages skip the place lookup. */
  fid: string
}

const VERSION = 1
const SORTS: readonly ReviewSort[] = ['most_relevant', 'newest', 'highest_rating', 'lowest_rating']
const FID = /^0x[0-9a-f]{1,16}:0x[0-9a-f]{1,16}$/
const B64URL = /^[A-Za-z0-9_-]+$/

/** The place a reviews request names, in the form tokens are bound to: fid first, then cid, then place_id. */
export function reviewsPlaceKey(req: Pick<VerticalRequest, 'fid' | 'cid' | 'place_id'>): string {
  if (req.fid) return `fid:${req.fid.toLowerCase()}`
  if (req.cid) return `cid:${req.cid}`
  if (req.place_id) return `place_id:${req.place_id}`
  throw new ApiError('invalid_request', 'one of place_id, cid, fid is required')
}

export function encodeReviewsPageToken(state: ReviewsPageState, secret: string): string {
  const payload = Buffer.from(JSON.stringify({ v: VERSION, k: state.place, s: state.sort, o: state.offset, c: state.cursor, f: state.fid })).toString(
    'base64url',
  )
  return `${payload}.${sign(payload, secret).toString('base64url')}`
}

/**
 * The state inside `token`, checked against the request it came with. Throws invalid_request
 * naming the problem: not a token, altered or from another server, another place, another sort.
 */
export function decodeReviewsPageToken(token: string, placeKey: string, sort: ReviewSort, secret: string): ReviewsPageState {
  const [payload, mac, ...rest] = token.split('.')
  if (!payload || !mac || rest.length || !B64URL.test(payload) || !B64URL.test(mac)) {
    throw new ApiError('invalid_request', 'page_token is not a next_page_token issued by this server')
  }
  const expected = sign(payload, secret)
  const given = Buffer.from(mac, 'base64url')
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    throw new ApiError('invalid_request', 'page_token is not valid: it was altered or issued by another server')
  }
  const state = stateOf(payload)
  if (!state) throw new ApiError('invalid_request', 'page_token is malformed')
  if (state.place !== placeKey) {
    throw new ApiError('invalid_request', `page_token was issued for another place (${state.place}); send the same place as the request that returned it`)
  }
  if (state.sort !== sort) throw new ApiError('invalid_request', `page_token was issued for sort=${state.sort}, not sort=${sort}`)
  return state
}

function sign(payload: string, secret: string): Buffer {
  if (!secret) throw new Error('the reviews page-token secret must not be empty')
  return createHmac('sha256', secret).update(`reviews-page-token.${payload}`).digest()
}

function stateOf(payload: string): ReviewsPageState | undefined {
  let raw: unknown
  try {
    raw = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'))
  } catch {
    return undefined
  }
  if (!raw || typeof raw !== 'object') return undefined
  const { v, k, s, o, c, f } = raw as Record<string, unknown>
  const valid =
    v === VERSION &&
    typeof k === 'string' &&
    SORTS.includes(s as ReviewSort) &&
    Number.isInteger(o) &&
    (o as number) > 0 &&
    (o as number) < REVIEWS_CAP &&
    typeof c === 'string' &&
    c !== '' &&
    typeof f === 'string' &&
    FID.test(f)
  return valid ? { place: k, sort: s as ReviewSort, offset: o as number, cursor: c, fid: f } : undefined
}
