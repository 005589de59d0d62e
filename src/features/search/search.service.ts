import { type Billing, billedLookup, type Enrichment, type LookupOutcome, type LookupTicket, REALTIME } from '../../billing/billed-lookup.ts'
import { deliveredSearchPriceMc, searchPriceMc } from '../../billing/prices.ts'
import { liveMeta } from '../../billing/search-meta.ts'
import { planEngines, resolveEngineName, searchConsensus, searchNeed, searchWeb } from '../../engines/choice.ts'
import { mergeByUrl } from '../../engines/consensus.merge.ts'
import type { OrganicResult, SearchRequest } from '../../engines/engine.types.ts'
import type { Engines } from '../../engines/registry.ts'
import type { AuthContext } from '../../http/auth.ts'
import { countryFromLocation } from '../../params/search.params.ts'
import { type PageReadDeps, pagePriceMc } from '../../reader/page-read.ts'
import type { Store } from '../../store/database.ts'
import type { Built, SearchResponse } from './search.response.ts'
import type { SearchParams } from './search.schema.ts'
import { attachContent } from './search-content.service.ts'

/** What runSearch answers. */
export type SearchBody = Built<SearchResponse>

/** The page-reading deps (cache, log, cacheTtlMs, config) serve include_content too. */
export interface SearchDeps extends PageReadDeps {
  store: Store
  engines: Engines
}

export interface SearchOptions {
  maxAge?: number
  /** Read the top N results' pages too (+1 credit each). */
  includeContent?: number
  /** Another feature's billed work on the search answer (POST /v1/context), instead of include_content. */
  enrich?: Enrichment<SearchBody>
  /** Ledger label; default /v1/search. */
  endpoint?: string
}

/** Fills defaults and folds aliases so equal requests share one cache entry and `request` echoes them. */
export function normaliseSearch(p: SearchParams, auth: AuthContext): SearchRequest {
  const engine = resolveEngineName(p.engine, auth, { consensus: true })
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
 * /v1/search: cache (only with max_age), hold, ask the engine(s), read result pages when asked,
 * settle: the price of the depth delivered, nothing on empty pages or failures, and one credit per
 * result page actually read.
 */
export async function runSearch(
  deps: SearchDeps,
  auth: AuthContext,
  req: SearchRequest,
  opts: SearchOptions,
  requestId: string,
  /** Batch jobs pass prepaid: charged when queued, settled by the job. */
  billing: Billing = REALTIME,
): Promise<LookupOutcome<SearchBody>> {
  // A choice that cannot serve the request is a 400 before anything is reserved.
  const planned = planEngines(deps.engines, req.engine, searchNeed(req))
  const consensus = req.engine === 'consensus'
  return billedLookup(deps, auth, billing, requestId, {
    endpoint: opts.endpoint ?? '/v1/search',
    // consensus bills one page per provider that returned results, so one is held per provider asked.
    holdMc: searchPriceMc(req.num) * (consensus ? planned.length : 1),
    ask: (ticket) => (consensus ? askConsensusSearch(deps, req, ticket) : askSearch(deps, req, ticket)),
    priceMc: (body) => (consensus ? consensusPriceMc(req.num, body) : deliveredSearchPriceMc(req.num, body.results.length)),
    cache: { key: req, maxAge: opts.maxAge },
    enrich: opts.enrich ?? includeContent(deps, req, opts),
  })
}

/** include_content: the top N results' pages read as Markdown, one credit each (half from the page cache). */
function includeContent(deps: SearchDeps, req: SearchRequest, opts: SearchOptions): Enrichment<SearchBody> | undefined {
  const count = Math.min(opts.includeContent ?? 0, req.num)
  if (count <= 0) return undefined
  return {
    reserveMc: count * pagePriceMc(false),
    async run(body) {
      const copy = structuredClone(body)
      const usedMc = await attachContent(deps, copy.results as OrganicResult[], count, opts.maxAge)
      return { body: copy, usedMc }
    },
  }
}

async function askSearch(deps: SearchDeps, req: SearchRequest, ticket: LookupTicket): Promise<SearchBody> {
  const answer = await searchWeb(deps.engines, req)
  // Engines may print more than asked (Google often ignores num); the caller paid for `num`.
  const results = answer.page.results.slice(0, req.num)
  const { parse_quality, total_results: _total, results: _all, saysNoResults: _internal, ...sections } = answer.page
  return {
    request: { ...req },
    results,
    ...sections,
    meta: liveMeta(ticket.requestId, answer, ticket.started, results, parse_quality),
  }
}

/**
 * engine=consensus: the providers asked in parallel under one deadline, their organic results
 * merged by canonical URL (mergeByUrl). The feature blocks (answer box, knowledge graph, …) come
 * from the first provider in table order that has them. `meta.engine` names every provider that
 * answered, `meta.providers` each one's result count (what is billed).
 */
async function askConsensusSearch(deps: SearchDeps, req: SearchRequest, ticket: LookupTicket): Promise<SearchBody> {
  const { answers, attempts } = await searchConsensus(deps.engines, req)
  const results = mergeByUrl(answers.map((a) => ({ engine: a.engine, results: a.page.results.slice(0, req.num) }))).slice(0, req.num)
  const sections: Partial<SearchBody> = {}
  for (const key of SECTION_KEYS) {
    const from = answers.find((a) => a.page[key] !== undefined && !(Array.isArray(a.page[key]) && a.page[key].length === 0))
    if (from) Object.assign(sections, { [key]: from.page[key] })
  }
  const quality = answers.some((a) => a.page.parse_quality === 'partial') ? 'partial' : 'ok'
  const engine = answers.map((a) => a.engine).join(',') || 'consensus'
  const meta = liveMeta(ticket.requestId, { engine, attempts }, ticket.started, results, quality)
  return {
    request: { ...req },
    results,
    ...sections,
    meta: { ...meta, providers: Object.fromEntries(answers.map((a) => [a.engine, Math.min(a.page.results.length, req.num)])) },
  }
}

const SECTION_KEYS = ['people_also_ask', 'related_searches', 'knowledge_graph', 'answer_box', 'top_stories', 'places', 'ads'] as const

/** The sum of one page of depth `num` per provider that returned results. */
function consensusPriceMc(num: number, body: SearchBody): number {
  if (body.results.length === 0) return 0
  const counts = Object.values(body.meta.providers ?? {})
  return counts.reduce((sum, n) => sum + deliveredSearchPriceMc(num, n), 0)
}
