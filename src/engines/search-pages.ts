/**
 * Depth by pages, for a route that declares its page size (Google has ignored `num` since
 * September 2025 and answers 10 results a page): a request for `num` results from offset `o`
 * (`(page-1)*num`, or the request's own `offset`) is ceil(num/size) pages at `start = o, o+size,
 * …`, fetched in parallel and merged in order.
 */
import { mapLimit } from '../jobs/map-limit.ts'
import type { ParsedSearchPage, SearchRequest } from './engine.types.ts'
import { fetchAnswer, readAnswer } from './fetch-route.ts'
import type { EngineFetch, EngineRequest, FetchRoute } from './provider.types.ts'
import { isUpstreamError } from './upstream/upstream-error.ts'

/**
 * Pages fetched at once. `num` is at most 100, so a request has at most 10 pages of 10 and all of
 * them go out together: one search holds at most 10 upstream connections.
 */
export const PARALLEL_PAGES = 10

/** The `start` of each page a request needs, in order. */
export function pageStarts(req: SearchRequest, pageSize: number): number[] {
  const offset = req.offset ?? (req.page - 1) * req.num
  return Array.from({ length: Math.ceil(req.num / pageSize) }, (_, i) => offset + i * pageSize)
}

/**
 * The request's results from its pages: every page fetched at once, then each read in order
 * (reading is synchronous work: done while other pages are still in flight it would eat their
 * deadlines). Organic results in page order, each link once, cut to `num`; every other section
 * (related searches, knowledge graph, ads…) and the result count from the first page. The first
 * page failing fails the whole call; a later page failing (blocked, unreadable) leaves what was
 * read, answered as `partial`.
 */
export async function searchByPages<Q extends EngineRequest>(
  req: SearchRequest,
  route: FetchRoute<Q>,
  pageSize: number,
  fetch: EngineFetch,
): Promise<ParsedSearchPage> {
  const fetched = await mapLimit(pageStarts(req, pageSize), PARALLEL_PAGES, (start) =>
    fetchAnswer(route, req, start, fetch).then(
      (answer) => ({ answer }),
      (error: unknown) => ({ error }),
    ),
  )
  const [head, ...tail] = fetched
  if (!head || 'error' in head) throw head?.error
  const first = readAnswer(route, req, head.answer)
  const results = [...first.results]
  const seen = new Set(results.map((r) => r.link))
  let lost = false
  for (const later of tail) {
    let page: ParsedSearchPage
    try {
      if ('error' in later) throw later.error
      page = readAnswer(route, req, later.answer)
    } catch (error) {
      // A bug is a bug on any page; only an upstream failure (block, fetch, unreadable page) is tolerated.
      if (!isUpstreamError(error)) throw error
      lost = true
      continue
    }
    for (const r of page.results) {
      if (seen.has(r.link)) continue
      seen.add(r.link)
      results.push(r)
    }
  }
  const kept = results.slice(0, req.num).map((r, i) => ({ ...r, position: i + 1 }))
  // The first page's verdict, unless a later page was lost; a first page with no results stands
  // (results on a later page after "no results" would be odd enough to be partial).
  const quality = first.parse_quality === 'empty' ? (kept.length > 0 ? 'partial' : 'empty') : lost ? 'partial' : first.parse_quality
  return { ...first, results: kept, parse_quality: quality }
}
