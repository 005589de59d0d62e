import { filterLinks, withSites } from './domain-filter.ts'
import type { VerticalRequest } from './engine.types.ts'
import type { EngineHealth } from './health.ts'
import { type Binding, providerFetch } from './provider.fetch.ts'
import { routeName, routeTakes, searchRoutes } from './provider.routes.ts'
import type { EngineWebSearch, Provider, VerticalAnswer } from './provider.types.ts'
import type { AskOptions, EngineAnswer, SearchEngine } from './search-engine.types.ts'
import type { RouteAttempt } from './upstream/upstream.types.ts'
import type { UpstreamClient } from './upstream/upstream-client.ts'

// Verticals whose items are ranked links under include_domains / exclude_domains and num / page.
const LINK_VERTICALS = new Set<VerticalRequest['endpoint']>(['news', 'images', 'videos'])

/**
 * Binds a provider to the upstream client, and does the engine-neutral work around it once for
 * every provider: `site:` operators added to the query where the engine has them, domain filters
 * enforced on what came back (engines treat operators as hints), positions counted from the start
 * of the whole list (page 2 of num=10 starts at 11), and every fetch's route attempts collected.
 * Web search walks the provider's routes inside one request (provider.routes.ts).
 */
export function bindProvider<Name extends string>(upstream: UpstreamClient, provider: Provider<Name>, health: EngineHealth): SearchEngine<Name> {
  const binding: Binding = { upstream, provider, health }
  const routes: readonly EngineWebSearch[] = [provider.search, ...(provider.fallbackRoutes ?? [])]
  return {
    name: provider.name,
    capabilities: provider.capabilities,
    routes: () => routes.map((r) => ({ name: routeName(r), unavailable: r.unavailable?.() ?? null })),
    takes(vertical, param) {
      if (vertical !== 'search') return provider.capabilities.params.includes(param)
      return routes.some((r) => routeTakes(provider, r, param))
    },
    search: (req, opts = {}) => searchRoutes(binding, routes, req, opts),
    validateVertical(req) {
      provider.verticals[req.endpoint]?.validate?.(req)
    },
    vertical: (req, opts = {}) => askVertical(binding, req, opts),
  }
}

/** One vertical asked; link verticals get `site:` operators, domain filters and positions from the start of the list. */
function askVertical(binding: Binding, req: VerticalRequest, opts: AskOptions): Promise<EngineAnswer<VerticalAnswer<unknown>>> | undefined {
  const { provider } = binding
  const vertical = provider.verticals[req.endpoint]
  if (!vertical) return undefined
  const attempts: RouteAttempt[] = []
  if (!LINK_VERTICALS.has(req.endpoint)) return vertical.run(req, providerFetch(binding, attempts, opts)).then((page) => ({ page, attempts }))
  return vertical.run(withSites(req, provider.capabilities.siteOperator), providerFetch(binding, attempts, opts)).then((page) => {
    const offset = ((req.page ?? 1) - 1) * (req.num ?? 10)
    const kept = filterLinks(page.results as { link?: string | null; position: number }[], req)
    const results = kept.map((r, i) => ({ ...r, position: offset + i + 1 }))
    return { page: { ...page, results } as VerticalAnswer<unknown>, attempts }
  })
}
