import { billedLookup, elapsed, type LookupDeps, type LookupOutcome, type LookupTicket, REALTIME } from '../../billing/billed-lookup.ts'
import { toMc } from '../../billing/money.ts'
import { PRICES } from '../../billing/prices.ts'
import { planEngines, resolveEngineName, searchNeed, searchVertical, searchWeb, verticalNeed } from '../../engines/choice.ts'
import type { ImageResult, OrganicResult, SearchRequest, VerticalRequest } from '../../engines/engine.types.ts'
import type { Engines } from '../../engines/registry.ts'
import type { AuthContext } from '../../http/auth.ts'
import { type CseBody, cseImageItem, cseSearchBody, cseWebItem } from './cse.response.ts'
import type { CseParams } from './cse.schema.ts'

export interface CseDeps extends LookupDeps {
  engines: Engines
  baseUrl: string
}

/** The compatible request with Google's defaults filled in; its JSON is the cache key. */
export interface CseRequest {
  endpoint: 'customsearch'
  engine: string
  q: string // as sent; searchTerms echoes it
  query: string // what Trawl searches: q with exactTerms, excludeTerms, orTerms, hq, fileType, range folded in
  cx?: string
  num: number
  start: number
  country: string
  language: string
  safe: 'active' | 'off'
  tbs?: string
  site?: { domain: string; exclude: boolean }
  searchType?: 'image'
}

const DATE_UNITS: Record<string, string> = { d: 'd', w: 'w', m: 'm', y: 'y' }

const words = (s: string | undefined) => s?.split(/\s+/).filter(Boolean) ?? []

/** Custom Search's term parameters, written as the query operators Google web search understands. */
function termOperators(p: CseParams): string[] {
  const ops = [
    p.exactTerms ? `"${p.exactTerms.replaceAll('"', '')}"` : '',
    words(p.excludeTerms)
      .map((t) => `-${t}`)
      .join(' '),
    p.orTerms ? `(${words(p.orTerms).join(' OR ')})` : '',
    p.hq ?? '',
    p.fileType ? `filetype:${p.fileType.toLowerCase()}` : '',
    p.lowRange || p.highRange ? `${p.lowRange ?? ''}..${p.highRange ?? ''}` : '',
  ]
  return ops.filter(Boolean)
}

export function normaliseCse(p: CseParams, auth: AuthContext): CseRequest {
  const req: CseRequest = {
    endpoint: 'customsearch',
    engine: resolveEngineName(undefined, auth),
    q: p.q,
    query: [p.q, ...termOperators(p)].join(' '),
    num: p.num ?? 10,
    start: p.start ?? 1,
    country: p.gl ?? p.cr?.slice('country'.length).toLowerCase() ?? 'us',
    language: p.hl ?? p.lr?.slice('lang_'.length) ?? 'en',
    safe: p.safe && p.safe !== 'off' ? 'active' : 'off',
  }
  if (p.cx) req.cx = p.cx
  if (p.dateRestrict) {
    const unit = DATE_UNITS[p.dateRestrict[0] ?? '']
    const count = p.dateRestrict.slice(1)
    req.tbs = `qdr:${unit}${count && count !== '1' ? count : ''}`
  }
  if (p.siteSearch) {
    const domain = p.siteSearch
      .toLowerCase()
      .replace(/^https?:\/\//, '')
      .replace(/^www\./, '')
      .replace(/\/+$/, '')
    req.site = { domain, exclude: p.siteSearchFilter === 'e' }
  }
  if (p.searchType) req.searchType = p.searchType
  return req
}

/** 1 credit per page of up to 10 results, free when nothing came back. Custom Search has no max_age: nothing is cached. */
export async function runCse(deps: CseDeps, auth: AuthContext, req: CseRequest, requestId: string): Promise<LookupOutcome<CseBody>> {
  const search = req.searchType === 'image' ? imagesOf(req) : searchOf(req)
  // A choice that cannot serve the request is a 400 before anything is reserved.
  planEngines(deps.engines, req.engine, search.endpoint === 'search' ? searchNeed(search) : verticalNeed(search))
  return billedLookup(deps, auth, REALTIME, requestId, {
    endpoint: '/customsearch/v1',
    holdMc: toMc(PRICES.page),
    ask: (ticket) => askCse(deps, req, search, ticket),
    priceMc: (body) => (body.items?.length ? toMc(PRICES.page) : 0),
  })
}

async function askCse(deps: CseDeps, req: CseRequest, search: SearchRequest | VerticalRequest, ticket: LookupTicket): Promise<CseBody> {
  const found = search.endpoint === 'search' ? await webItems(deps, req, search) : await imageItems(deps, req, search)
  const page = cseSearchBody(req, deps.baseUrl, found.items, found.totalResults, (performance.now() - ticket.started) / 1000)
  return { ...page, meta: { request_id: ticket.requestId, engine: found.engine, route: found.route, latency_ms: elapsed(ticket.started) } }
}

/** The web search a Custom Search call makes. */
const searchOf = (req: CseRequest): SearchRequest => ({ endpoint: 'search', ...asked(req), page: 1, offset: req.start - 1, device: 'desktop' })

/** searchType=image: image pages hold 10 results each here, so `start` picks the page (and imageItems the offset inside it). */
const imagesOf = (req: CseRequest): VerticalRequest => ({ endpoint: 'images', ...asked(req), page: Math.floor((req.start - 1) / 10) + 1 })

/** What both searches ask: the query with its operators folded in, its filters, one page of 10. */
function asked(req: CseRequest) {
  const site = req.site && (req.site.exclude ? { exclude_domains: [req.site.domain] } : { include_domains: [req.site.domain] })
  return {
    engine: req.engine,
    q: req.query,
    country: req.country,
    language: req.language,
    num: 10 as const,
    safe: req.safe,
    ...(req.tbs && { tbs: req.tbs }),
    ...site,
  }
}

async function webItems(deps: CseDeps, req: CseRequest, search: SearchRequest) {
  const answer = await searchWeb(deps.engines, search)
  const results: OrganicResult[] = answer.page.results.slice(0, req.num)
  return {
    items: results.map((r) => cseWebItem(r, req.q)),
    totalResults: answer.page.total_results ?? req.start - 1 + results.length,
    engine: answer.engine,
    route: answer.attempts,
  }
}

async function imageItems(deps: CseDeps, req: CseRequest, images: VerticalRequest) {
  const offset = req.start - 1
  const answer = await searchVertical(deps.engines, images)
  const results = (answer.page.results as ImageResult[]).slice(offset % 10, (offset % 10) + req.num)
  return {
    items: results.map((r) => cseImageItem(r, req.q)),
    totalResults: answer.page.total_results ?? offset + results.length,
    engine: answer.engine,
    route: answer.attempts,
  }
}
