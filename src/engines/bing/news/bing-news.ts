import type { NewsResult } from '../../engine.types.ts'
import { oneFetchVertical } from '../../fetch-route.ts'
import { detectBingNewsBlock } from './bing-news.block.ts'
import { parseBingNews } from './bing-news.parse.ts'
import { buildBingNewsRequest } from './bing-news.request.ts'

/** Bing News from the RSS feed: one fetch, cut to `num`. */
export const bingNews = oneFetchVertical<NewsResult>(buildBingNewsRequest, detectBingNewsBlock, (body) => parseBingNews(body), { cutToNum: true })
