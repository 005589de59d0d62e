/**
 * Block detection for Google Lens: Google's CAPTCHA, consent and rate-limit pages (the shared
 * detector, which also sees a redirect to consent.google.com or /sorry), plus the script-only
 * shell Lens sends a client it will not render results for.
 */
import type { BlockCheckInput } from '../../upstream/upstream.types.ts'
import { detectGoogleBlock, type GoogleBlock } from '../google-block.detect.ts'

// Markup a results page carries: match cards, their links, or the older page's data blob.
const RESULT_MARKERS = /vEWxFf|LBcIee|G19kAf|AF_initDataCallback\(/

/** A block verdict for a fetched Lens page, or null when it may hold matches. */
export function detectGoogleLensBlock(res: BlockCheckInput): GoogleBlock | null {
  const shared = detectGoogleBlock(res)
  if (shared) return shared
  if (isLensScriptShell(res.body)) return { code: 'upstream_blocked', reason: 'Google Lens sent a JavaScript-only page without results' }
  return null
}

/**
 * The "enable JavaScript" shell: it points at Google's enablejs retry endpoint and holds neither
 * match cards nor page data. A results page with no matches for the image is answered as empty.
 */
export function isLensScriptShell(body: string): boolean {
  if (!body || RESULT_MARKERS.test(body)) return false
  return /\/httpservice\/retry\/enablejs|please enable javascript|enable javascript to continue/i.test(body)
}
