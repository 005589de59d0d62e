import type { AuthContext } from '../../http/auth.ts'
import type { Store } from '../../store/database.ts'
import { deliveredSearchPriceMc, searchPriceMc } from '../credits/prices.ts'
import { type PageReadDeps, pagePriceMc } from '../reading/page-read.service.ts'
import { type LookupOutcome, liveMeta, runBilledLookup } from './billed-lookup.ts'
import { askEngines, resolveEngineName } from './engine-choice.ts'
import type { SearchEngine } from './engines/search-engine.ts'
import { countryFromLocation } from './search.params.ts'
import type { SearchParams } from './search.schema.ts'
import type { OrganicResult, ParsedSearchPage, SearchRequest } from './search.types.ts'
import { attachContent } from './search-content.service.ts'

/** The page-reading deps (cache, log, cacheTtlMs, config) serve include_content too. */
export interface SearchDeps extends PageReadDeps {
  store: Store
  engines: Map<string, SearchEngine>
}

export interface SearchOptions {
  maxAge?: number
  /** Read the top N results' pages too (+1 credit each). */
  includeContent?: number
}

export type SearchOutcome = LookupOutcome<SearchResponseBody>

export interface SearchResponseBody extends Omit<ParsedSearchPage, 'parse_quality' | 'total_results'> {
  request: SearchRequest
  meta: Record<string, unknown>
}

/** Fills defaults and folds aliases so equal requests share one cache entry (SPEC `request`). */
export function normaliseSearch(p: SearchParams, auth: AuthContext): SearchRequest {
  const engine = resolveEngineName(p.engine, auth)
  const country = p.country ?? (p.location ? countryFromLocation(p.location) : undefined) ?? 'us'
  const req: SearchRequest = {
    endpoint: 'search',
    engine,
    q: p.q,
    country,
    language: p.language ?? 'en',
    num: p.num ?? 10,
    page: p.page ?? 1,
    safe: p.safe ?? 'off',
    device: p.device ?? 'desktop',
  }
  if (p.location) req.location = p.location
  if (p.uule) req.uule = p.uule
  if (p.ll) req.ll = p.ll
  if (p.time) req.time = p.time
  if (p.tbs) req.tbs = p.tbs
  if (p.autocorrect !== undefined) req.autocorrect = p.autocorrect
  if (p.ads !== undefined) req.ads = p.ads
  if (p.include_domains) req.include_domains = p.include_domains
  if (p.exclude_domains) req.exclude_domains = p.exclude_domains
  return req
}

/**
 * /v1/search: cache (only with max_age), reserve, ask the engine(s), read result pages when asked,
 * settle: the price of the depth delivered, nothing on empty pages or failures, and one credit per
 * result page actually read.
 */
export function runSearch(deps: SearchDeps, auth: AuthContext, req: SearchRequest, opts: SearchOptions, requestId: string): Promise<SearchOutcome> {
  const started = performance.now()
  const contentCount = Math.min(opts.includeContent ?? 0, req.num)
  return runBilledLookup<SearchResponseBody>(
    deps,
    auth,
    {
      endpoint: '/v1/search',
      request: req,
      priceMc: searchPriceMc(req.num),
      deliveredMc: (body) => deliveredSearchPriceMc(req.num, body.results.length),
      maxAge: opts.maxAge,
      live: () => liveSearch(deps, req, requestId, started),
      enrich:
        contentCount > 0
          ? {
              reserveMc: contentCount * pagePriceMc(false),
              async run(body) {
                // Page contents are never part of the cached search body: each page has its own cache entry.
                const copy = structuredClone(body)
                const usedMc = await attachContent(deps, copy.results as OrganicResult[], contentCount, opts.maxAge)
                return { body: copy, usedMc }
              },
            }
          : undefined,
    },
    requestId,
  )
}

async function liveSearch(deps: SearchDeps, req: SearchRequest, requestId: string, started: number): Promise<SearchResponseBody> {
  const answer = await askEngines(deps.engines, req.engine, (engine) => engine.search(req))
  // Engines may print more than asked (Google often ignores num); the caller paid for `num`.
  const results = answer.page.results.slice(0, req.num)
  const { parse_quality, total_results: _total, results: _all, ...sections } = answer.page
  return {
    request: req,
    results,
    ...sections,
    meta: liveMeta(requestId, answer, started, results.length, parse_quality),
  }
}
