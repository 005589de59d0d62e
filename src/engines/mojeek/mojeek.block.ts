/**
 * Recognises Mojeek's block pages: a 403 page saying the network sends automated queries, a 403
 * refusing the request's parameters (what `lb` / `arc` in the URL brought in 2026: SearXNG PR
 * #6120), rate limiting (429), Cloudflare interstitials, and its Altcha proof-of-work page (SearXNG
 * PR #6696): a 200 with 0 results until the challenge is solved, which the provider's gate
 * (gates/altcha.gate.ts) passes; when it could not, the page must read as a block, never as a
 * page that found nothing.
 */
import type { BlockCheckInput } from '../upstream/upstream.types.ts'

export interface MojeekBlock {
  reason: string
}

const RESULT_MARKUP = /class="results-standard"/
// "access denied because of wrong request parameters", and close wordings.
const WRONG_PARAMETERS = /(?:wrong|invalid|bad|unsupported)\s+(?:request\s+)?param(?:eter)?s?\b/i
// The Altcha widget, its challenge and verify addresses, or a captcha title: wider than the gate's
// own detection, so a variant the gate does not recognise is still a block.
const ALTCHA_CHALLENGE = /<altcha-widget\b|\/captcha\/(?:challenge|verify)\b|<title>[^<]*captcha[^<]*<\/title>/i

export function detectMojeekBlock(res: BlockCheckInput): MojeekBlock | null {
  if (res.status === 429) return { reason: 'HTTP 429 from Mojeek' }
  if (isCaptchaUrl(res.url)) return { reason: 'Mojeek redirected to its captcha page' }
  const body = res.body
  // A result page is never a block page, whatever its results say.
  if (body && RESULT_MARKUP.test(body)) return null
  if (res.status === 403 && WRONG_PARAMETERS.test(body)) return { reason: 'Mojeek refused the request parameters (HTTP 403)' }
  if (/automated (?:search )?quer|automated requests/i.test(body)) return { reason: 'Mojeek blocked automated queries' }
  if (ALTCHA_CHALLENGE.test(body)) return { reason: 'Mojeek served its Altcha proof-of-work challenge (0 results until it is solved)' }
  if (/<title>\s*Just a moment\.\.\.|cf-chl-|challenge-platform/i.test(body)) return { reason: 'Cloudflare challenge page' }
  if (res.status === 403) return { reason: 'HTTP 403 from Mojeek' }
  return null
}

/** A redirect to (or a page at) Mojeek's /captcha/… addresses. */
function isCaptchaUrl(url: string): boolean {
  try {
    const u = new URL(url)
    return /(^|\.)mojeek\.com$/.test(u.hostname) && /^\/captcha(?:[/?]|$)/.test(u.pathname)
  } catch {
    return false
  }
}
