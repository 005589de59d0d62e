import type { ParsedSearchPage, ParseQuality, VerticalPage, VerticalRequest } from '../engine.types.ts'
import { confirmEmpty } from '../parse/quality.ts'
import type { Json } from '../parse/text.ts'
import type { EngineFetch, EngineVertical, Provider } from '../provider.types.ts'
import { UpstreamError } from '../upstream/upstream-error.ts'
import { detectSearxngBlock, explainSearxngFailure } from './searxng.block.ts'
import { parseSearxngImages, parseSearxngNews, parseSearxngVideos, parseSearxngWeb, readSearxngJson, unresponsiveEngines } from './searxng.parse.ts'
import {
  buildSearxngRequest,
  type SearxngCategory,
  type SearxngInstance,
  type SearxngParams,
  searxngInstance,
  verticalParams,
  webParams,
} from './searxng.request.ts'

/**
 * The operator's own SearXNG instance (TRAWL_SEARXNG_URL) over its JSON search API: web search
 * (category general) and the news, images and videos categories. It aggregates other engines
 * (Google, Bing, DuckDuckGo… as the instance is configured), so it is a fallback of `auto` and
 * not a voice of `consensus` (registry.ts). Its time filter has no hour (asked as a day); the
 * query goes to SearXNG as written, so `site:` reaches the engines that read it, and domain
 * filters are enforced on the results in any case.
 */
export function searxngProvider(url: string): Provider<'searxng'> {
  const instance = searxngInstance(url)
  return {
    name: 'searxng',
    capabilities: { verticals: ['search', 'news', 'images', 'videos'], params: ['page', 'time', 'safe', 'include_domains'], siteOperator: true },
    search: {
      route: 'api',
      async run(req, fetch) {
        const pages = await fetchPages(instance, webParams(req), fetch)
        const first = parseSearxngWeb(pages.jsons[0] as Json)
        const window = windowOf(
          pages.jsons.map((json, i) => (i === 0 ? first : parseSearxngWeb(json))),
          (r) => r.link,
          pages.skip,
          req.num,
          pages.quality,
        )
        return { ...first, ...window } as ParsedSearchPage
      },
    },
    verticals: {
      news: vertical(instance, 'news', parseSearxngNews, (r) => r.link),
      images: vertical(instance, 'images', parseSearxngImages, (r) => r.image_url),
      videos: vertical(instance, 'videos', parseSearxngVideos, (r) => r.link),
    },
    detectBlock: detectSearxngBlock,
  }
}

function vertical<T extends { position: number }>(
  instance: SearxngInstance,
  category: SearxngCategory,
  parse: (json: Json) => VerticalPage<T>,
  key: (item: T) => string,
): EngineVertical<unknown> {
  return {
    async run(req: VerticalRequest, fetch) {
      const p = verticalParams(req, category)
      const pages = await fetchPages(instance, p, fetch)
      return windowOf(pages.jsons.map(parse), key, pages.skip, p.num, pages.quality)
    },
  }
}

/**
 * The SearXNG pages of the window, one after another, stopping at a page with no results. The
 * first page failing is the request failing (explained: JSON turned off, the limiter…); a later
 * one failing keeps what was read, marked partial.
 */
async function fetchPages(instance: SearxngInstance, p: SearxngParams, fetch: EngineFetch): Promise<{ jsons: Json[]; skip: number; quality: ParseQuality }> {
  const request = buildSearxngRequest(instance, p)
  const jsons: Json[] = []
  let quality: ParseQuality = 'ok'
  for (const [i, url] of request.urls.entries()) {
    let body: string
    try {
      body = (await fetch(url, request.headers, detectSearxngBlock)).body
    } catch (err) {
      if (i === 0) throw explainSearxngFailure(err)
      quality = 'partial'
      break
    }
    const json = readSearxngJson(body)
    if (!json) {
      if (i === 0) throw new UpstreamError('upstream_error', 'the SearXNG instance did not answer JSON (is TRAWL_SEARXNG_URL the instance itself?)', [])
      quality = 'partial'
      break
    }
    if (i === 0) failedEngines(json)
    jsons.push(json)
    if (!Array.isArray(json.results) || json.results.length === 0) break
    if (jsons.reduce((n, j) => n + (j.results as unknown[]).length, 0) >= request.skip + p.num) break
  }
  return { jsons, skip: request.skip, quality }
}

const BLOCKED = /captcha|too many requests|access denied|suspended|blocked/i

/**
 * No results while SearXNG's own engines failed is not an empty answer but a failure (so `auto`
 * moves on and nothing is billed): blocked when one of them was refused, an error otherwise.
 */
function failedEngines(json: Json): void {
  const failed = unresponsiveEngines(json)
  if ((json.results as unknown[]).length > 0 || failed.length === 0) return
  const list = failed
    .slice(0, 6)
    .map(([engine, reason]) => `${engine} (${reason})`)
    .join(', ')
  const code = failed.some(([, reason]) => BLOCKED.test(reason)) ? 'upstream_blocked' : 'upstream_error'
  throw new UpstreamError(code, `no results: the SearXNG instance's engines failed: ${list}`, [])
}

/**
 * The pages' results in order, repeats dropped, cut to the window (`skip` results in, `num` long)
 * and numbered from 1 (the engine layer counts positions from the start of the whole list).
 */
function windowOf<T extends { position: number }>(
  pages: VerticalPage<T>[],
  key: (item: T) => string,
  skip: number,
  num: number,
  fetched: ParseQuality,
): VerticalPage<T> {
  const seen = new Set<string>()
  const all: T[] = []
  for (const page of pages) {
    for (const item of page.results) {
      const k = key(item)
      if (seen.has(k)) continue
      seen.add(k)
      all.push(item)
    }
  }
  const results = all.slice(skip, skip + num).map((r, i) => ({ ...r, position: i + 1 }))
  const parsed = pages[0]?.parse_quality ?? 'empty'
  const quality: ParseQuality =
    results.length === 0 ? (parsed === 'partial' ? 'partial' : 'empty') : parsed === 'partial' || fetched === 'partial' ? 'partial' : 'ok'
  // Empty with none of the instance's engines failing (failedEngines throws then): nothing matched.
  const answer: VerticalPage<T> = confirmEmpty({ results, parse_quality: quality })
  if (pages[0]?.total_results !== undefined) answer.total_results = pages[0].total_results
  return answer
}
