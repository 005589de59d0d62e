/**
 * DuckDuckGo web search, three routes tried in this order inside one request (provider.routes.ts
 * walks them: a route refused or read as unreadable is cooled down and the next one asked):
 * `html` (html.duckduckgo.com/html/), `lite` (lite.duckduckgo.com/lite/), `djs` (the JS app's
 * shell and its d.js results script).
 *
 * html and lite: DuckDuckGo has no count parameter: page 1
 * (s=0) holds about 10 results and each "Next" page about 15 more, and a later page can only be
 * asked with the `vqd` token a page of the same query handed out (asking without one gets the
 * client blocked). So the requested window [offset, offset+num) is gathered by posting page 1,
 * then the site's own "Next" form, with its offset moved straight to the window's start when the
 * window lies further on, and following "Next" until the window is full. Each page's results are
 * placed by the offset it was asked for, so pages of different sizes line up.
 */

import type { OrganicResult, ParsedSearchPage, ParseQuality, SearchRequest } from '../engine.types.ts'
import { confirmEmpty } from '../parse/quality.ts'
import type { EngineFetch, RunRoute } from '../provider.types.ts'
import { detectDuckDuckGoBlock, detectDuckDuckGoDjsBlock } from './duckduckgo.block.ts'
import { offsetOf, parseDjs, preloadLinkOf } from './duckduckgo.djs.ts'
import { type DuckDuckGoPage, parseDuckDuckGoPage } from './duckduckgo.parse.ts'
import {
  buildDjsRequest,
  buildDuckDuckGoRequest,
  buildNextPageRequest,
  buildShellRequest,
  type DuckDuckGoEndpoint,
  type DuckDuckGoRequest,
  nextFormFromToken,
  regionOf,
  safeSearchOf,
  timeFilterOf,
} from './duckduckgo.request.ts'

/** Fetches one route may make for a search (html: page 1 plus "Next" pages; num=100 from page 1 needs 7). */
export const MAX_FETCHES = 8

// vqd tokens by User-Agent, query and settings, so a later page of a query just searched skips
// page 1. DuckDuckGo's tokens are good for a while; an hour is what SearXNG relies on. A token is
// accepted only with the User-Agent that fetched it (searxng/searxng#6658: SearXNG keys its cache
// by query and UA), so the UA is part of the key: a token is never sent by another identity.
const TOKEN_TTL_MS = 60 * 60 * 1000
const TOKEN_CACHE_MAX = 1000
const tokens = new Map<string, { vqd: string; at: number }>()

/** The User-Agent a request sends (the identity a token it fetches is bound to). */
const uaOf = (headers: Record<string, string>): string => headers['User-Agent'] ?? ''

const tokenKey = (req: SearchRequest, endpoint: DuckDuckGoEndpoint, ua: string) =>
  [endpoint, ua, req.q, regionOf(req.country, req.language), timeFilterOf(req) ?? ''].join('\u0000')

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

// d.js links by User-Agent, query and settings, by the offset `s` they start at (the djs route's
// pages). A link carries the vqd of the shell that named it, so it is bound to that shell's UA too.
const djsLinks = new Map<string, { links: Map<number, string>; at: number }>()

const djsKey = (req: SearchRequest, ua: string) =>
  ['djs', ua, req.q, regionOf(req.country, req.language), timeFilterOf(req) ?? '', safeSearchOf(req)].join('\u0000')

/** The kept d.js link starting nearest before (or at) `start`. */
function nearestDjsLink(key: string, start: number, now: number): { url: string; s: number } | undefined {
  const hit = djsLinks.get(key)
  if (!hit || now - hit.at >= TOKEN_TTL_MS) {
    djsLinks.delete(key)
    return undefined
  }
  let best: { url: string; s: number } | undefined
  for (const [s, url] of hit.links) if (s <= start && (!best || s > best.s)) best = { url, s }
  return best
}

function keepDjsLink(key: string, s: number, url: string, now: number): void {
  const hit = djsLinks.get(key)
  const links = hit && now - hit.at < TOKEN_TTL_MS ? hit.links : new Map<number, string>()
  links.set(s, url)
  djsLinks.delete(key)
  // The first link kept for a query starts its hour: links handed out later belong to it.
  djsLinks.set(key, { links, at: hit && hit.links === links ? hit.at : now })
  if (djsLinks.size > TOKEN_CACHE_MAX) djsLinks.delete(djsLinks.keys().next().value as string)
}

/** Forgets every kept vqd token and d.js link (tests). */
export function clearDuckDuckGoTokens(): void {
  tokens.clear()
  djsLinks.clear()
}

/** Route `html`: the form POST to html.duckduckgo.com/html/. */
export const duckDuckGoHtmlRoute: RunRoute = {
  route: 'html',
  run: (req, fetch) => searchEndpoint(req, fetch, 'html'),
}

/** Route `lite`: the same form posted to lite.duckduckgo.com/lite/ (another layout, read by the same parser). */
export const duckDuckGoLiteRoute: RunRoute = {
  route: 'lite',
  run: (req, fetch) => searchEndpoint(req, fetch, 'lite'),
}

/**
 * Route `djs`: the JS app's own way, which SearXNG found still answering when html.duckduckgo.com
 * shows its challenge (searx/engines/duckduckgo_web.py, PR #6192): GET the shell
 * `duckduckgo.com/?q=…`, read the d.js URL it preloads, GET that; later pages follow the `n` link
 * the last d.js entry carries (its URL is signed, so `s` cannot be set: the walk goes page by page,
 * placing each page's results at its own `s`, and links already seen for the query are kept an
 * hour so a later page starts from the nearest one).
 */
export const duckDuckGoDjsRoute: RunRoute = {
  route: 'djs',
  run: searchDjs,
}

async function searchEndpoint(req: SearchRequest, fetch: EngineFetch, endpoint: DuckDuckGoEndpoint): Promise<ParsedSearchPage> {
  const start = Math.max(0, req.offset ?? (req.page - 1) * req.num)
  const end = start + req.num
  const first = buildDuckDuckGoRequest(req, endpoint)
  const vqd = start > 0 ? cachedToken(tokenKey(req, endpoint, uaOf(first.headers)), Date.now()) : undefined

  let request: DuckDuckGoRequest = vqd ? buildNextPageRequest(req, nextFormFromToken(req, vqd, start), endpoint) : first
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
    // The JS shell or an unknown layout: 'partial' with nothing read, so the next route is asked.
    if (parsed.layout === 'js-shell' || parsed.layout === 'unknown') break
    const index = place(byIndex, seen, parsed.page.results, pageStart)
    // Kept under the UA of the request that fetched it: the only one it may be sent with.
    keepToken(tokenKey(req, endpoint, uaOf(request.headers)), parsed.next?.vqd, Date.now())
    if (!parsed.next || index >= end) break
    const nextStart = Number(parsed.next.s)
    if (!Number.isFinite(nextStart) || nextStart <= pageStart) break
    // Jump to the window's start rather than walk the pages before it.
    const jump = nextStart < start ? start : undefined
    pageStart = jump ?? nextStart
    request = buildNextPageRequest(req, parsed.next, endpoint, jump)
  }

  const page = windowOf(byIndex, start, end, qualities)
  // The instant answer belongs to the query, shown on page 1 only.
  if (start === 0 && firstPage?.page.knowledge_graph) page.knowledge_graph = firstPage.page.knowledge_graph
  return page
}

async function searchDjs(req: SearchRequest, fetch: EngineFetch): Promise<ParsedSearchPage> {
  const start = Math.max(0, req.offset ?? (req.page - 1) * req.num)
  const end = start + req.num
  const shell = buildShellRequest(req)
  const key = djsKey(req, uaOf(shell.headers))
  let fetches = 0

  let link = nearestDjsLink(key, start, Date.now())
  if (!link) {
    fetches++
    const fetched = await fetch(shell.url, shell.headers, detectDuckDuckGoBlock)
    const url = preloadLinkOf(fetched.body)
    // No d.js named: a page this parser does not know (read as unreadable, never as no results).
    if (!url) return { results: [], parse_quality: 'partial' }
    link = { url, s: offsetOf(url) ?? 0 }
    keepDjsLink(key, link.s, link.url, Date.now())
  }

  const byIndex = new Map<number, OrganicResult>()
  const seen = new Set<string>()
  const qualities: ParseQuality[] = []
  while (fetches < MAX_FETCHES) {
    fetches++
    const request = buildDjsRequest(req, link.url)
    // A kept link that no longer answers (expired, refused) is forgotten with the query's others.
    const fetched = await fetch(request.url, request.headers, detectDuckDuckGoDjsBlock).catch((err: unknown) => {
      djsLinks.delete(key)
      throw err
    })
    const parsed = parseDjs(fetched.body)
    qualities.push(parsed.page.parse_quality)
    if (!parsed.understood) {
      djsLinks.delete(key)
      break
    }
    const index = place(byIndex, seen, parsed.page.results, link.s)
    if (!parsed.next) break
    const nextStart = offsetOf(parsed.next) ?? index
    if (nextStart <= link.s) break
    keepDjsLink(key, nextStart, parsed.next, Date.now())
    if (index >= end) break
    link = { url: parsed.next, s: nextStart }
  }
  return windowOf(byIndex, start, end, qualities)
}

/** Puts a page's new results (by link) at `from`, `from+1`, …; answers the index after the last. */
function place(byIndex: Map<number, OrganicResult>, seen: Set<string>, results: OrganicResult[], from: number): number {
  let index = from
  for (const r of results) {
    if (seen.has(r.link)) continue
    seen.add(r.link)
    byIndex.set(index++, r)
  }
  return index
}

/** The results of [start, end), positioned from 1, with the quality of the pages read. */
function windowOf(byIndex: Map<number, OrganicResult>, start: number, end: number, qualities: ParseQuality[]): ParsedSearchPage {
  const results: OrganicResult[] = []
  for (let i = start; i < end; i++) {
    const r = byIndex.get(i)
    if (r) results.push({ ...r, position: results.length + 1 })
  }
  // `empty` is only ever what the pages said (qualityOf): a clean answer, not a sign of drift.
  return confirmEmpty({ results, parse_quality: qualityOf(results.length, qualities) })
}

/**
 * 'partial' when any page fetched could not be read cleanly; with no results in the window,
 * 'empty' only when the pages read said so (or had their results before the window).
 */
function qualityOf(count: number, qualities: ParseQuality[]): ParseQuality {
  if (qualities.includes('partial')) return 'partial'
  return count ? 'ok' : 'empty'
}
