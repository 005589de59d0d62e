import { ApiError } from '../errors.ts'
import { sentParams } from './choice.ts'
import { compileSiteOperators, keepDomains } from './domain-filter.ts'
import type { AskOptions, EngineFetch, EngineParam, EngineWebSearch, Provider, SearchEngine, VerticalAnswer } from './engine.ts'
import type { ParsedSearchPage, SearchRequest, VerticalRequest } from './engine.types.ts'
import { type EngineHealth, routeLayout } from './health.ts'
import type { RouteAttempt } from './upstream/upstream.types.ts'
import type { UpstreamClient } from './upstream/upstream-client.ts'
import { attemptsOf, codeOfAttempts, UpstreamError, upstreamErrorFor, whyFailed } from './upstream/upstream-error.ts'

// Verticals whose items are ranked links under include_domains / exclude_domains and num / page.
const LINK_VERTICALS = new Set<VerticalRequest['endpoint']>(['news', 'images', 'videos'])

/**
 * Binds a provider to the upstream client, and does the engine-neutral work around it once for
 * every provider: `site:` operators added to the query where the engine has them, domain filters
 * enforced on what came back (engines treat operators as hints), positions counted from the start
 * of the whole list (page 2 of num=10 starts at 11), and every fetch's route attempts collected.
 * Web search walks the provider's routes inside one request (billed once by the caller): a route
 * that is refused, fails or answers a page of which nothing was read is recorded in the route's
 * health (cooled down at once, health.ts) and the next route is asked.
 */
export function bindProvider(upstream: UpstreamClient, provider: Provider, health: EngineHealth): SearchEngine {
  const routes: readonly EngineWebSearch[] = [provider.search, ...(provider.fallbackRoutes ?? [])]
  const routeName = (route: EngineWebSearch) => route.route ?? 'web'
  const routeTakes = (route: EngineWebSearch, param: EngineParam) => (route.params ?? provider.capabilities.params).includes(param)

  const fetcher = (attempts: RouteAttempt[], opts: AskOptions, route?: string): EngineFetch => {
    const named = (list: RouteAttempt[]) => (route ? list.map((a) => ({ ...a, route })) : list)
    return async (url, headers, detectBlock, form, how) => {
      const remaining = opts.deadline === undefined ? undefined : opts.deadline - Date.now()
      if (remaining !== undefined && remaining <= 0) throw outOfTime(provider.name, route, url)
      // With routes or providers still to ask, a hung engine must not take all of it.
      const left = remaining !== undefined && opts.more ? Math.ceil(remaining / 2) : remaining
      try {
        const fetched = await upstream.fetchPage({
          engine: provider.name,
          url,
          headers,
          form,
          signal: opts.signal,
          ...(left !== undefined && { timeoutMs: left }),
          detectBlock: detectBlock ?? provider.detectBlock,
          render: how?.render,
          ...(provider.gate && { gate: provider.gate }),
        })
        attempts.push(...named(fetched.attempts))
        return fetched
      } catch (err) {
        attempts.push(...named(attemptsOf(err)))
        throw err
      }
    }
  }

  const skippedRoute = (r: EngineWebSearch, reason: string): RouteAttempt => ({
    engine: provider.name,
    route: routeName(r),
    host: '',
    pool: null,
    outcome: 'skipped',
    reason,
    ms: 0,
  })

  /** One route asked once, its outcome recorded for the route's health. */
  async function askRoute(route: EngineWebSearch, req: SearchRequest, attempts: RouteAttempt[], opts: AskOptions): Promise<ParsedSearchPage> {
    const name = routeName(route)
    const layout = routeLayout('search', name)
    const started = performance.now()
    const ms = () => Math.round(performance.now() - started)
    const before = attempts.length
    try {
      const page = await route.run(withSites(req, provider.capabilities.siteOperator), fetcher(attempts, opts, name))
      const quality = page.results.length > 0 || page.saysNoResults ? 'ok' : page.parse_quality === 'ok' ? 'empty' : page.parse_quality
      health.record(provider.name, layout, { outcome: 'ok', ms: ms(), quality })
      return page
    } catch (err) {
      if (opts.signal?.aborted || !isRouteFailure(err)) throw err
      // A route that fetched fine but could not read the page says so under its own name.
      if (attempts.length === before || attemptsOf(err).length === 0) {
        attempts.push({
          engine: provider.name,
          route: name,
          host: '',
          pool: null,
          outcome: err.code === 'upstream_blocked' ? 'blocked' : 'error',
          reason: err.message,
          ms: ms(),
        })
      }
      // A 403 is the engine refusing this client, as a CAPTCHA is: the route cools down at once.
      const refused = err.code === 'upstream_blocked' || attempts.slice(before).some((a) => a.status === 403)
      const outcome = refused ? 'blocked' : err.code === 'upstream_timeout' ? 'timeout' : 'error'
      health.record(provider.name, layout, { outcome, ms: ms(), reason: whyFailed(attempts.slice(before)) || err.message })
      throw err
    }
  }

  return {
    name: provider.name,
    capabilities: provider.capabilities,
    routes: () => routes.map((r) => ({ name: routeName(r), unavailable: r.unavailable?.() ?? null })),
    takes(vertical, param) {
      if (vertical !== 'search') return provider.capabilities.params.includes(param)
      return routes.some((r) => routeTakes(r, param))
    },
    async search(req, opts = {}) {
      const only = opts.route
      const attempts: RouteAttempt[] = []
      const sent = sentParams(req)
      const usable = routes.filter((r) => (only ? routeName(r) === only : !r.unavailable?.() && sent.every((p) => routeTakes(r, p))))
      if (usable.length === 0) {
        const why = only ? `no route ${only}` : routes.map((r) => `${routeName(r)}: ${r.unavailable?.() ?? 'does not take this request'}`).join('; ')
        throw new UpstreamError('upstream_error', `${provider.name} has no route for this request (${why})`, attempts)
      }
      // Routes cooling down are passed over while another remains; all cooling, all are tried.
      const ready = only ? usable : usable.filter((r) => health.available(provider.name, routeLayout('search', routeName(r))))
      const order = ready.length > 0 ? ready : usable
      for (const r of usable) {
        if (order.includes(r)) continue
        const state = health.state(provider.name, routeLayout('search', routeName(r)))
        attempts.push(skippedRoute(r, `route ${state}; not asked until its cool-down ends`))
      }
      let unreadable: ParsedSearchPage | undefined
      for (const [i, route] of order.entries()) {
        // The request's deadline is spent: the routes left are not asked (named in meta.route).
        if (opts.deadline !== undefined && Date.now() >= opts.deadline) {
          attempts.push(...order.slice(i).map((r) => skippedRoute(r, 'not asked: the request deadline had passed')))
          break
        }
        let page: ParsedSearchPage
        try {
          page = await askRoute(route, req, attempts, { ...opts, more: opts.more || i < order.length - 1 })
        } catch (err) {
          if (opts.signal?.aborted || !isRouteFailure(err)) throw err
          continue // recorded in attempts and the route's health
        }
        // Result markup of which nothing was read: the next route may do better.
        if (i < order.length - 1 && page.results.length === 0 && page.parse_quality === 'partial') {
          attempts.push({
            engine: provider.name,
            route: routeName(route),
            host: '',
            pool: null,
            outcome: 'error',
            reason: 'page not understood (parse_quality partial)',
            ms: 0,
          })
          unreadable = page
          continue
        }
        return { page: positioned(page, req), attempts }
      }
      if (unreadable) return { page: positioned(unreadable, req), attempts }
      throw upstreamErrorFor(codeOfAttempts(attempts), provider.name, attempts)
    },
    validateVertical(req) {
      provider.verticals[req.endpoint]?.validate?.(req)
    },
    vertical(req, opts = {}) {
      const vertical = provider.verticals[req.endpoint]
      if (!vertical) return undefined
      const attempts: RouteAttempt[] = []
      if (!LINK_VERTICALS.has(req.endpoint)) return vertical.run(req, fetcher(attempts, opts)).then((page) => ({ page, attempts }))
      return vertical.run(withSites(req, provider.capabilities.siteOperator), fetcher(attempts, opts)).then((page) => {
        const offset = ((req.page ?? 1) - 1) * (req.num ?? 10)
        const kept = filterLinks(page.results as { link?: string | null; position: number }[], req)
        const results = kept.map((r, i) => ({ ...r, position: offset + i + 1 }))
        return { page: { ...page, results } as VerticalAnswer<unknown>, attempts }
      })
    },
  }
}

/** A fetch that would start after the request's deadline: a timeout, named as one. */
function outOfTime(engine: string, route: string | undefined, url: string): UpstreamError {
  const attempt: RouteAttempt = {
    engine,
    ...(route && { route }),
    host: new URL(url).host,
    pool: null,
    outcome: 'timeout',
    reason: 'the request deadline had passed',
    ms: 0,
  }
  return upstreamErrorFor('upstream_timeout', engine, [attempt])
}

/** A refusal, timeout or failure of the engine (the next route may do better); anything else is thrown as is. */
function isRouteFailure(err: unknown): err is ApiError {
  return err instanceof ApiError && (err.code === 'upstream_blocked' || err.code === 'upstream_timeout' || err.code === 'upstream_error')
}

/** Domain filters enforced and positions counted from the start of the whole list. */
function positioned(page: ParsedSearchPage, req: SearchRequest): ParsedSearchPage {
  const offset = req.offset ?? (req.page - 1) * req.num
  return { ...page, results: filterLinks(page.results, req).map((r, i) => ({ ...r, position: offset + i + 1 })) }
}

/** The request with its domain filters moved into the query as `site:` operators, where the engine has them. */
function withSites<R extends { q?: string; include_domains?: string[]; exclude_domains?: string[] }>(req: R, siteOperator: boolean): R {
  const sites = compileSiteOperators(req.include_domains ?? [], req.exclude_domains ?? [])
  if (!sites || !siteOperator || req.q === undefined) return req
  return { ...req, q: `${req.q} ${sites}`, include_domains: undefined, exclude_domains: undefined }
}

function filterLinks<T extends { link?: string | null }>(items: T[], req: SearchRequest | VerticalRequest): T[] {
  return keepDomains(items, req.include_domains ?? [], req.exclude_domains ?? [], (item) => item.link)
}
