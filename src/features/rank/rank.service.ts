import {
  cacheAnswer,
  holdCredits,
  type LookupBody,
  type LookupDeps,
  type LookupOutcome,
  liveMeta,
  lookupTicket,
  payForCached,
  REALTIME,
  readCachedAnswer,
} from '../../billing/billed-lookup.ts'
import { deliveredSearchPriceMc, searchPriceMc } from '../../billing/prices.ts'
import { resolveEngineName, searchWeb } from '../../engines/choice.ts'
import type { OrganicResult, SearchRequest } from '../../engines/engine.types.ts'
import type { Engines } from '../../engines/registry.ts'
import type { AuthContext } from '../../http/auth.ts'
import { countryFromLocation } from '../../params/search.params.ts'
import type { RankParams, RankResponse } from './rank.schema.ts'

export interface RankDeps extends LookupDeps {
  engines: Engines
}

export interface RankRequest {
  endpoint: 'rank'
  engine: string
  q: string
  domain: string
  country: string
  language: string
  location?: string
  num: 10 | 20 | 30 | 50 | 100
  device: 'desktop' | 'mobile'
}

/**
 * The /v1/rank body (RankResponse), its `request` typed as the normalised request it echoes and its
 * `meta` the record every billed lookup builds (billed-lookup.ts).
 */
export type RankBody = Omit<RankResponse, 'request' | 'meta'> & { request: RankRequest; meta: LookupBody['meta'] }

export function normaliseRank(p: RankParams, auth: AuthContext): RankRequest {
  const req: RankRequest = {
    endpoint: 'rank',
    engine: resolveEngineName(undefined, auth),
    q: p.q,
    domain: p.domain,
    country: p.country ?? (p.location ? countryFromLocation(p.location) : undefined) ?? 'us',
    language: p.language ?? 'en',
    num: p.num ?? 100,
    device: p.device ?? 'desktop',
  }
  if (p.location) req.location = p.location
  return req
}

/** True when `link`'s host is `domain` or one of its subdomains. */
export function onDomain(link: string, domain: string): boolean {
  let host: string
  try {
    host = new URL(link).hostname.toLowerCase().replace(/\.$/, '')
  } catch {
    return false
  }
  return host === domain || host.endsWith(`.${domain}`)
}

export function rankIn(results: readonly OrganicResult[], domain: string) {
  const matches = results.filter((r) => onDomain(r.link, domain)).map((r) => ({ position: r.position, title: r.title, link: r.link }))
  return { position: matches[0]?.position ?? null, matches, checked: results.length }
}

/** POST /v1/rank: one web search of depth `num`, priced like that search (7 for the top 100). */
export async function runRank(
  deps: RankDeps,
  auth: AuthContext,
  req: RankRequest,
  opts: { maxAge?: number },
  requestId: string,
): Promise<LookupOutcome<RankBody>> {
  const ticket = lookupTicket('/v1/rank', req, requestId)
  // Billed for the organic results inspected, as a search of that depth would be.
  const deliveredMc = (body: RankBody) => deliveredSearchPriceMc(req.num, body.checked)

  const cached = await readCachedAnswer<RankBody>(deps, ticket, opts.maxAge)
  if (cached) return payForCached(deps, auth, REALTIME, ticket, cached, deliveredMc(cached.body))
  const hold = await holdCredits(deps, auth, REALTIME, ticket, searchPriceMc(req.num))
  let body: RankBody
  try {
    body = await askRank(deps, req, ticket.requestId, ticket.started)
    if (deliveredMc(body) > 0) await cacheAnswer(deps, ticket, body)
  } catch (err) {
    await hold.release()
    throw err
  }
  return hold.settle(body, deliveredMc(body), null)
}

async function askRank(deps: RankDeps, req: RankRequest, requestId: string, started: number): Promise<RankBody> {
  const search: SearchRequest = {
    endpoint: 'search',
    engine: req.engine,
    q: req.q,
    country: req.country,
    language: req.language,
    num: req.num,
    page: 1,
    safe: 'off',
    device: req.device,
    ...(req.location && { location: req.location }),
  }
  const answer = await searchWeb(deps.engines, search)
  const results = answer.page.results.slice(0, req.num)
  return {
    request: req,
    domain: req.domain,
    ...rankIn(results, req.domain),
    meta: liveMeta(requestId, answer, started, results, answer.page.parse_quality),
  }
}
