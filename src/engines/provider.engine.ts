import { compileSiteOperators, keepDomains } from './domain-filter.ts'
import type { EngineFetch, Provider, SearchEngine, VerticalAnswer } from './engine.ts'
import type { SearchRequest, VerticalRequest } from './engine.types.ts'
import type { RouteAttempt } from './upstream/upstream.types.ts'
import type { UpstreamClient } from './upstream/upstream-client.ts'
import { isUpstreamError, UpstreamError, type UpstreamErrorCode } from './upstream/upstream-error.ts'

// Verticals whose items are ranked links under include_domains / exclude_domains and num / page.
const LINK_VERTICALS = new Set<VerticalRequest['endpoint']>(['news', 'images', 'videos'])

/**
 * Binds a provider to the upstream client, and does the engine-neutral work around it once for
 * every provider: `site:` operators added to the query where the engine has them, domain filters
 * enforced on what came back (engines treat operators as hints), positions counted from the start
 * of the whole list (page 2 of num=10 starts at 11), and every fetch's route attempts collected.
 */
export function bindProvider(upstream: UpstreamClient, provider: Provider): SearchEngine {
  const fetcher = (attempts: RouteAttempt[], signal?: AbortSignal): EngineFetch => {
    return async (url, headers, detectBlock, form) => {
      const fetched = await upstream.fetchPage({ engine: provider.name, url, headers, form, signal, detectBlock: detectBlock ?? provider.detectBlock })
      attempts.push(...fetched.attempts)
      return fetched
    }
  }
  return {
    name: provider.name,
    capabilities: provider.capabilities,
    async search(req, signal) {
      const attempts: RouteAttempt[] = []
      const page = await provider.search.run(withSites(req, provider.capabilities.siteOperator), fetcher(attempts, signal)).catch((err) => {
        // A provider that fetched fine but could not read the page: its fetches still make the route.
        throw isUpstreamError(err) && err.attempts.length === 0 ? new UpstreamError(err.code as UpstreamErrorCode, err.message, attempts, err) : err
      })
      const filtered = filterLinks(page.results, req)
      const offset = req.offset ?? (req.page - 1) * req.num
      page.results = filtered.map((r, i) => ({ ...r, position: offset + i + 1 }))
      return { page, attempts }
    },
    validateVertical(req) {
      provider.verticals[req.endpoint]?.validate?.(req)
    },
    vertical(req) {
      const vertical = provider.verticals[req.endpoint]
      if (!vertical) return undefined
      const attempts: RouteAttempt[] = []
      if (!LINK_VERTICALS.has(req.endpoint)) return vertical.run(req, fetcher(attempts)).then((page) => ({ page, attempts }))
      return vertical.run(withSites(req, provider.capabilities.siteOperator), fetcher(attempts)).then((page) => {
        const offset = ((req.page ?? 1) - 1) * (req.num ?? 10)
        const kept = filterLinks(page.results as { link?: string | null; position: number }[], req)
        const results = kept.map((r, i) => ({ ...r, position: offset + i + 1 }))
        return { page: { ...page, results } as VerticalAnswer<unknown>, attempts }
      })
    },
  }
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
