import { elapsed, holdCredits, type LookupDeps, type LookupOutcome, lookupTicket, REALTIME } from '../../billing/billed-lookup.ts'
import { toMc } from '../../billing/money.ts'
import { PRICES } from '../../billing/prices.ts'
import { resolveEngineName, searchVertical, searchWeb } from '../../engines/choice.ts'
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
  const ticket = lookupTicket('/customsearch/v1', req, requestId)
  const hold = await holdCredits(deps, auth, REALTIME, ticket, toMc(PRICES.page))
  let body: CseBody
  try {
    const found = req.searchType === 'image' ? await imageItems(deps, req) : await webItems(deps, req)
    const page = cseSearchBody(req, deps.baseUrl, found.items, found.totalResults, (performance.now() - ticket.started) / 1000)
    body = { ...page, meta: { request_id: requestId, engine: found.engine, route: found.route, latency_ms: elapsed(ticket.started) } }
  } catch (err) {
    await hold.release()
    throw err
  }
  return hold.settle(body, body.items?.length ? toMc(PRICES.page) : 0, null)
}

async function webItems(deps: CseDeps, req: CseRequest) {
  const search: SearchRequest = {
    endpoint: 'search',
    engine: req.engine,
    q: req.query,
    country: req.country,
    language: req.language,
    num: 10,
    page: 1,
    offset: req.start - 1,
    safe: req.safe,
    device: 'desktop',
    ...(req.tbs && { tbs: req.tbs }),
    ...(req.site && (req.site.exclude ? { exclude_domains: [req.site.domain] } : { include_domains: [req.site.domain] })),
  }
  const answer = await searchWeb(deps.engines, search)
  const results: OrganicResult[] = answer.page.results.slice(0, req.num)
  return {
    items: results.map((r) => cseWebItem(r, req.q)),
    totalResults: answer.page.total_results ?? req.start - 1 + results.length,
    engine: answer.engine,
    route: answer.attempts,
  }
}

/** Image pages hold 10 results each here; `start` picks the page and the offset inside it. */
async function imageItems(deps: CseDeps, req: CseRequest) {
  const offset = req.start - 1
  const images: VerticalRequest = {
    endpoint: 'images',
    engine: req.engine,
    q: req.query,
    country: req.country,
    language: req.language,
    num: 10,
    page: Math.floor(offset / 10) + 1,
    safe: req.safe,
    ...(req.tbs && { tbs: req.tbs }),
    ...(req.site && (req.site.exclude ? { exclude_domains: [req.site.domain] } : { include_domains: [req.site.domain] })),
  }
  const answer = await searchVertical(deps.engines, images)
  const results = (answer.page.results as ImageResult[]).slice(offset % 10, (offset % 10) + req.num)
  return {
    items: results.map((r) => cseImageItem(r, req.q)),
    totalResults: answer.page.total_results ?? offset + results.length,
    engine: answer.engine,
    route: answer.attempts,
  }
}
