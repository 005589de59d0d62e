/** Requests for the engine tests, as the API hands them to a provider once normalised. */
import type { SearchRequest, VerticalRequest } from '../../src/engines/engine.types.ts'

/** A web search request with the API's defaults (US English, ten results, page 1, safe search off, desktop), changed by `overrides`. */
export function searchRequest(overrides: Partial<SearchRequest> = {}): SearchRequest {
  return {
    endpoint: 'search',
    engine: 'google',
    q: 'javascript tutorial',
    country: 'us',
    language: 'en',
    num: 10,
    page: 1,
    safe: 'off',
    device: 'desktop',
    ...overrides,
  }
}

/** A request to the `endpoint` vertical for ten results, page 1, changed by `overrides` (q among them). */
export function verticalRequest(endpoint: VerticalRequest['endpoint'], overrides: Partial<VerticalRequest> = {}): VerticalRequest {
  return { endpoint, num: 10, page: 1, ...overrides }
}
