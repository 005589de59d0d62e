/** Recognises Google Scholar's own refusal pages on top of the Google-wide ones. */
import type { BlockCheckInput } from '../../upstream/upstream.types.ts'
import { detectGoogleBlock } from '../google-block.detect.ts'

/**
 * Scholar shows its CAPTCHA inside a full result-page shell (header, result count and all), so the
 * size and "no result column" heuristics of the web detector do not see it.
 */
export function detectScholarBlock(res: BlockCheckInput): { reason: string } | null {
  const google = detectGoogleBlock(res)
  if (google) return google
  const reason = scholarBlockReason(res.status, res.body)
  return reason ? { reason } : null
}

/** Why a Scholar response is a refusal rather than results, or undefined. */
export function scholarBlockReason(status: number, body: string): string | undefined {
  if (!body) return undefined
  if (/<form[^>]+id=["']?gs_captcha_f\b/i.test(body)) return 'Google Scholar CAPTCHA form'
  // Scholar answers refused clients with a bare 403 "…sending automated queries" page.
  if ((status === 403 || status === 503) && /automated queries|unusual traffic/i.test(body)) return `Google Scholar refused automated queries (HTTP ${status})`
  return undefined
}
