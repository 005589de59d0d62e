/**
 * DuckDuckGo web search over the no-JS html endpoint. DuckDuckGo has no count parameter: page 1
 * (s=0) holds about 10 results and each "Next" page about 15 more, and a later page can only be
 * asked with the `vqd` token a page of the same query handed out (asking without one gets the
 * client blocked). So the requested window [offset, offset+num) is gathered by posting page 1,
 * then the site's own "Next" form, with its offset moved straight to the window's start when the
 * window lies further on, and following "Next" until the window is full. Each page's results are
 * placed by the offset it was asked for, so pages of different sizes line up.
 */
import type { EngineFetch, EngineWebSearch } from '../engine.ts'
import type { OrganicResult, ParsedSearchPage, ParseQuality, SearchRequest } from '../engine.types.ts'
import { detectDuckDuckGoBlock } from './duckduckgo.block.ts'
import { type DuckDuckGoPage, parseDuckDuckGoPage } from './duckduckgo.parse.ts'
import {
  buildDuckDuckGoRequest,
  buildNextPageRequest,
  type DuckDuckGoEndpoint,
  type DuckDuckGoRequest,
  nextFormFromToken,
  regionOf,
  timeFilterOf,
} from './duckduckgo.request.ts'

/** Fetches one search may make (page 1 plus "Next" pages): num=100 from page 1 needs 7. */
export const MAX_FETCHES = 8

// vqd tokens by query and settings, so a later page of a query just searched skips page 1.
// DuckDuckGo's tokens are good for a while; an hour is what SearXNG relies on.
const TOKEN_TTL_MS = 60 * 60 * 1000
const TOKEN_CACHE_MAX = 1000
const tokens = new Map<string, { vqd: string; at: number }>()

const tokenKey = (req: SearchRequest, endpoint: DuckDuckGoEndpoint) =>
  [endpoint, req.q, regionOf(req.country, req.language), timeFilterOf(req) ?? ''].join('\u0000')

function cachedToken(key: string, now: number): string | undefined {
  const hit = tokens.get(key)
  if (hit && now - hit.at < TOKEN_TTL_MS) return hit.vqd
  tokens.delete(key)
  return undefined
}

function keepToken(key: string, vqd: string | undefined, now: number): void {
  if (!vqd) return
  tokens.delete(key)
  tokens.set(key, { vqd, at: now })
  if (tokens.size > TOKEN_CACHE_MAX) tokens.delete(tokens.keys().next().value as string)
}

/** Forgets every kept vqd token (tests). */
export function clearDuckDuckGoTokens(): void {
  tokens.clear()
}

export const duckDuckGoSearch: EngineWebSearch = {
  async run(req, fetch) {
    const first = await searchEndpoint(req, fetch, 'html')
    // An html page we cannot read at all (a layout change, the JS shell) gets one try on lite.
    if (first.unreadable) return (await searchEndpoint(req, fetch, 'lite')).page
    return first.page
  },
}

interface Outcome {
  page: ParsedSearchPage
  /** The first page came back in no layout this parser knows. */
  unreadable: boolean
}

async function searchEndpoint(req: SearchRequest, fetch: EngineFetch, endpoint: DuckDuckGoEndpoint): Promise<Outcome> {
  const start = Math.max(0, req.offset ?? (req.page - 1) * req.num)
  const end = start + req.num
  const key = tokenKey(req, endpoint)
  const vqd = start > 0 ? cachedToken(key, Date.now()) : undefined

  let request: DuckDuckGoRequest = vqd ? buildNextPageRequest(req, nextFormFromToken(req, vqd, start), endpoint) : buildDuckDuckGoRequest(req, endpoint)
  let pageStart = vqd ? start : 0
  const byIndex = new Map<number, OrganicResult>()
  const seen = new Set<string>()
  const qualities: ParseQuality[] = []
  let firstPage: DuckDuckGoPage | undefined

  for (let fetches = 0; fetches < MAX_FETCHES; fetches++) {
    const fetched = await fetch(request.url, request.headers, detectDuckDuckGoBlock, request.form)
    const parsed = parseDuckDuckGoPage(fetched.body)
    firstPage ??= parsed
    qualities.push(parsed.page.parse_quality)
    if (parsed.layout === 'js-shell' || parsed.layout === 'unknown') break
    let index = pageStart
    for (const r of parsed.page.results) {
      if (seen.has(r.link)) continue
      seen.add(r.link)
      byIndex.set(index++, r)
    }
    keepToken(key, parsed.next?.vqd, Date.now())
    if (!parsed.next || index >= end) break
    const nextStart = Number(parsed.next.s)
    if (!Number.isFinite(nextStart) || nextStart <= pageStart) break
    // Jump to the window's start rather than walk the pages before it.
    const jump = nextStart < start ? start : undefined
    pageStart = jump ?? nextStart
    request = buildNextPageRequest(req, parsed.next, endpoint, jump)
  }

  const results: OrganicResult[] = []
  for (let i = start; i < end; i++) {
    const r = byIndex.get(i)
    if (r) results.push({ ...r, position: results.length + 1 })
  }
  const page: ParsedSearchPage = { results, parse_quality: qualityOf(results.length, qualities) }
  // The instant answer belongs to the query, shown on page 1 only.
  if (start === 0 && firstPage?.page.knowledge_graph) page.knowledge_graph = firstPage.page.knowledge_graph
  const unreadable = !!firstPage && (firstPage.layout === 'unknown' || firstPage.layout === 'js-shell')
  return { page, unreadable }
}

/**
 * 'partial' when any page fetched could not be read cleanly; with no results in the window,
 * 'empty' only when the pages read said so (or had their results before the window).
 */
function qualityOf(count: number, qualities: ParseQuality[]): ParseQuality {
  if (qualities.includes('partial')) return 'partial'
  return count ? 'ok' : 'empty'
}
