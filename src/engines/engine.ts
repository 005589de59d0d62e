import type { ParsedSearchPage, SearchRequest, VerticalEndpoint, VerticalPage, VerticalRequest } from './engine.types.ts'
import type { BlockDetector, RouteAttempt } from './upstream/upstream.types.ts'

/** Every provider Trawl can ask (CONTRACT §3c): the primary first. */
export const ENGINE_NAMES = ['google', 'bing', 'duckduckgo', 'brave', 'mojeek', 'startpage', 'wikipedia'] as const
export type EngineName = (typeof ENGINE_NAMES)[number]

/** What a provider can be asked for: web search or one of the other verticals. */
export type EngineVerticalName = 'search' | VerticalEndpoint

/**
 * Optional request parameters a provider honours. A request that sets one (to a value other than
 * its default) on a provider without it is a 400 naming the providers that take it, never a
 * parameter silently dropped. `q`, `num`, `page`, `country` and `language` are taken by all.
 */
export type EngineParam = 'location' | 'uule' | 'll' | 'time' | 'tbs' | 'safe' | 'device' | 'autocorrect' | 'ads' | 'include_domains'

export interface EngineCapabilities {
  verticals: readonly EngineVerticalName[]
  params: readonly EngineParam[]
  /**
   * Whether the engine's query language has `site:` (include_domains / exclude_domains are then
   * compiled into the query too; they are always enforced on the results).
   */
  siteOperator: boolean
}

/**
 * Fetches one engine URL through the upstream client (proxy pools, failover, block detection).
 * With `form`, the request is a POST of that form (application/x-www-form-urlencoded).
 * Throws an ApiError (upstream_blocked / upstream_timeout / upstream_error) when every route fails.
 */
export type EngineFetch = (
  url: string,
  headers: Record<string, string>,
  detectBlock?: BlockDetector,
  form?: Record<string, string>,
) => Promise<{ status: number; url: string; body: string }>

/**
 * One vertical of one engine: all of that engine's knowledge for the vertical (URL building,
 * parsing, block detection) sits behind `run`, so a layout change is a fix in one folder. Most
 * verticals fetch once and parse; some fetch a token first (DuckDuckGo's vqd), reviews pages
 * through a cursor. Results carry positions from 1 on the page; paging offsets and domain
 * filters are applied by the engine layer (provider.engine.ts), not here.
 */
export interface EngineVertical<T, R = VerticalRequest> {
  run(req: R, fetch: EngineFetch): Promise<VerticalAnswer<T>>
  /** Refuses a request the engine can tell is bad before any work (a page_token minted for another place). */
  validate?(req: R): void
}

/** A parsed vertical page plus the vertical's extra top-level keys (reviews: next_page_token). */
export type VerticalAnswer<T> = VerticalPage<T> & { extras?: Record<string, unknown> }

/** Web search of one provider: same contract as a vertical, answering a ParsedSearchPage. */
export interface EngineWebSearch {
  run(req: SearchRequest, fetch: EngineFetch): Promise<ParsedSearchPage>
}

/**
 * A provider: its capability row, its web search, its other verticals, and the block detector
 * used for every fetch that does not bring its own. This is all the rest of the code knows of it.
 */
export interface Provider {
  name: EngineName
  capabilities: EngineCapabilities
  search: EngineWebSearch
  verticals: Partial<Record<VerticalEndpoint, EngineVertical<unknown>>>
  detectBlock: BlockDetector
}

/** A provider bound to the upstream client: what search, verticals, rank and customsearch call. */
export interface SearchEngine {
  name: EngineName
  capabilities: EngineCapabilities
  search(req: SearchRequest, signal?: AbortSignal): Promise<EngineAnswer<ParsedSearchPage>>
  /** The engine's other verticals; undefined for one it does not offer. */
  vertical?(req: VerticalRequest): Promise<EngineAnswer<VerticalAnswer<unknown>>> | undefined
  /** Throws invalid_request for a request `vertical` would refuse, so it fails before credits are reserved. */
  validateVertical?(req: VerticalRequest): void
}

export interface EngineAnswer<P> {
  page: P
  attempts: RouteAttempt[]
}
