import { billedLookup, type LookupDeps, type LookupOutcome, type LookupTicket, REALTIME } from '../../billing/billed-lookup.ts'
import { deliveredSearchPriceMc, searchPriceMc } from '../../billing/prices.ts'
import { liveMeta } from '../../billing/search-meta.ts'
import { planEngines, resolveEngineName, searchNeed, searchWeb } from '../../engines/choice.ts'
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
): Promise<LookupOutcome<RankResponse>> {
  const search = searchOf(req)
  // A choice that cannot serve the request is a 400 before anything is reserved.
  planEngines(deps.engines, search.engine, searchNeed(search))
  return billedLookup(deps, auth, REALTIME, requestId, {
    endpoint: '/v1/rank',
    holdMc: searchPriceMc(req.num),
    ask: (ticket) => askRank(deps, req, search, ticket),
    // Billed for the organic results inspected, as a search of that depth would be.
    priceMc: (body) => deliveredSearchPriceMc(req.num, body.checked),
    cache: { key: req, maxAge: opts.maxAge },
  })
}

/** The web search a rank check makes. */
function searchOf(req: RankRequest): SearchRequest {
  return {
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
}

async function askRank(deps: RankDeps, req: RankRequest, search: SearchRequest, ticket: LookupTicket): Promise<RankResponse> {
  const answer = await searchWeb(deps.engines, search)
  const results = answer.page.results.slice(0, req.num)
  return {
    request: { ...req },
    domain: req.domain,
    ...rankIn(results, req.domain),
    meta: liveMeta(ticket.requestId, answer, ticket.started, results, answer.page.parse_quality),
  }
}
