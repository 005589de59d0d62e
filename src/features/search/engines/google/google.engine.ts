import type { VerticalRequest } from '../../search.types.ts'
import type { EngineFetch, EngineVertical, SearchEngine } from '../search-engine.ts'
import type { RouteAttempt } from '../upstream/upstream.types.ts'
import type { UpstreamClient } from '../upstream/upstream-client.ts'
import { detectGoogleBlock } from './google-block.detect.ts'
import { parseGoogleSearch } from './google-search.parse.ts'
import { buildGoogleSearchRequest, enforceDomainFilters } from './google-search.url.ts'

export type GoogleVerticals = Partial<Record<VerticalRequest['endpoint'], EngineVertical<unknown>>>

/** The primary engine: Google web search and its verticals, fetched through the upstream client. */
export function googleEngine(upstream: UpstreamClient, verticals: GoogleVerticals = {}): SearchEngine {
  return {
    name: 'google',
    async search(req, signal) {
      const { url, headers } = buildGoogleSearchRequest(req)
      const fetched = await upstream.fetchPage({ engine: 'google', url, headers, signal, detectBlock: (r) => detectGoogleBlock(r) })
      const page = parseGoogleSearch(fetched.body, { includeAds: req.ads === true })
      if (req.include_domains || req.exclude_domains) {
        page.results = enforceDomainFilters(page.results, req.include_domains ?? [], req.exclude_domains ?? [])
      }
      // Positions count from the first result of the whole list, as on every vertical: page 2 starts at 11.
      const offset = req.offset ?? (req.page - 1) * req.num
      if (offset > 0) page.results = page.results.map((r) => ({ ...r, position: r.position + offset }))
      return { page, attempts: fetched.attempts }
    },
    validateVertical(req) {
      verticals[req.endpoint]?.validate?.(req)
    },
    vertical(req) {
      const vertical = verticals[req.endpoint]
      if (!vertical) return undefined
      const attempts: RouteAttempt[] = []
      const fetch: EngineFetch = async (url, headers, detectBlock) => {
        const fetched = await upstream.fetchPage({ engine: 'google', url, headers, detectBlock: detectBlock ?? ((r) => detectGoogleBlock(r)) })
        attempts.push(...fetched.attempts)
        return fetched
      }
      return vertical.run(req, fetch).then((page) => ({ page, attempts }))
    },
  }
}
