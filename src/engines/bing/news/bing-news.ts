import type { NewsResult } from '../../engine.types.ts'
import type { EngineVertical } from '../../provider.types.ts'
import { detectBingNewsBlock } from './bing-news.block.ts'
import { parseBingNews } from './bing-news.parse.ts'
import { buildBingNewsRequest } from './bing-news.request.ts'

/** Bing News from the RSS feed: one fetch, cut to `num`. */
export const bingNews: EngineVertical<NewsResult> = {
  async run(req, fetch) {
    const { url, headers } = buildBingNewsRequest(req)
    const feed = await fetch(url, headers, (r) => detectBingNewsBlock(r))
    const parsed = parseBingNews(feed.body)
    return { ...parsed, results: parsed.results.slice(0, req.num ?? 10) }
  },
}
