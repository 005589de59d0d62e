/**
 * Web search over a provider's routes, walked inside one request (billed once by the caller) by the
 * fallback walk: a route that is refused, fails or answers a page of which nothing was read is
 * recorded in the route's health (cooled down at once, health.ts) and the next route is asked.
 */
import { filterLinks, withSites } from './domain-filter.ts'
import type { ParsedSearchPage, SearchRequest } from './engine.types.ts'
import { type Candidate, isFallbackError, type Tried, walk } from './fallback-walk.ts'
import { fetchAnswer, readAnswer } from './fetch-route.ts'
import { routeLayout } from './health.ts'
import { type Binding, providerFetch } from './provider.fetch.ts'
import type { EngineFetch, EngineParam, EngineWebSearch, Provider } from './provider.types.ts'
import type { AskOptions, EngineAnswer } from './search-engine.types.ts'
import { searchByPages } from './search-pages.ts'
import { sentParams } from './sent-params.ts'
import type { RouteAttempt } from './upstream/upstream.types.ts'
import { asEngineError, attemptsOf, codeOfAttempts, UpstreamError, upstreamErrorFor, whyFailed } from './upstream/upstream-error.ts'

export const routeName = (route: EngineWebSearch) => route.route ?? 'web'

/** Whether `route` honours `param`: by its own list, else by its provider's. */
export const routeTakes = (provider: Provider, route: EngineWebSearch, param: EngineParam) => (route.params ?? provider.capabilities.params).includes(param)

/**
 * One search by one route through `fetch`: a route declared as data is fetched (page by page
 * when it has a page size) and read here; any other makes its own requests.
 */
export async function searchRoute(route: EngineWebSearch, req: SearchRequest, fetch: EngineFetch): Promise<ParsedSearchPage> {
  if ('run' in route) return route.run(req, fetch)
  if (route.pageSize) return searchByPages(req, route, route.pageSize, fetch)
  return readAnswer(route, req, await fetchAnswer(route, req, req.offset ?? (req.page - 1) * req.num, fetch))
}

type RouteCandidate = Candidate & { route: string; search: EngineWebSearch }

/** Web search over the routes that can serve `req` (or the one named), healthy ones first. */
export async function searchRoutes(
  binding: Binding,
  routes: readonly EngineWebSearch[],
  req: SearchRequest,
  opts: AskOptions,
): Promise<EngineAnswer<ParsedSearchPage>> {
  const { provider, health } = binding
  const candidates = usableRoutes(provider, routes, req, opts.route).map(
    (search): RouteCandidate => ({ engine: provider.name, route: routeName(search), layout: routeLayout('search', routeName(search)), search }),
  )
  const walked = await walk(candidates, { health, deadline: opts.deadline }, (c, more) => askRoute(binding, c, req, { ...opts, more: opts.more || more }))
  if ('answered' in walked) return { page: positioned(walked.page, req), attempts: walked.attempts }
  throw upstreamErrorFor(codeOfAttempts(walked.attempts), provider.name, walked.attempts)
}

/** The named route, or the routes this deployment can use that take every parameter sent; none is a 503. */
function usableRoutes(provider: Provider, routes: readonly EngineWebSearch[], req: SearchRequest, only: string | undefined): EngineWebSearch[] {
  const sent = sentParams(req)
  const usable = routes.filter((r) => (only ? routeName(r) === only : !r.unavailable?.() && sent.every((p) => routeTakes(provider, r, p))))
  if (usable.length > 0) return usable
  const why = only ? `no route ${only}` : routes.map((r) => `${routeName(r)}: ${r.unavailable?.() ?? 'does not take this request'}`).join('; ')
  throw new UpstreamError('upstream_error', `${provider.name} has no route for this request (${why})`, [])
}

/** One route asked once, its outcome recorded for the route's health. */
async function askRoute(binding: Binding, c: RouteCandidate, req: SearchRequest, opts: AskOptions): Promise<Tried<ParsedSearchPage>> {
  const { provider, health } = binding
  const attempts: RouteAttempt[] = []
  const started = performance.now()
  const ms = () => Math.round(performance.now() - started)
  try {
    const page = await searchRoute(c.search, withSites(req, provider.capabilities.siteOperator), providerFetch(binding, attempts, opts, c.route))
    const quality = page.results.length > 0 || page.saysNoResults ? 'ok' : page.parse_quality === 'ok' ? 'empty' : page.parse_quality
    health.record(provider.name, c.layout, { outcome: 'ok', ms: ms(), quality })
    return { page, attempts }
  } catch (caught) {
    const err = asEngineError(caught, provider.name)
    if (opts.signal?.aborted || !isFallbackError(err)) throw err
    // A route that fetched fine but could not read the page says so under its own name.
    if (attempts.length === 0 || attemptsOf(err).length === 0) {
      attempts.push({
        engine: provider.name,
        route: c.route,
        host: '',
        pool: null,
        outcome: err.code === 'upstream_blocked' ? 'blocked' : 'error',
        reason: err.message,
        ms: ms(),
      })
    }
    // A 403 is the engine refusing this client, as a CAPTCHA is: the route cools down at once.
    const refused = err.code === 'upstream_blocked' || attempts.some((a) => a.status === 403)
    const outcome = refused ? 'blocked' : err.code === 'upstream_timeout' ? 'timeout' : 'error'
    health.record(provider.name, c.layout, { outcome, ms: ms(), reason: whyFailed(attempts) || err.message })
    return { error: err, attempts }
  }
}

/** Related searches and questions kept at most: an upstream that lists thousands is not a reason to answer thousands. */
const MAX_EXTRAS = 20

/** Domain filters enforced, positions counted from the start of the whole list, the lists beside the results bounded. */
function positioned(page: ParsedSearchPage, req: SearchRequest): ParsedSearchPage {
  const offset = req.offset ?? (req.page - 1) * req.num
  const out = { ...page, results: filterLinks(page.results, req).map((r, i) => ({ ...r, position: offset + i + 1 })) }
  if (out.related_searches && out.related_searches.length > MAX_EXTRAS) out.related_searches = out.related_searches.slice(0, MAX_EXTRAS)
  if (out.people_also_ask && out.people_also_ask.length > MAX_EXTRAS) out.people_also_ask = out.people_also_ask.slice(0, MAX_EXTRAS)
  return out
}
