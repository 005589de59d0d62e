/** Builds the Google Scholar requests for a normalised /v1/scholar request. */
import type { VerticalRequest } from '../../engine.types.ts'
import type { GoogleRequest } from '../google-search.url.ts'
import { googleHeaders } from '../google-search.url.ts'

const ENDPOINT = 'https://scholar.google.com/scholar'

/** Scholar ignores `num` above 20, so deeper requests are served from consecutive upstream pages. */
export const SCHOLAR_PAGE_SIZE = 20

// Articles only (case law and patents excluded; patents have their own endpoint). Citations stay in.
const ARTICLES = '0,5'

/** One upstream Scholar page: the offset of its first result and how many results it asks for. */
export interface ScholarSlice {
  start: number
  num: number
}

/**
 * The upstream pages that together cover the caller's page: results (page-1)*num+1 to page*num,
 * in slices of at most 20, each asking only for what is still missing.
 */
export function scholarSlices(req: VerticalRequest): ScholarSlice[] {
  const num = req.num ?? 10
  const offset = ((req.page ?? 1) - 1) * num
  const slices: ScholarSlice[] = []
  for (let got = 0; got < num; got += SCHOLAR_PAGE_SIZE) slices.push({ start: offset + got, num: Math.min(SCHOLAR_PAGE_SIZE, num - got) })
  return slices
}

/**
 * The Scholar URL and headers for one slice (the first one by default).
 *
 * `lr` is not sent: on Scholar it drops every paper not written in that language, which for most
 * languages hides the bulk of the literature; `hl` sets the interface language only.
 */
export function buildGoogleScholarRequest(req: VerticalRequest, slice: ScholarSlice = scholarSlices(req)[0]!): GoogleRequest {
  const language = req.language ?? 'en'
  const params: [string, string][] = [
    ['q', req.q ?? ''],
    ['hl', language],
    ['as_sdt', ARTICLES],
    ['num', String(slice.num)],
  ]
  if (slice.start > 0) params.push(['start', String(slice.start)])
  const query = params.map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('&')
  return { url: `${ENDPOINT}?${query}`, headers: googleHeaders(language) }
}
