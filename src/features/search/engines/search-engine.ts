import type { ParsedSearchPage, SearchRequest } from '../search.types.ts'
import type { RouteAttempt } from './upstream/upstream.types.ts'

/** A web-search provider: builds the upstream request, fetches it through the upstream client, parses it. */
export interface SearchEngine {
  name: string
  search(req: SearchRequest, signal?: AbortSignal): Promise<EngineAnswer>
}

export interface EngineAnswer {
  page: ParsedSearchPage
  attempts: RouteAttempt[]
}
