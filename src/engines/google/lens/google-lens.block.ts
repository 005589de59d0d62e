/**
 * Block detection for Google Lens: Google's CAPTCHA, consent and rate-limit pages (the shared
 * detector, which also sees a redirect to consent.google.com or /sorry), plus the script-only
 * shell Lens sends a client it will not render results for.
 */
import type { BlockCheckInput } from '../../upstream/upstream.types.ts'
import { detectGoogleBlock, type GoogleBlock, isEnableJsShell } from '../google-block.detect.ts'

// Markup a results page carries: match cards, their links, or the older page's data blob.
const RESULT_MARKERS = /vEWxFf|LBcIee|G19kAf|AF_initDataCallback\(/

/** A block verdict for a fetched Lens page, or null when it may hold matches. */
export function detectGoogleLensBlock(res: BlockCheckInput): GoogleBlock | null {
  return (
    detectGoogleBlock(res) ??
    (isLensScriptShell(res.body) ? { code: 'upstream_blocked', reason: 'Google Lens sent a JavaScript-only page without results' } : null)
  )
}

/** The script-only shell: no match cards nor page data (isEnableJsShell). */
export const isLensScriptShell = (body: string) => isEnableJsShell(body, RESULT_MARKERS)
