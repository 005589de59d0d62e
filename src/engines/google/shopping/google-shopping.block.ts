/**
 * Block detection for Google Shopping pages: Google's CAPTCHA, consent and rate-limit pages (the
 * shared detector), plus the script-only shell Google sends a client it will not render the
 * product grid for.
 */
import type { BlockCheckInput } from '../../upstream/upstream.types.ts'
import { detectGoogleBlock, type GoogleBlock, isEnableJsShell } from '../google-block.detect.ts'

// Markup any product card carries: the classic grid, the list layout, product ads, product links.
const PRODUCT_MARKERS = /sh-dgr__|sh-dlr__|pla-unit|data-docid=|\/shopping\/product\//

/** A block verdict for a fetched Shopping page, or null when it may hold products. */
export function detectGoogleShoppingBlock(res: BlockCheckInput): GoogleBlock | null {
  return (
    detectGoogleBlock(res) ??
    (isScriptShell(res.body) ? { code: 'upstream_blocked', reason: 'Google Shopping sent a JavaScript-only page without products' } : null)
  )
}

/** The script-only shell: no product markup (isEnableJsShell). */
export const isScriptShell = (body: string) => isEnableJsShell(body, PRODUCT_MARKERS)
