/**
 * One page of a place's reviews: `GET https://www.google.com/maps/rpc/listugcposts?authuser=0&hl=..&gl=..&pb=..`,
 * the RPC the Maps web app calls when the reviews tab scrolls. The pb names the place by fid
 * (`!1m6!1s<fid>…`), the page size and Google's continuation token (`!2m2!1i<size>!2s<token>`),
 * a client session id (`!5m2!1s<id>!7e81`), the entry options the app sends, and the sort
 * (`!13m1!1e<code>`: 1 most relevant, 2 newest, 3 highest rating, 4 lowest rating).
 */
import type { ReviewSort, VerticalRequest } from '../../engine.types.ts'
import type { GoogleRequest } from '../google-search.url.ts'
import { mapsHeaders } from '../maps/google-maps.request.ts'

export interface ReviewsPageParams {
  fid: string
  /** 1..20: Google serves at most 20 reviews a call. */
  pageSize: number
  /** Google's continuation token; absent for the first page. */
  cursor?: string
  /** The web app's per-session request id; any short base64url string. */
  sessionId: string
}

const ENDPOINT = 'https://www.google.com/maps/rpc/listugcposts'

/** Most reviews one listugcposts call returns. */
export const REVIEWS_UPSTREAM_PAGE = 20

export const SORT_CODES: Record<ReviewSort, number> = { most_relevant: 1, newest: 2, highest_rating: 3, lowest_rating: 4 }

// What the web app asks each entry to carry (owner replies, translations, reviewer details).
const ENTRY_OPTIONS = '!8m9!2b1!3b1!5b1!7b1!12m4!1b1!2b1!4m1!1e1!11m4!1e3!2e1!6m1!1i2'

export function buildGoogleReviewsRequest(req: Pick<VerticalRequest, 'sort' | 'language' | 'country'>, page: ReviewsPageParams): GoogleRequest {
  const size = Math.min(REVIEWS_UPSTREAM_PAGE, Math.max(1, Math.trunc(page.pageSize)))
  const pb =
    `!1m6!1s${pbText(page.fid)}!6m4!4m1!1e1!4m1!1e3` +
    `!2m2!1i${size}!2s${pbText(page.cursor ?? '')}` +
    `!5m2!1s${pbText(page.sessionId)}!7e81` +
    ENTRY_OPTIONS +
    `!13m1!1e${SORT_CODES[req.sort ?? 'most_relevant']}`
  const language = req.language ?? 'en'
  const query = [
    ['authuser', '0'],
    ['hl', language],
    ['gl', req.country ?? 'us'],
    ['pb', pb],
  ]
    .map(([k, v]) => `${k}=${encodeURIComponent(v!)}`)
    .join('&')
  return { url: `${ENDPOINT}?${query}`, headers: mapsHeaders(language) }
}

/** pb strings escape their own delimiters: "*" as "*2A" and "!" as "*21". */
function pbText(s: string): string {
  return s.replace(/\*/g, '*2A').replace(/!/g, '*21')
}
