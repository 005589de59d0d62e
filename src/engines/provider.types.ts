/**
 * What a provider declares: its capabilities, its web search routes, its other verticals and its
 * block detector. A leaf: providers import this, never the registry or the engine layer.
 */
import type { ParsedSearchPage, SearchRequest, VerticalEndpoint, VerticalPage, VerticalRequest } from './engine.types.ts'
import type { EngineGate } from './gates/gate.types.ts'
import type { BlockDetector } from './upstream/upstream.types.ts'

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

/** One upstream request as a route declares it; the engine layer fetches it. */
export interface EngineRequest {
  url: string
  headers: Record<string, string>
  /** Sent as a POST of this form (application/x-www-form-urlencoded). */
  form?: Record<string, string>
  /** This request's block detector, when not the provider's own. */
  detectBlock?: BlockDetector
  /** Drawn by the browser, its scripts run (a provider's `browser` route). */
  render?: boolean
}

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

/** What every route declares, beside how it gets its page. */
interface RouteBase {
  /** The route's name in `meta.route`, health and `trawl engines check`; `web` when unnamed. */
  route?: string
  /**
   * The optional parameters this route honours, when it honours fewer than its provider: a request
   * that sets another one passes the route over. Every provider parameter is taken by some route.
   */
  params?: readonly EngineParam[]
  /** Why the route cannot be used in this deployment (no browser, no API key), or null when it can. */
  unavailable?: () => string | null
}

/**
 * A route as data: the request to send and how to read its answer; the engine layer fetches
 * (fetch-route.ts). `Q` is the route's own request, carrying what reading needs (a skip, a wiki).
 */
export interface FetchRoute<Q extends EngineRequest = EngineRequest> extends RouteBase {
  /**
   * Depth by pages of this size (Google answers 10 a page whatever `num` says): the request's
   * pages are fetched at once and merged (search-pages.ts). Absent: one request per search.
   */
  pageSize?: number
  /** The request for the results from `start` (the request's offset, or a page's), or null: nothing to ask, answered empty (free). */
  request(req: SearchRequest, start: number): Q | null
  /** The page an answer holds; throws an UpstreamError for an answer that is not a result page. */
  read(body: string, req: SearchRequest, request: Q): ParsedSearchPage
  /** The error a failed fetch is thrown as, when the route can say better why it failed (a refused key). */
  explain?(err: unknown): unknown
}

/** A route whose requests depend on each other (a token, a code, a cursor): it makes them through `fetch`. */
export interface RunRoute extends RouteBase {
  run(req: SearchRequest, fetch: EngineFetch): Promise<ParsedSearchPage>
}

/**
 * One route of a provider's web search: one way of getting the same results (Google's
 * feature-phone page, the page drawn by a browser, an official API), answering a ParsedSearchPage.
 * A provider lists its routes in the order to try them, and the engine layer walks them inside one
 * request (provider.routes.ts).
 */
export type EngineWebSearch = FetchRoute | RunRoute

/**
 * A provider: its capability row, its web search, its other verticals, and the block detector
 * used for every fetch that does not bring its own. This is all the rest of the code knows of it.
 */
export interface Provider<Name extends string = string> {
  /** Its row's name in the capability table (registry.ts). */
  name: Name
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
