import { createHash } from 'node:crypto'
import type { ResponseCache } from '../cache/response-cache.ts'
import type { AuthContext } from '../http/auth.ts'
import type { Store } from '../store/database.ts'
import { charge, payerOf, reserve, settle } from './credits.ts'
import { toCredits } from './money.ts'
import { cacheHitPriceMc } from './prices.ts'

/** The reply of a paid endpoint: a meta record beside what was found, finished here (request_id, credits_used, latency_ms). */
export interface LookupBody {
  meta: object
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
  /** The cache entry's key, on lookups that keep answers: a replayed body's tokens are counted once per entry. */
  cacheKey?: string
}

/** The request id and the clock of one lookup, as its ask sees them. */
export interface LookupTicket {
  requestId: string
  started: number
}

/**
 * Billed work on top of a non-empty answer (the result pages of include_content, or what POST
 * /v1/context reads): held with the lookup, it returns the body with its additions and what they
 * earned. What it adds is never part of the cached body.
 */
export interface Enrichment<B> {
  reserveMc: number
  run(body: B, fromCache: boolean): Promise<{ body: B; usedMc: number }>
}

/** What a paid endpoint brings to its billed lookup: the steps around it are the same for every one. */
export interface Lookup<B extends LookupBody> {
  /** Ledger label: the endpoint's path. */
  endpoint: string
  /** Held before any upstream work: the most the call can cost at the realtime price. */
  holdMc: number
  /** The upstream work. Whatever it throws, the hold is returned in full. */
  ask(ticket: LookupTicket): Promise<B>
  /** What a delivered answer costs at the realtime price; an answer priced 0 is never cached. */
  priceMc(body: B): number
  /**
   * Endpoints with max_age keep their answers under the normalised request (`key`: equal requests
   * share one entry) and sell them again, up to `maxAge` seconds old, at half price.
   */
  cache?: { key: object; maxAge: number | undefined }
  enrich?: Enrichment<B>
}

/**
 * The billed call every paid endpoint makes, with what differs in `lookup`. A cached answer with
 * nothing to add is sold without a hold (the work is done); otherwise credits are held, the answer
 * asked (or replayed and enriched), kept for later replays, and the hold settled on what was
 * delivered. Leaving before the settle, by any error, returns the whole hold (`await using`).
 */
export async function billedLookup<B extends LookupBody>(
  deps: LookupDeps,
  auth: AuthContext,
  billing: Billing,
  requestId: string,
  lookup: Lookup<B>,
): Promise<LookupOutcome<B>> {
  const ticket: Ticket = { endpoint: lookup.endpoint, requestId, started: performance.now(), cacheKey: lookup.cache && lookupCacheKey(lookup.cache.key) }
  const cached = await readCachedAnswer<B>(deps, ticket, lookup.cache?.maxAge)
  if (cached && !lookup.enrich) return payForCached(deps, auth, billing, ticket, cached, lookup.priceMc(cached.body))
  await using hold = await holdCredits(deps, auth, billing, ticket, priceAsServed(lookup.holdMc, cached) + (lookup.enrich?.reserveMc ?? 0))
  let body = cached?.body ?? (await lookup.ask(ticket))
  const liveMc = lookup.priceMc(body)
  if (!cached && liveMc > 0) await cacheAnswer(deps, ticket, body)
  let usedMc = priceAsServed(liveMc, cached)
  if (lookup.enrich && liveMc > 0) {
    const enriched = await lookup.enrich.run(body, cached != null)
    body = enriched.body
    usedMc += enriched.usedMc
  }
  // Awaited here, inside the hold's scope: it is disposed of only once settled.
  return await hold.settle(body, usedMc, cached)
}

/** One lookup's paperwork: the ledger label and, for endpoints that keep answers, the cache key. */
interface Ticket extends LookupTicket {
  endpoint: string
  cacheKey: string | undefined
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

/** An answer stored by an earlier lookup, accepted up to `max_age` seconds old at half price. */
interface CachedAnswer<B> {
  body: B
  cachedAt: string
}

/** The cached answer to this request when the caller allows one (`maxAge`) and it is young enough. */
async function readCachedAnswer<B>(deps: LookupDeps, ticket: Ticket, maxAge: number | undefined): Promise<CachedAnswer<B> | null> {
  if (!maxAge || !ticket.cacheKey) return null
  const hit = await deps.cache.get<B>(ticket.cacheKey).catch((err) => {
    deps.log.warn({ err }, 'cache read failed; looking up live')
    return null
  })
  if (!hit || Date.now() - hit.storedAt > maxAge * 1000) return null
  return { body: hit.value, cachedAt: new Date(hit.storedAt).toISOString() }
}

/** Keeps a non-empty live answer for later max_age replays; a failed write costs the caller nothing. */
async function cacheAnswer(deps: LookupDeps, ticket: Ticket, body: object): Promise<void> {
  if (!ticket.cacheKey) return
  await deps.cache.set(ticket.cacheKey, body, deps.cacheTtlMs).catch((err) => deps.log.warn({ err }, 'cache write failed'))
}

/** What an answer costs: its live price, or half of it when it came from the cache. */
const priceAsServed = (liveMc: number, cached: CachedAnswer<unknown> | null) => (cached ? cacheHitPriceMc(liveMc) : liveMc)

/**
 * A cached answer sold again with nothing to add: work already done, so nothing is held. Realtime
 * billing takes it in one transaction; prepaid and free billing only report the price.
 */
async function payForCached<B extends LookupBody>(
  deps: LookupDeps,
  auth: AuthContext,
  billing: Billing,
  ticket: Ticket,
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
 * what was delivered and returns the rest; disposed of unsettled (a failure), it returns everything.
 */
interface Hold extends AsyncDisposable {
  settle<B extends LookupBody>(body: B, usedMc: number, cached: CachedAnswer<B> | null): Promise<LookupOutcome<B>>
}

/** Holds `amountMc` before any upstream work, as the kind of billing asks. */
function holdCredits(deps: LookupDeps, auth: AuthContext, billing: Billing, ticket: Ticket, amountMc: number): Promise<Hold> {
  return billing.mode === 'realtime' ? holdRealtime(deps.store, auth, ticket, amountMc) : Promise.resolve(holdPaidElsewhere(ticket, factorOf(billing)))
}

/** Realtime: a reservation now (402 when the credits are not there), settled on what was delivered. */
async function holdRealtime(store: Store, auth: AuthContext, ticket: Ticket, amountMc: number): Promise<Hold> {
  const reservation = await reserve(store, payerOf(auth), amountMc, ticket.requestId, ticket.endpoint)
  let settled = false
  return {
    async settle(body, usedMc, cached) {
      const balanceMc = await settle(store, reservation, usedMc)
      settled = true
      return outcome(body, usedMc, balanceMc, ticket, cached)
    },
    // A settle that failed leaves the reservation in place: the caller got no answer, so it is all returned.
    async [Symbol.asyncDispose]() {
      if (!settled) await settle(store, reservation, 0)
    },
  }
}

/**
 * Prepaid (a batch job, charged when queued) and free (the keyless playground): nothing is held;
 * the outcome reports `factor` times the realtime price, which the caller settles itself.
 */
function holdPaidElsewhere(ticket: Ticket, factor: number): Hold {
  return {
    settle: async (body, usedMc, cached) => outcome(body, Math.round(usedMc * factor), null, ticket, cached),
    [Symbol.asyncDispose]: async () => {},
  }
}

const factorOf = (billing: Billing) => (billing.mode === 'prepaid' ? billing.factor : billing.mode === 'free' ? 0 : 1)

/** The reply's meta made final. A new object: cached bodies are shared and never changed in place. */
function outcome<B extends LookupBody>(body: B, usedMc: number, balanceMc: number | null, ticket: Ticket, cached: CachedAnswer<B> | null): LookupOutcome<B> {
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
