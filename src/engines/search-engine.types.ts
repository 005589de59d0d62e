/** A provider bound to the upstream client (provider.engine.ts): what search, verticals, rank and customsearch call. */
import type { ParsedSearchPage, SearchRequest, VerticalRequest } from './engine.types.ts'
import type { EngineCapabilities, EngineParam, EngineVerticalName, VerticalAnswer } from './provider.types.ts'
import type { RouteAttempt } from './upstream/upstream.types.ts'

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

export interface SearchEngine<Name extends string = string> {
  /** Its row's name in the capability table (registry.ts). */
  name: Name
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
