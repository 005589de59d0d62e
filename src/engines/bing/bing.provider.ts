import type { Provider } from '../provider.types.ts'
import { detectBingBlock } from './bing.block.ts'
import { parseBingSearch } from './bing.parse.ts'
import { buildBingSearchRequest, offsetOf } from './bing.request.ts'
import { bingImages } from './images/bing-images.ts'
import { bingNews } from './news/bing-news.ts'

/**
 * Bing: web search (ten results a page, first page only), images and news. The query language has
 * `site:`, so domain filters reach Bing as operators.
 */
export const bingProvider: Provider<'bing'> = {
  name: 'bing',
  capabilities: {
    verticals: ['search', 'news', 'images'],
    params: ['page', 'time', 'safe', 'include_domains'],
    siteOperator: true,
  },
  search: {
    // Without scripts Bing serves page 1 for later pages and ignores the time filter (SearXNG's
    // 2026-03 rework dropped both, docs/engines.md): web search takes neither, news and images do.
    params: ['safe', 'include_domains'],
    request: (req) => buildBingSearchRequest(req),
    read: (body, req) => parseBingSearch(body, { offset: offsetOf(req) }),
  },
  verticals: { news: bingNews, images: bingImages },
  detectBlock: (r) => detectBingBlock(r),
}
