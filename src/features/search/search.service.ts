import { createHash } from 'node:crypto'
import { ApiError } from '../../errors.ts'
import type { AuthContext } from '../../http/auth.ts'
import type { Store } from '../../store/database.ts'
import { charge, reserve, settle } from '../credits/credits.service.ts'
import { toCredits } from '../credits/money.ts'
import { cacheHitPriceMc, deliveredSearchPriceMc, searchPriceMc } from '../credits/prices.ts'
import { type PageReadDeps, pagePriceMc } from '../reading/page-read.service.ts'
import type { SearchEngine } from './engines/search-engine.ts'
import type { RouteAttempt } from './engines/upstream/upstream.types.ts'
import { attemptsOf } from './engines/upstream/upstream-error.ts'
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

export interface SearchOutcome {
  body: SearchResponseBody
  usedMc: number
  balanceMc: number | null
  cacheHit: boolean
  cacheKey: string
}

export interface SearchResponseBody extends Omit<ParsedSearchPage, 'parse_quality' | 'total_results'> {
  request: SearchRequest
  meta: Record<string, unknown>
}

/** Providers tried, in order, for `engine=auto`: the primary first, then the alternatives (later issues). */
const AUTO_ORDER = ['google']

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

function resolveEngineName(engine: SearchParams['engine'], auth: AuthContext): string {
  if (engine === undefined) return auth.allowFallback ? 'auto' : 'google'
  const names = (Array.isArray(engine) ? engine : engine.split(',')).map((s) => s.trim().toLowerCase()).filter(Boolean)
  for (const name of names) {
    if (name !== 'google' && name !== 'auto') {
      throw new ApiError('invalid_request', `engine ${name} is not available on this server; use google or auto`)
    }
  }
  return names.includes('auto') ? 'auto' : 'google'
}

export function searchCacheKey(req: SearchRequest): string {
  return `search:${createHash('sha256').update(JSON.stringify(req)).digest('hex')}`
}

/**
 * /v1/search: cache (only with max_age), reserve, ask the engine(s), read result pages when asked,
 * settle. Every reservation is settled: the price of the depth delivered, nothing on empty pages or
 * failures, and one credit per result page actually read.
 */
export async function runSearch(deps: SearchDeps, auth: AuthContext, req: SearchRequest, opts: SearchOptions, requestId: string): Promise<SearchOutcome> {
  const started = performance.now()
  const priceMc = searchPriceMc(req.num)
  const payer = { accountId: auth.accountId, keyId: auth.keyId, keyLimitMc: auth.keyLimitMc }
  const cacheKey = searchCacheKey(req)
  const contentCount = Math.min(opts.includeContent ?? 0, req.num)
  const hit = opts.maxAge ? await cachedBody(deps, cacheKey, opts.maxAge) : null

  if (hit && contentCount === 0) {
    // Work already done: one transaction, nothing held.
    const hitPrice = cacheHitPriceMc(deliveredSearchPriceMc(req.num, hit.body.results.length))
    const balanceMc = await charge(deps.store, payer, hitPrice, requestId, '/v1/search')
    const meta = {
      ...hit.body.meta,
      request_id: requestId,
      credits_used: toCredits(hitPrice),
      cached: true,
      cached_at: hit.cachedAt,
      latency_ms: elapsed(started),
    }
    return { body: { ...hit.body, meta }, usedMc: hitPrice, balanceMc, cacheHit: true, cacheKey }
  }

  const searchMc = hit ? cacheHitPriceMc(priceMc) : priceMc
  const reservation = await reserve(deps.store, payer, searchMc + contentCount * pagePriceMc(false), requestId, '/v1/search')
  let body: SearchResponseBody
  let usedMc: number
  try {
    body = hit ? hit.body : await liveSearch(deps, req, requestId, started)
    const empty = body.results.length === 0
    const deliveredMc = deliveredSearchPriceMc(req.num, body.results.length)
    usedMc = hit ? cacheHitPriceMc(deliveredMc) : deliveredMc
    if (!hit && !empty) await deps.cache.set(cacheKey, body, deps.cacheTtlMs).catch((err) => deps.log.warn({ err }, 'cache write failed'))
    // Page contents are never part of the cached search body: each page has its own cache entry.
    if (contentCount > 0 && !empty) {
      body = structuredClone(body)
      usedMc += await attachContent(deps, body.results as OrganicResult[], contentCount, opts.maxAge)
    }
  } catch (err) {
    await settle(deps.store, reservation, 0)
    throw err
  }
  const balanceMc = await settle(deps.store, reservation, usedMc)
  // A new object: cached bodies are shared and never changed in place.
  const meta = {
    ...body.meta,
    request_id: requestId,
    credits_used: toCredits(usedMc),
    latency_ms: elapsed(started),
    ...(hit && { cached: true, cached_at: hit.cachedAt }),
  }
  return { body: { ...body, meta }, usedMc, balanceMc, cacheHit: hit != null, cacheKey }
}

const elapsed = (started: number) => Math.round(performance.now() - started)

async function cachedBody(deps: SearchDeps, cacheKey: string, maxAge: number) {
  const hit = await deps.cache.get<SearchResponseBody>(cacheKey).catch((err) => {
    deps.log.warn({ err }, 'cache read failed; searching live')
    return null
  })
  if (!hit || Date.now() - hit.storedAt > maxAge * 1000) return null
  return { body: hit.value, cachedAt: new Date(hit.storedAt).toISOString() }
}

async function liveSearch(deps: SearchDeps, req: SearchRequest, requestId: string, started: number): Promise<SearchResponseBody> {
  const answer = await askEngines(deps, req)
  // Engines may print more than asked (Google often ignores num); the caller paid for `num`.
  const results = answer.page.results.slice(0, req.num)
  const { parse_quality, total_results: _total, results: _all, ...sections } = answer.page
  return {
    request: req,
    results,
    ...sections,
    meta: {
      request_id: requestId,
      credits_used: 0,
      cached: false,
      engine: answer.engine,
      route: answer.attempts,
      latency_ms: elapsed(started),
      parse_quality: results.length === 0 ? 'empty' : parse_quality,
      resolved_urls: true,
    },
  }
}

/** Tries the requested engine, or each engine of `auto` in turn while the previous one is blocked or slow. */
async function askEngines(deps: SearchDeps, req: SearchRequest) {
  const names = req.engine === 'auto' ? AUTO_ORDER : [req.engine]
  const attempts: RouteAttempt[] = []
  let lastError: unknown
  for (const name of names) {
    const engine = deps.engines.get(name)
    if (!engine) continue
    try {
      const answer = await engine.search(req)
      return { engine: name, page: answer.page, attempts: [...attempts, ...answer.attempts] }
    } catch (err) {
      attempts.push(...attemptsOf(err))
      lastError = err
      const code = err instanceof ApiError ? err.code : 'internal'
      if (code !== 'upstream_blocked' && code !== 'upstream_timeout' && code !== 'upstream_error') throw err
    }
  }
  throw lastError ?? new ApiError('unavailable', 'no search engine is configured', { retryAfterSeconds: 60 })
}
