/**
 * Block detection for Google Shopping pages: Google's CAPTCHA, consent and rate-limit pages (the
 * shared detector), plus the script-only shell Google sends a client it will not render the
 * product grid for.
 */
import type { BlockCheckInput } from '../../upstream/upstream.types.ts'
import { detectGoogleBlock, type GoogleBlock } from '../google-block.detect.ts'

// Markup any product card carries: the classic grid, the list layout, product ads, product links.
const PRODUCT_MARKERS = /sh-dgr__|sh-dlr__|pla-unit|data-docid=|\/shopping\/product\//

/** A block verdict for a fetched Shopping page, or null when it may hold products. */
export function detectGoogleShoppingBlock(res: BlockCheckInput): GoogleBlock | null {
  const shared = detectGoogleBlock(res)
  if (shared) return shared
  if (isScriptShell(res.body)) return { code: 'upstream_blocked', reason: 'Google Shopping sent a JavaScript-only page without products' }
  return null
}

/**
 * The "enable JavaScript" shell: it points at Google's enablejs retry endpoint and holds no
 * product markup. A real page with no products for the query keeps its result column and is
 * answered as empty, not as blocked.
 */
export function isScriptShell(body: string): boolean {
  if (!body || PRODUCT_MARKERS.test(body)) return false
  return /\/httpservice\/retry\/enablejs|please enable javascript|enable javascript to continue/i.test(body)
}
