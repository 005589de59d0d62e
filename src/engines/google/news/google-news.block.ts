/**
 * Block detection for the Google News feed. news.google.com answers blocked or unconsented
 * clients with an HTML page (consent wall, "unusual traffic") in place of the XML, sometimes with
 * status 200, so any body that is not an RSS document is refused rather than parsed.
 */

import { isRssFeed } from '../../parse/text.ts'
import type { BlockCheckInput } from '../../upstream/upstream.types.ts'
import { detectGoogleBlock, type GoogleBlock } from '../google-block.detect.ts'

/** A block verdict for a Google News feed response, or null when it is the feed. */
export function detectGoogleNewsBlock(res: BlockCheckInput): GoogleBlock | null {
  const rss = isRssFeed(res.body)
  // Feed items are free text (a headline may well say "unusual traffic"), so only the URL and
  // status are checked on a real feed.
  const verdict = detectGoogleBlock(rss ? { ...res, body: '' } : res)
  if (verdict || rss) return verdict
  return {
    code: 'upstream_blocked',
    reason: res.body.trim() ? 'Google News answered with a page instead of the RSS feed' : 'Google News answered with an empty body',
  }
}
