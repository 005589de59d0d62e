import type { NewsResult } from '../../engine.types.ts'
import { oneFetchVertical } from '../../fetch-route.ts'
import { detectGoogleNewsBlock } from './google-news.block.ts'
import { parseGoogleNews } from './google-news.parse.ts'
import { buildGoogleNewsRequest } from './google-news.request.ts'

/** Google News from the RSS search feed: one fetch, the page cut from the feed's items. */
export const googleNews = oneFetchVertical<NewsResult>(buildGoogleNewsRequest, detectGoogleNewsBlock, parseGoogleNews)
