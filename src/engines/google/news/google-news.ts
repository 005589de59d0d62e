import type { NewsResult } from '../../engine.types.ts'
import type { EngineVertical } from '../../provider.types.ts'
import { detectGoogleNewsBlock } from './google-news.block.ts'
import { parseGoogleNews } from './google-news.parse.ts'
import { buildGoogleNewsRequest } from './google-news.request.ts'

/** Google News from the RSS search feed: one fetch, the page cut from the feed's items. */
export const googleNews: EngineVertical<NewsResult> = {
  async run(req, fetch) {
    const { url, headers } = buildGoogleNewsRequest(req)
    const feed = await fetch(url, headers, (r) => detectGoogleNewsBlock(r))
    return parseGoogleNews(feed.body, req)
  },
}
