/**
 * Block detection for the Bing News feed: a blocked client gets the HTML challenge page (or any
 * other page) instead of RSS, often with status 200, so a body that is not RSS is refused.
 */

import { isRssFeed } from '../../parse/text.ts'
import type { BlockCheckInput } from '../../upstream/upstream.types.ts'
import { type BingBlock, detectBingBlock } from '../bing.block.ts'

export function detectBingNewsBlock(res: BlockCheckInput): BingBlock | null {
  const rss = isRssFeed(res.body)
  // Headlines are free text, so a real feed is judged on its URL and status only.
  const verdict = detectBingBlock(rss ? { ...res, body: '' } : res)
  if (verdict || rss) return verdict
  return { reason: res.body.trim() ? 'Bing News answered with a page instead of the RSS feed' : 'Bing News answered with an empty body' }
}
