import { createHmac } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { ApiError } from '../../../errors.ts'
import { decodeReviewsPageToken, encodeReviewsPageToken, type ReviewsPageState, reviewsPlaceKey } from './reviews-page-token.ts'

const SECRET = 'test-secret-1'
const state: ReviewsPageState = {
  place: 'fid:0x14e732fd76f0d90d:0xe5415928d6702b47',
  sort: 'newest',
  offset: 20,
  cursor: 'CAESBkVnSUlDZw==',
  fid: '0x14e732fd76f0d90d:0xe5415928d6702b47',
}

function errorOf(fn: () => unknown): ApiError {
  try {
    fn()
  } catch (e) {
    if (e instanceof ApiError) return e
    throw e
  }
  throw new Error('expected an ApiError')
}

describe('reviews page token', () => {
  it('round-trips and is opaque base64url with a signature', () => {
    const token = encodeReviewsPageToken(state, SECRET)
    expect(token).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/)
    expect(decodeReviewsPageToken(token, state.place, 'newest', SECRET)).toEqual(state)
    const payload = JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString('utf8'))
    expect(payload).toEqual({ v: 1, k: state.place, s: 'newest', o: 20, c: 'CAESBkVnSUlDZw==', f: state.fid })
  })

  it('is bound to the place and the sort', () => {
    const token = encodeReviewsPageToken(state, SECRET)
    const otherPlace = errorOf(() => decodeReviewsPageToken(token, 'cid:16519582940102929223', 'newest', SECRET))
    expect(otherPlace).toMatchObject({ code: 'invalid_request', status: 400 })
    expect(otherPlace.message).toMatch(/^page_token was issued for another place/)
    expect(errorOf(() => decodeReviewsPageToken(token, state.place, 'most_relevant', SECRET)).message).toBe(
      'page_token was issued for sort=newest, not sort=most_relevant',
    )
  })

  it('refuses forged and foreign tokens: an edited offset, a re-signed payload under another key', () => {
    const token = encodeReviewsPageToken(state, SECRET)
    const [, mac] = token.split('.')
    const forgedPayload = Buffer.from(JSON.stringify({ v: 1, k: state.place, s: 'newest', o: 99, c: 'x', f: state.fid })).toString('base64url')
    expect(errorOf(() => decodeReviewsPageToken(`${forgedPayload}.${mac}`, state.place, 'newest', SECRET)).message).toBe(
      'page_token is not valid: it was altered or issued by another server',
    )
    const otherServer = encodeReviewsPageToken(state, 'another-secret')
    expect(errorOf(() => decodeReviewsPageToken(otherServer, state.place, 'newest', SECRET)).code).toBe('invalid_request')
    const truncatedMac = `${token.split('.')[0]}.${mac!.slice(0, 10)}`
    expect(errorOf(() => decodeReviewsPageToken(truncatedMac, state.place, 'newest', SECRET)).message).toMatch(/altered/)
  })

  it('refuses garbage and well-signed payloads outside the rules (offset past the cap)', () => {
    for (const garbage of ['abc', 'a.b.c', '...', 'eyJ2IjoxfQ', 'not base64!.sig']) {
      expect(errorOf(() => decodeReviewsPageToken(garbage, state.place, 'newest', SECRET)).message).toMatch(/^page_token /)
    }
    const sign = (payload: string) => `${payload}.${createHmac('sha256', SECRET).update(`reviews-page-token.${payload}`).digest('base64url')}`
    const pastCap = Buffer.from(JSON.stringify({ v: 1, k: state.place, s: 'newest', o: 100, c: 'x', f: state.fid })).toString('base64url')
    expect(errorOf(() => decodeReviewsPageToken(sign(pastCap), state.place, 'newest', SECRET)).message).toBe('page_token is malformed')
    const notJson = Buffer.from('{oops').toString('base64url')
    expect(errorOf(() => decodeReviewsPageToken(sign(notJson), state.place, 'newest', SECRET)).message).toBe('page_token is malformed')
  })

  it('needs a secret', () => {
    expect(() => encodeReviewsPageToken(state, '')).toThrow(/secret/)
  })
})

describe('reviewsPlaceKey', () => {
  it('names the place by fid, then cid, then place_id', () => {
    expect(reviewsPlaceKey({ fid: '0xAB:0xCD', cid: '1', place_id: 'ChIJxxxxxxxxxx' })).toBe('fid:0xab:0xcd')
    expect(reviewsPlaceKey({ cid: '205', place_id: 'ChIJxxxxxxxxxx' })).toBe('cid:205')
    expect(reviewsPlaceKey({ place_id: 'ChIJxxxxxxxxxx' })).toBe('place_id:ChIJxxxxxxxxxx')
    expect(errorOf(() => reviewsPlaceKey({})).message).toBe('one of place_id, cid, fid is required')
  })
})
