/** How the engine layer fetches and reads a route declared as data (provider.types.ts, FetchRoute). */
import type { ParsedSearchPage, SearchRequest } from './engine.types.ts'
import type { EngineFetch, EngineRequest, FetchRoute } from './provider.types.ts'

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
