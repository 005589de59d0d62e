import { createHash } from 'node:crypto'
import type { ResponseCache } from '../cache/response-cache.ts'
import type { AuthContext } from '../http/auth.ts'
import type { Store } from '../store/database.ts'
import { charge, reserve, settle } from './credits.ts'
import { toCredits } from './money.ts'
import { cacheHitPriceMc } from './prices.ts'

/** A response body every search-style endpoint shares: a meta record beside what was found. */
export interface LookupBody {
  meta: Record<string, unknown>
}

export interface LookupDeps {
  store: Store
  cache: ResponseCache
  cacheTtlMs: number
  log: { warn(obj: object, msg: string): void }
}

/** What one billed lookup (search, a vertical, rank, the compatible endpoint) does and costs. */
export interface LookupPlan<B extends LookupBody> {
  /** Ledger label, e.g. /v1/images. */
  endpoint: string
  /** The normalised request; equal requests share one cache entry. */
  request: object
  /** Reserved before any upstream work. */
  priceMc: number
  /** What a body costs live; 0 means nothing was found (free, never cached, never enriched). */
  deliveredMc(body: B): number
  /** Accept a cached body up to this many seconds old, at half price. */
  maxAge?: number
  /** False for endpoints without max_age: nothing could ever read the entry, so it is not written. */
  cacheable?: boolean
  /** Asks the engine(s); the body's meta gets request_id, credits and latency filled in afterwards. */
  live(): Promise<B>
  /** Extra billed work on top of the body (include_content): reserved up front, returns what it earned. */
  enrich?: { reserveMc: number; run(body: B, fromCache: boolean): Promise<{ body: B; usedMc: number }> }
}

/**
 * Who pays and how. `realtime`: reserve before the work, settle after (the HTTP endpoints).
 * `prepaid`: the caller has already charged for the work (a batch job at half price) and settles
 * the difference itself; the lookup only reports what the delivered body costs at `factor` times
 * the realtime price (0.5 for batches).
 * `free`: nobody pays (the keyless playground): no account, no reservation, no ledger row;
 * credits_used is 0. The `auth` argument is never read.
 */
export type Billing = { mode: 'realtime' } | { mode: 'prepaid'; factor: number } | { mode: 'free' }
export const REALTIME: Billing = { mode: 'realtime' }

export interface LookupOutcome<B> {
  body: B
  usedMc: number
  balanceMc: number | null
  cacheHit: boolean
  cacheKey: string
}

export function lookupCacheKey(request: object): string {
  const json = JSON.stringify(request)
  let key = recentKeys.get(json)
  if (key === undefined) {
    const kind = (request as { endpoint?: string }).endpoint ?? 'lookup'
    key = `${kind}:${createHash('sha256').update(json).digest('hex')}`
    if (recentKeys.size >= 10_000) recentKeys.delete(recentKeys.keys().next().value as string)
    recentKeys.set(json, key)
  }
  return key
}

/** Requests repeat (that is what the cache is for): their keys are remembered rather than hashed again each time. */
const recentKeys = new Map<string, string>()

/**
 * Cache (only with max_age), reserve, look up, settle. Every reservation is settled: the price of
 * what was delivered, nothing on empty answers or failures. Successful non-empty bodies are cached
 * for max_age replays; the enrichment (page contents) is never part of the cached body.
 */
export async function runBilledLookup<B extends LookupBody>(
  deps: LookupDeps,
  auth: AuthContext,
  plan: LookupPlan<B>,
  requestId: string,
  billing: Billing = REALTIME,
): Promise<LookupOutcome<B>> {
  if (billing.mode === 'prepaid') return prepaidLookup(deps, plan, requestId, billing.factor)
  if (billing.mode === 'free') return prepaidLookup(deps, plan, requestId, 0)
  const started = performance.now()
  const payer = { accountId: auth.accountId, keyId: auth.keyId, keyLimitMc: auth.keyLimitMc }
  const cacheKey = lookupCacheKey(plan.request)
  const hit = plan.maxAge ? await cachedBody<B>(deps, cacheKey, plan.maxAge) : null

  if (hit && !plan.enrich) {
    // Work already done: one transaction, nothing held.
    const hitPrice = cacheHitPriceMc(plan.deliveredMc(hit.body))
    const balanceMc = await charge(deps.store, payer, hitPrice, requestId, plan.endpoint)
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

  const lookupMc = hit ? cacheHitPriceMc(plan.priceMc) : plan.priceMc
  const reservation = await reserve(deps.store, payer, lookupMc + (plan.enrich?.reserveMc ?? 0), requestId, plan.endpoint)
  let body: B
  let usedMc: number
  try {
    body = hit ? hit.body : await plan.live()
    const delivered = plan.deliveredMc(body)
    usedMc = hit ? cacheHitPriceMc(delivered) : delivered
    if (!hit && delivered > 0 && plan.cacheable !== false)
      await deps.cache.set(cacheKey, body, deps.cacheTtlMs).catch((err) => deps.log.warn({ err }, 'cache write failed'))
    if (plan.enrich && delivered > 0) {
      const enriched = await plan.enrich.run(body, hit != null)
      body = enriched.body
      usedMc += enriched.usedMc
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

/**
 * The lookup without the realtime billing around it: cache (with max_age), engines, cache write,
 * enrichment. Prices are `factor` times the realtime price of what was delivered.
 */
async function prepaidLookup<B extends LookupBody>(deps: LookupDeps, plan: LookupPlan<B>, requestId: string, factor: number): Promise<LookupOutcome<B>> {
  const started = performance.now()
  const cacheKey = lookupCacheKey(plan.request)
  const hit = plan.maxAge ? await cachedBody<B>(deps, cacheKey, plan.maxAge) : null
  let body = hit ? hit.body : await plan.live()
  const delivered = plan.deliveredMc(body)
  let usedMc = hit ? cacheHitPriceMc(delivered) : delivered
  if (!hit && delivered > 0 && plan.cacheable !== false)
    await deps.cache.set(cacheKey, body, deps.cacheTtlMs).catch((err) => deps.log.warn({ err }, 'cache write failed'))
  if (plan.enrich && delivered > 0) {
    const enriched = await plan.enrich.run(body, hit != null)
    body = enriched.body
    usedMc += enriched.usedMc
  }
  usedMc = Math.round(usedMc * factor)
  const meta = {
    ...body.meta,
    request_id: requestId,
    credits_used: toCredits(usedMc),
    latency_ms: elapsed(started),
    ...(hit && { cached: true, cached_at: hit.cachedAt }),
  }
  return { body: { ...body, meta }, usedMc, balanceMc: null, cacheHit: hit != null, cacheKey }
}

export const elapsed = (started: number) => Math.round(performance.now() - started)

/** The response `meta` of a live answer; request_id, credits and latency are final after settling. */
export function liveMeta(requestId: string, answer: { engine: string; attempts: unknown }, started: number, results: readonly unknown[], quality: string) {
  return {
    request_id: requestId,
    credits_used: 0,
    cached: false,
    engine: answer.engine,
    route: answer.attempts,
    latency_ms: elapsed(started),
    parse_quality: results.length === 0 ? 'empty' : quality,
    resolved_urls: !results.some(isRedirectLink),
  }
}

/**
 * Links that lead through the engine before the page: Google News' article links (the feed gives
 * no other), and the click-tracking forms of Google, Bing and DuckDuckGo should a parser ever pass
 * one on. `resolved_urls` is false when any result links through one of them.
 */
const REDIRECT_LINK =
  /^https?:\/\/(?:news\.google\.com\/(?:rss\/)?articles\/|(?:www\.)?google\.[a-z.]+\/url\?|(?:www\.)?bing\.com\/ck\/a\?|(?:html\.)?duckduckgo\.com\/l\/\?)/i

function isRedirectLink(result: unknown): boolean {
  const link = (result as { link?: unknown } | null)?.link
  return typeof link === 'string' && REDIRECT_LINK.test(link)
}

async function cachedBody<B>(deps: LookupDeps, cacheKey: string, maxAge: number) {
  const hit = await deps.cache.get<B>(cacheKey).catch((err) => {
    deps.log.warn({ err }, 'cache read failed; looking up live')
    return null
  })
  if (!hit || Date.now() - hit.storedAt > maxAge * 1000) return null
  return { body: hit.value, cachedAt: new Date(hit.storedAt).toISOString() }
}
