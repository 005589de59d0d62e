/**
 * Block detection for Maps. The web detector's "no result column" heuristics do not fit here: Maps
 * answers are JSON (search, reviews) or an app shell whose data sits in APP_INITIALIZATION_STATE.
 * So the redirect/status checks are shared, and the body checks ask "is this Maps data at all?".
 */
import type { BlockCheckInput } from '../../upstream/upstream.types.ts'
import { detectGoogleBlock, detectGoogleBlockInHtml } from '../google-block.detect.ts'

type Verdict = { reason: string } | null

/** For the JSON endpoints (tbm=map search, listugcposts): an HTML page where JSON belongs is an interstitial. */
export function detectMapsJsonBlock(r: BlockCheckInput): Verdict {
  const byRoute = detectGoogleBlock({ status: r.status, url: r.url, body: '' })
  if (byRoute) return { reason: byRoute.reason }
  const head = r.body.trimStart().slice(0, 8)
  if (head === '' || head.startsWith(")]}'") || head.startsWith('[') || head.startsWith('{')) return null
  const reason = detectGoogleBlockInHtml(r.body)
  if (reason) return { reason }
  return head.startsWith('<') ? { reason: 'an HTML page instead of Google Maps data' } : null
}

/** For the Maps web page (place lookups): a page without the app state is an interstitial when it says so. */
export function detectMapsPageBlock(r: BlockCheckInput): Verdict {
  const byRoute = detectGoogleBlock({ status: r.status, url: r.url, body: '' })
  if (byRoute) return { reason: byRoute.reason }
  if (r.body.includes('APP_INITIALIZATION_STATE')) return null
  const reason = detectGoogleBlockInHtml(r.body)
  return reason ? { reason } : null
}
