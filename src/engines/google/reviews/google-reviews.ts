/**
 * /v1/reviews on Google: resolve the place to its fid when only place_id or cid was given (one
 * Maps page fetch), then page listugcposts until `num` reviews are in, up to review 100 of the
 * sort order. Google's continuation token rides in our signed next_page_token.
 */
import { randomBytes } from 'node:crypto'
import { ApiError } from '../../../errors.ts'
import type { ParseQuality, Review, VerticalRequest } from '../../engine.types.ts'
import type { EngineFetch, EngineVertical } from '../../provider.types.ts'
import { detectMapsJsonBlock, detectMapsPageBlock } from '../maps/google-maps.block.ts'
import { parseGoogleReviews } from './google-reviews.parse.ts'
import { buildGoogleReviewsRequest, REVIEWS_UPSTREAM_PAGE } from './google-reviews.request.ts'
import { buildPlaceLookupRequest, parsePlaceIdentity } from './google-reviews-place.resolve.ts'
import { decodeReviewsPageToken, encodeReviewsPageToken, REVIEWS_CAP, reviewsPlaceKey } from './reviews-page-token.ts'

const MAX_NUM = 50
// num ≤ 50 needs 3 calls of 20; the slack covers short pages without letting a loop run away.
const MAX_CALLS = 5

/** `tokenSecret` signs next_page_token; pass the server's secret so tokens survive restarts. */
export function googleReviews(tokenSecret: string): EngineVertical<Review> {
  if (!tokenSecret) throw new Error('googleReviews needs a non-empty page-token secret')
  return {
    validate(req) {
      if (req.page_token) decodeReviewsPageToken(req.page_token, reviewsPlaceKey(req), req.sort ?? 'most_relevant', tokenSecret)
    },
    async run(req, fetch) {
      const place = reviewsPlaceKey(req)
      const sort = req.sort ?? 'most_relevant'
      const num = Math.min(MAX_NUM, Math.max(1, Math.trunc(req.num ?? 10)))
      const resumed = req.page_token ? decodeReviewsPageToken(req.page_token, place, sort, tokenSecret) : undefined
      const fid = resumed?.fid ?? req.fid?.toLowerCase() ?? (await resolveFid(req, place, fetch))
      // A place Google does not know has no reviews: an empty answer (free), as for any empty query.
      if (!fid) return { results: [], parse_quality: 'empty' }
      const offset = resumed?.offset ?? 0
      // A page never reaches past review 100 of the sort order.
      const want = Math.min(num, REVIEWS_CAP - offset)

      const results: Review[] = []
      let cursor = resumed?.cursor
      let quality: ParseQuality = 'ok'
      const sessionId = randomBytes(16).toString('base64url').slice(0, 21)
      for (let call = 0; results.length < want && call < MAX_CALLS; call++) {
        // Ask for exactly what is still missing, so Google's cursor lands where this page ends.
        const pageSize = Math.min(REVIEWS_UPSTREAM_PAGE, want - results.length)
        const { url, headers } = buildGoogleReviewsRequest({ ...req, sort }, { fid, pageSize, cursor, sessionId })
        const page = parseGoogleReviews((await fetch(url, headers, detectMapsJsonBlock)).body)
        if (page.parse_quality === 'partial') quality = 'partial'
        results.push(...page.results.slice(0, want - results.length))
        cursor = page.cursor
        if (!cursor || page.results.length === 0) break
      }

      const returned = offset + results.length
      const answer = { results, parse_quality: results.length ? quality : ('empty' as const) }
      if (!cursor || returned >= REVIEWS_CAP || results.length === 0) return answer
      return { ...answer, extras: { next_page_token: encodeReviewsPageToken({ place, sort, offset: returned, cursor, fid }, tokenSecret) } }
    },
  }
}

async function resolveFid(req: VerticalRequest, place: string, fetch: EngineFetch): Promise<string | undefined> {
  const { url, headers } = buildPlaceLookupRequest(req)
  const page = await fetch(url, headers, detectMapsPageBlock)
  const identity = parsePlaceIdentity(page.body, page.url, req.cid)
  if (identity.fid) return identity.fid
  if (identity.maps_page) return undefined
  throw new ApiError('upstream_error', `could not read the place for ${place} from the Google Maps page`)
}
