/** Recognises refusals of the Google Patents JSON endpoint. */
import type { BlockCheckInput } from '../../upstream/upstream.types.ts'
import { detectGoogleBlock } from '../google-block.detect.ts'

/**
 * The endpoint answers JSON; anything that starts like an HTML document is a CAPTCHA, "sorry" or
 * consent page. The Google-wide body heuristics are kept off JSON bodies: patent titles and
 * snippets may well contain phrases such as "update your browser".
 */
export function detectPatentsBlock(res: BlockCheckInput): { reason: string } | null {
  const json = looksLikeJson(res.body)
  const google = detectGoogleBlock(json ? { ...res, body: '' } : res)
  if (google) return google
  if ((res.status === 503 || res.status === 403) && /automated queries|unusual traffic/i.test(res.body)) {
    return { reason: `Google Patents refused automated queries (HTTP ${res.status})` }
  }
  if (res.status >= 200 && res.status < 300 && !json && /^\s*</.test(res.body)) return { reason: 'Google Patents returned an HTML page instead of JSON' }
  return null
}

/** A JSON document, optionally behind Google's `)]}'` anti-hijacking prefix. */
export function looksLikeJson(body: string): boolean {
  return /^\s*(?:\)\]\}'\s*,?\s*)?[{[]/.test(body)
}
