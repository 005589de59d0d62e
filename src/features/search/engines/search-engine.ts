import type { ParsedSearchPage, SearchRequest, VerticalPage, VerticalRequest } from '../search.types.ts'
import type { BlockDetector, RouteAttempt } from './upstream/upstream.types.ts'

/** A web-search provider: builds the upstream request, fetches it through the upstream client, parses it. */
export interface SearchEngine {
  name: string
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

/**
 * Fetches one engine URL through the upstream client (proxy pools, failover, block detection).
 * Throws an ApiError (upstream_blocked / upstream_timeout / upstream_error) when every route fails.
 */
export type EngineFetch = (url: string, headers: Record<string, string>, detectBlock?: BlockDetector) => Promise<{ status: number; url: string; body: string }>

/**
 * One vertical of one engine: all of that engine's knowledge for the vertical (URL building,
 * parsing, block detection) sits behind `run`, so a layout change is a fix in one folder. Most
 * verticals fetch once and parse; reviews resolves the place first and pages through a cursor.
 */
export interface EngineVertical<T> {
  run(req: VerticalRequest, fetch: EngineFetch): Promise<VerticalAnswer<T>>
  /** Refuses a request the engine can tell is bad before any work (a page_token minted for another place). */
  validate?(req: VerticalRequest): void
}

/** A parsed vertical page plus the vertical's extra top-level keys (reviews: next_page_token). */
export type VerticalAnswer<T> = VerticalPage<T> & { extras?: Record<string, unknown> }
