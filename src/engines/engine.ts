import type { ParsedSearchPage, SearchRequest, VerticalEndpoint, VerticalPage, VerticalRequest } from './engine.types.ts'
import type { EngineGate } from './gates/gate.types.ts'
import type { EngineName } from './registry.ts'
import type { BlockDetector, RouteAttempt } from './upstream/upstream.types.ts'

/** A provider's name: a key of the capability table (registry.ts), the one place names are listed. */
export type { EngineName }

/** What a provider can be asked for: web search or one of the other verticals. */
export type EngineVerticalName = 'search' | VerticalEndpoint

/**
 * Optional request parameters a provider honours. A request that sets one (to a value other than
 * its default) on a provider without it is a 400 naming the providers that take it, never a
 * parameter silently dropped. `q`, `num`, `country` and `language` are taken by all; `page` means
 * a page after the first (or an offset), which an engine that serves page 1 again cannot honour.
 */
export type EngineParam = 'page' | 'location' | 'uule' | 'll' | 'time' | 'tbs' | 'safe' | 'device' | 'autocorrect' | 'ads' | 'include_domains'

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
 * With `form`, the request is a POST of that form (application/x-www-form-urlencoded); with
 * `how.render`, the browser draws the page instead.
 * Throws an ApiError (upstream_blocked / upstream_timeout / upstream_error) when every route fails.
 */
export type EngineFetch = (
  url: string,
  headers: Record<string, string>,
  detectBlock?: BlockDetector,
  form?: Record<string, string>,
  /** `render`: the page drawn by the browser, its scripts run (a provider's `browser` route). */
  how?: { render?: boolean },
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

/**
 * Web search of one provider, or one route of it: same contract as a vertical, answering a
 * ParsedSearchPage. A route is one way of getting the same results (Google's feature-phone page,
 * the page drawn by a browser, an official API); a provider lists its routes in the order to try
 * them, and the engine layer walks them inside one request (provider.engine.ts).
 */
export interface EngineWebSearch {
  /** The route's name in `meta.route`, health and `trawl engines check`; `web` when unnamed. */
  route?: string
  /**
   * The optional parameters this route honours, when it honours fewer than its provider: a request
   * that sets another one passes the route over. Every provider parameter is taken by some route.
   */
  params?: readonly EngineParam[]
  /** Why the route cannot be used in this deployment (no browser, no API key), or null when it can. */
  unavailable?: () => string | null
  run(req: SearchRequest, fetch: EngineFetch): Promise<ParsedSearchPage>
}

/**
 * A provider: its capability row, its web search, its other verticals, and the block detector
 * used for every fetch that does not bring its own. This is all the rest of the code knows of it.
 */
export interface Provider {
  name: EngineName
  capabilities: EngineCapabilities
  /** Web search: its first route. */
  search: EngineWebSearch
  /** More routes of web search, in the order they are tried after `search`. */
  fallbackRoutes?: readonly EngineWebSearch[]
  verticals: Partial<Record<VerticalEndpoint, EngineVertical<unknown>>>
  detectBlock: BlockDetector
  /**
   * The proof-of-work gate the engine puts in front of non-browser clients (gates/), solved by the
   * upstream client on any of the provider's fetches whose answer carries its challenge.
   */
  gate?: EngineGate
}

/** How one request asks a bound provider. */
export interface AskOptions {
  /** Aborting stops the provider's fetches (the consensus deadline); rethrown as is. */
  signal?: AbortSignal
  /** Web search: only this route, health not steering (`trawl engines check`). */
  route?: string
  /**
   * The request's one deadline (epoch ms), shared by every route and provider it walks: each
   * fetch gets what is left, and none starts after it (503 upstream_timeout).
   */
  deadline?: number
  /**
   * More providers wait after this one: each fetch takes at most half of what is left, so an
   * engine that never answers leaves time for the next (the last one asked gets all of it).
   */
  more?: boolean
}

/** A provider bound to the upstream client: what search, verticals, rank and customsearch call. */
export interface SearchEngine {
  name: EngineName
  capabilities: EngineCapabilities
  /** Web search's routes, in the order they are tried. */
  routes(): RouteInfo[]
  /** Whether a request of `vertical` setting `param` can be served (web search: by some route). */
  takes(vertical: EngineVerticalName, param: EngineParam): boolean
  /** Web search over the routes that can serve `req`, healthy ones first, billed once by the caller. */
  search(req: SearchRequest, opts?: AskOptions): Promise<EngineAnswer<ParsedSearchPage>>
  /** The engine's other verticals; undefined for one it does not offer. */
  vertical?(req: VerticalRequest, opts?: AskOptions): Promise<EngineAnswer<VerticalAnswer<unknown>>> | undefined
  /** Throws invalid_request for a request `vertical` would refuse, so it fails before credits are reserved. */
  validateVertical?(req: VerticalRequest): void
}

export interface RouteInfo {
  name: string
  /** Why the route cannot be used here, or null. */
  unavailable: string | null
}

export interface EngineAnswer<P> {
  page: P
  attempts: RouteAttempt[]
}
