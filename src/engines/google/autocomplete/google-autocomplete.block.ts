/** Recognises refusals of Google's suggest endpoint. */
import type { BlockCheckInput } from '../../upstream/upstream.types.ts'
import { detectGoogleBlock } from '../google-block.detect.ts'

/**
 * Suggestions come as JSON (or XML for the toolbar client); an HTML document is a CAPTCHA,
 * "sorry" or consent page. The Google-wide body heuristics are kept off non-HTML bodies: a
 * suggestion such as "how to update your browser" would otherwise read as a browser check.
 */
export function detectAutocompleteBlock(res: BlockCheckInput): { reason: string } | null {
  const html = isHtml(res.body)
  const google = detectGoogleBlock(html ? res : { ...res, body: '' })
  if (google) return google
  if (html && res.status >= 200 && res.status < 300) return { reason: 'Google suggest returned an HTML page instead of suggestions' }
  return null
}

const isHtml = (body: string) => /^\s*<(?!\?xml|toplevel)/i.test(body)
