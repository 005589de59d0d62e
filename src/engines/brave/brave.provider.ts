import type { ParsedSearchPage, VerticalPage, VerticalRequest } from '../engine.types.ts'
import type { EngineCapabilities, EngineVertical, FetchRoute, Provider } from '../provider.types.ts'
import { detectBraveApiBlock, detectBraveBlock } from './brave.block.ts'
import { parseBraveSearch } from './brave.parse.ts'
import { type BraveRequest, buildBraveRequest } from './brave.request.ts'
import { parseBraveApiImages, parseBraveApiNews, parseBraveApiVideos, parseBraveApiWeb } from './brave-api.parse.ts'
import { type BraveApiRequest, type BraveApiVertical, buildBraveApiRequest, verticalParams, webParams } from './brave-api.request.ts'

const PARAMS: EngineCapabilities['params'] = ['page', 'time', 'safe', 'autocorrect']

/**
 * Brave Search. With the operator's API key, the official Search API (web, news, images,
 * videos); without one, the search.brave.com result page (web only).
 */
export function braveProvider(apiKey?: string): Provider<'brave'> {
  const key = apiKey?.trim()
  return key ? braveApiProvider(key) : bravePageProvider
}

const bravePageProvider: Provider<'brave'> = {
  name: 'brave',
  capabilities: { verticals: ['search'], params: PARAMS, siteOperator: true },
  search: {
    // Past result 200 Brave has nothing to show and flags whoever asks: answered empty (free), unasked.
    request: (req) => buildBraveRequest(req) ?? null,
    read: (body, _req, request) => dropLeading(parseBraveSearch(body), request.skip),
  } satisfies FetchRoute<BraveRequest>,
  verticals: {},
  detectBlock: (r) => detectBraveBlock(r),
}

function braveApiProvider(key: string): Provider<'brave'> {
  return {
    name: 'brave',
    capabilities: { verticals: ['search', 'news', 'images', 'videos'], params: PARAMS, siteOperator: true },
    search: {
      request: (req) => {
        const request = buildBraveApiRequest('web', webParams(req), key)
        return request ? { ...request, detectBlock: detectBraveApiBlock } : null
      },
      read: (body, _req, request) => dropLeading(parseBraveApiWeb(body), request.skip),
    } satisfies FetchRoute<BraveApiRequest>,
    verticals: {
      news: apiVertical('news', key, parseBraveApiNews),
      images: apiVertical('images', key, parseBraveApiImages),
      videos: apiVertical('videos', key, parseBraveApiVideos),
    },
    detectBlock: detectBraveApiBlock,
  }
}

function apiVertical<T extends { position: number }>(
  vertical: BraveApiVertical,
  key: string,
  parse: (body: string) => VerticalPage<T>,
): EngineVertical<unknown> {
  return {
    async run(req: VerticalRequest, fetch) {
      const request = buildBraveApiRequest(vertical, verticalParams(req), key)
      if (!request) return { results: [], parse_quality: 'empty' }
      const fetched = await fetch(request.url, request.headers, detectBraveApiBlock)
      return dropLeading(parse(fetched.body), request.skip, request.take)
    },
  }
}

/**
 * The fetched batch from the requested offset on (Brave pages by page index, so a request for
 * results 11-20 fetches 1-20), renumbered from 1.
 */
function dropLeading<P extends ParsedSearchPage | VerticalPage<{ position: number }>>(page: P, skip: number, take?: number): P {
  if (skip === 0 && take === undefined) return page
  const kept = page.results.slice(skip, take === undefined ? undefined : skip + take)
  const quality = kept.length === 0 && page.parse_quality === 'ok' ? 'empty' : page.parse_quality
  return { ...page, results: kept.map((r, i) => ({ ...r, position: i + 1 })), parse_quality: quality }
}
