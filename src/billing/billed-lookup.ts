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

function lookupCacheKey(request: object): string {
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
 * One lookup's paperwork, made when the request starts: the ledger label, the cache key of its
 * normalised request (equal requests share one entry) and the clock its latency is read from.
 */
export interface LookupTicket {
  endpoint: string
  requestId: string
  cacheKey: string
  started: number
}

export function lookupTicket(endpoint: string, request: object, requestId: string): LookupTicket {
  return { endpoint, requestId, cacheKey: lookupCacheKey(request), started: performance.now() }
}

/** An answer stored by an earlier lookup, accepted up to `max_age` seconds old at half price. */
export interface CachedAnswer<B> {
  body: B
  cachedAt: string
}

/** The cached answer to this request when the caller allows one (`maxAge`) and it is young enough. */
export async function readCachedAnswer<B>(deps: LookupDeps, ticket: LookupTicket, maxAge: number | undefined): Promise<CachedAnswer<B> | null> {
  if (!maxAge) return null
  const hit = await deps.cache.get<B>(ticket.cacheKey).catch((err) => {
    deps.log.warn({ err }, 'cache read failed; looking up live')
    return null
  })
  if (!hit || Date.now() - hit.storedAt > maxAge * 1000) return null
  return { body: hit.value, cachedAt: new Date(hit.storedAt).toISOString() }
}

/** Keeps a non-empty live answer for later max_age replays; a failed write costs the caller nothing. */
export async function cacheAnswer(deps: LookupDeps, ticket: LookupTicket, body: object): Promise<void> {
  await deps.cache.set(ticket.cacheKey, body, deps.cacheTtlMs).catch((err) => deps.log.warn({ err }, 'cache write failed'))
}

/** What an answer costs: its live price, or half of it when it came from the cache. */
export const priceAsServed = (liveMc: number, cached: CachedAnswer<unknown> | null) => (cached ? cacheHitPriceMc(liveMc) : liveMc)

/**
 * A cached answer sold again with nothing to add: work already done, so nothing is held. Realtime
 * billing takes it in one transaction; prepaid and free billing only report the price.
 */
export async function payForCached<B extends LookupBody>(
  deps: LookupDeps,
  auth: AuthContext,
  billing: Billing,
  ticket: LookupTicket,
  cached: CachedAnswer<B>,
  liveMc: number,
): Promise<LookupOutcome<B>> {
  const priceMc = cacheHitPriceMc(liveMc)
  if (billing.mode !== 'realtime') return outcome(cached.body, Math.round(priceMc * factorOf(billing)), null, ticket, cached)
  const balanceMc = await charge(deps.store, payerOf(auth), priceMc, ticket.requestId, ticket.endpoint)
  return outcome(cached.body, priceMc, balanceMc, ticket, cached)
}

/**
 * Credits held for a lookup in flight. Every hold ends exactly once: `settle` keeps the price of
 * what was delivered and returns the rest; `release` (a failure) returns everything.
 */
export interface Hold {
  settle<B extends LookupBody>(body: B, usedMc: number, cached: CachedAnswer<B> | null): Promise<LookupOutcome<B>>
  release(): Promise<void>
}

/** Holds `amountMc` before any upstream work, as the kind of billing asks. */
export function holdCredits(deps: LookupDeps, auth: AuthContext, billing: Billing, ticket: LookupTicket, amountMc: number): Promise<Hold> {
  return billing.mode === 'realtime' ? holdRealtime(deps.store, auth, ticket, amountMc) : Promise.resolve(holdPaidElsewhere(ticket, factorOf(billing)))
}

/** Realtime: a reservation now (402 when the credits are not there), settled on what was delivered. */
async function holdRealtime(store: Store, auth: AuthContext, ticket: LookupTicket, amountMc: number): Promise<Hold> {
  const reservation = await reserve(store, payerOf(auth), amountMc, ticket.requestId, ticket.endpoint)
  return {
    settle: async (body, usedMc, cached) => outcome(body, usedMc, await settle(store, reservation, usedMc), ticket, cached),
    release: async () => {
      await settle(store, reservation, 0)
    },
  }
}

/**
 * Prepaid (a batch job, charged when queued) and free (the keyless playground): nothing is held;
 * the outcome reports `factor` times the realtime price, which the caller settles itself.
 */
function holdPaidElsewhere(ticket: LookupTicket, factor: number): Hold {
  return {
    settle: async (body, usedMc, cached) => outcome(body, Math.round(usedMc * factor), null, ticket, cached),
    release: async () => {},
  }
}

const factorOf = (billing: Billing) => (billing.mode === 'prepaid' ? billing.factor : billing.mode === 'free' ? 0 : 1)

const payerOf = (auth: AuthContext) => ({ accountId: auth.accountId, keyId: auth.keyId, keyLimitMc: auth.keyLimitMc })

/** The reply's meta made final. A new object: cached bodies are shared and never changed in place. */
function outcome<B extends LookupBody>(
  body: B,
  usedMc: number,
  balanceMc: number | null,
  ticket: LookupTicket,
  cached: CachedAnswer<B> | null,
): LookupOutcome<B> {
  const meta = {
    ...body.meta,
    request_id: ticket.requestId,
    credits_used: toCredits(usedMc),
    latency_ms: elapsed(ticket.started),
    ...(cached && { cached: true, cached_at: cached.cachedAt }),
  }
  return { body: { ...body, meta }, usedMc, balanceMc, cacheHit: cached != null, cacheKey: ticket.cacheKey }
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
