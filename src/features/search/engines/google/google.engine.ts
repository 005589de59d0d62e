import type { SearchEngine } from '../search-engine.ts'
import type { UpstreamClient } from '../upstream/upstream-client.ts'
import { detectGoogleBlock } from './google-block.detect.ts'
import { parseGoogleSearch } from './google-search.parse.ts'
import { buildGoogleSearchRequest, enforceDomainFilters } from './google-search.url.ts'

/** The primary engine: Google web search, fetched through the upstream client and parsed from HTML. */
export function googleEngine(upstream: UpstreamClient): SearchEngine {
  return {
    name: 'google',
    async search(req, signal) {
      const { url, headers } = buildGoogleSearchRequest(req)
      const fetched = await upstream.fetchPage({ engine: 'google', url, headers, signal, detectBlock: (r) => detectGoogleBlock(r) })
      const page = parseGoogleSearch(fetched.body, { includeAds: req.ads === true })
      if (req.include_domains || req.exclude_domains) {
        page.results = enforceDomainFilters(page.results, req.include_domains ?? [], req.exclude_domains ?? [])
      }
      return { page, attempts: fetched.attempts }
    },
  }
}
