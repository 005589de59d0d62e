/** How the engine layer fetches and reads a route declared as data (provider.types.ts, FetchRoute). */
import type { ParsedSearchPage, SearchRequest, VerticalPage, VerticalRequest } from './engine.types.ts'
import type { EngineFetch, EngineRequest, EngineVertical, FetchRoute } from './provider.types.ts'
import type { BlockDetector } from './upstream/upstream.types.ts'

/** A route's request and the body it was answered with; null when the route had nothing to ask. */
export type RouteAnswer<Q extends EngineRequest> = { request: Q; body: string } | null

/** The route's request for the page from result `start`, fetched; a failure is thrown as the route explains it. */
export async function fetchAnswer<Q extends EngineRequest>(
  route: FetchRoute<Q>,
  req: SearchRequest,
  start: number,
  fetch: EngineFetch,
): Promise<RouteAnswer<Q>> {
  const request = route.request(req, start)
  if (!request) return null
  try {
    const fetched = await fetch(request.url, request.headers, request.detectBlock, request.form, request.render ? { render: true } : undefined)
    return { request, body: fetched.body }
  } catch (err) {
    throw route.explain ? route.explain(err) : err
  }
}

/** The page an answer holds; nothing asked is an empty answer (free). */
export function readAnswer<Q extends EngineRequest>(route: FetchRoute<Q>, req: SearchRequest, answer: RouteAnswer<Q>): ParsedSearchPage {
  return answer ? route.read(answer.body, req, answer.request) : { results: [], parse_quality: 'empty' }
}

/**
 * A vertical answered by one fetch: the request `build` makes, fetched with its block check, the
 * body parsed. `cutToNum` where the engine may send more results than the caller asked (and pays) for.
 */
export function oneFetchVertical<T>(
  build: (req: VerticalRequest) => { url: string; headers: Record<string, string> },
  detectBlock: BlockDetector,
  parse: (body: string, req: VerticalRequest) => VerticalPage<T>,
  opts: { cutToNum?: boolean } = {},
): EngineVertical<T> {
  return {
    async run(req, fetch) {
      const { url, headers } = build(req)
      const { body } = await fetch(url, headers, (r) => detectBlock(r))
      const page = parse(body, req)
      return opts.cutToNum ? { ...page, results: page.results.slice(0, req.num ?? 10) } : page
    },
  }
}
