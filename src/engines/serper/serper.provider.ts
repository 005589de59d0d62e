import type { ParsedSearchPage, VerticalPage, VerticalRequest } from '../engine.types.ts'
import type { Json } from '../parse/text.ts'
import type { EngineFetch, EngineVertical, FetchRoute, Provider } from '../provider.types.ts'
import { UpstreamError } from '../upstream/upstream-error.ts'
import { detectSerperBlock, explainSerperFailure } from './serper.block.ts'
import {
  parseSerperAutocomplete,
  parseSerperImages,
  parseSerperNews,
  parseSerperPlaces,
  parseSerperScholar,
  parseSerperSearch,
  parseSerperShopping,
  parseSerperVideos,
  readSerperJson,
  serperMessage,
} from './serper.parse.ts'
import { buildSerperRequest, type SerperEndpoint, type SerperParams, type SerperRequest, verticalParams, webParams } from './serper.request.ts'

/**
 * Serper (serper.dev): Google's results as JSON through the operator's key (TRAWL_SERPER_API_KEY).
 * Web search, news, images, videos, places, shopping, scholar and autocomplete. It serves Google's
 * results, so it is a fallback of `auto` (right after Google) and not a voice of `consensus`
 * (registry.ts). Parameters are Google's: location, time (as `tbs=qdr:…`), tbs, autocorrect,
 * and `site:` in the query for domain filters.
 */
export function serperProvider(apiKey: string): Provider<'serper'> {
  const key = apiKey.trim()
  return {
    name: 'serper',
    capabilities: {
      verticals: ['search', 'news', 'images', 'videos', 'places', 'shopping', 'scholar', 'autocomplete'],
      params: ['page', 'location', 'time', 'tbs', 'autocorrect', 'include_domains'],
      siteOperator: true,
    },
    search: {
      route: 'api',
      request: (req) => ({ ...buildSerperRequest('search', webParams(req), key), detectBlock: detectSerperBlock }),
      explain: explainSerperFailure,
      read: (body, _req, request) => windowOf(parseSerperSearch(serperJson(body)), request.skip, request.take),
    } satisfies FetchRoute<SerperRequest>,
    verticals: {
      news: vertical('news', true, key, parseSerperNews),
      images: vertical('images', true, key, parseSerperImages),
      videos: vertical('videos', true, key, parseSerperVideos),
      scholar: positioned(vertical('scholar', true, key, parseSerperScholar)),
      places: positioned(vertical('places', false, key, parseSerperPlaces)),
      shopping: positioned(vertical('shopping', false, key, (json, req) => parseSerperShopping(json, req.country))),
      autocomplete: vertical('autocomplete', false, key, parseSerperAutocomplete),
    },
    detectBlock: detectSerperBlock,
  }
}

/** One Serper call: the answer's JSON, or a failure that says why (a refused key, no credits…). */
async function ask(endpoint: SerperEndpoint, p: SerperParams, key: string, fetch: EngineFetch): Promise<{ json: Json; skip: number; take?: number }> {
  const request = buildSerperRequest(endpoint, p, key)
  let body: string
  try {
    body = (await fetch(request.url, request.headers, detectSerperBlock)).body
  } catch (err) {
    throw explainSerperFailure(err)
  }
  return { json: serperJson(body), skip: request.skip, ...(request.take !== undefined ? { take: request.take } : {}) }
}

/** A Serper answer's JSON; a body that is not JSON, or is Serper's own error, is a failure that says so. */
function serperJson(body: string): Json {
  const json = readSerperJson(body)
  if (!json) throw new UpstreamError('upstream_error', 'Serper did not answer JSON', [])
  const message = serperMessage(json)
  // An answer without any of the endpoint's lists but with a message is Serper's error.
  if (message && !['organic', 'images', 'news', 'videos', 'places', 'shopping', 'suggestions'].some((k) => Array.isArray(json[k]))) {
    throw new UpstreamError('upstream_error', `Serper answered: ${message.slice(0, 200)}`, [])
  }
  return json
}

function vertical<T extends { position: number } | { value: string }>(
  endpoint: SerperEndpoint,
  depth: boolean,
  key: string,
  parse: (json: Json, req: VerticalRequest) => VerticalPage<T>,
): EngineVertical<unknown> {
  return {
    async run(req: VerticalRequest, fetch) {
      const { json, skip, take } = await ask(endpoint, verticalParams(req, depth), key, fetch)
      return windowOf(parse(json, req), skip, take)
    },
  }
}

/**
 * Verticals whose positions the engine layer does not count (places, shopping, scholar): from the
 * start of the whole list, page 2 continuing where page 1 ended. Pages without a depth are taken
 * to hold as many results as this one.
 */
function positioned(inner: EngineVertical<unknown>): EngineVertical<unknown> {
  return {
    async run(req, fetch) {
      const page = (await inner.run(req, fetch)) as VerticalPage<{ position: number }>
      const size = req.num ?? page.results.length
      const offset = ((req.page ?? 1) - 1) * size
      return { ...page, results: page.results.map((r, i) => ({ ...r, position: offset + i + 1 })) }
    },
  }
}

/** The window of the fetched page (`skip` results in, `take` long), numbered from 1. */
function windowOf<P extends ParsedSearchPage | VerticalPage<unknown>>(page: P, skip: number, take: number | undefined): P {
  if (skip === 0 && (take === undefined || page.results.length <= take)) return page
  const kept = (page.results as object[]).slice(skip, take === undefined ? undefined : skip + take)
  const results = kept.map((r, i) => ('position' in r ? { ...r, position: i + 1 } : r))
  const quality = results.length === 0 && page.parse_quality === 'ok' ? 'empty' : page.parse_quality
  return { ...page, results, parse_quality: quality } as P
}
