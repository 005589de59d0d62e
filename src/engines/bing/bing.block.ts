/**
 * Recognises Bing's block pages: the "One last step" challenge (a Cloudflare Turnstile widget
 * posting to /challenge/verify, served with status 200 in place of results), the older
 * /turing/captcha page, Cloudflare interstitials, and rate limiting (HTTP 429).
 */
import type { BlockCheckInput } from '../upstream/upstream.types.ts'
import { isBingHost } from './bing.util.ts'

export interface BingBlock {
  reason: string
}

// Markup only result pages carry: web results, image tiles, a news feed, or the "no results" notice.
const RESULT_MARKUP = /class="b_algo|class="b_no"|class="iusc"|<rss[\s>]/i

const CHALLENGE_MARKUP: [RegExp, string][] = [
  [/class="captcha_header"|id="turnstile-widget"|\/challenge\/verify\?/i, 'Bing challenge page ("One last step")'],
  [/id="b_captcha|class="b_captcha|\/turing\/captcha\//i, 'Bing CAPTCHA page'],
  [/<title>\s*Just a moment\.\.\.|cf-chl-|challenge-platform/i, 'Cloudflare challenge page'],
]

export function detectBingBlock(res: BlockCheckInput): BingBlock | null {
  let path = ''
  let bing = false
  try {
    const u = new URL(res.url)
    path = u.pathname.toLowerCase()
    bing = isBingHost(u.hostname)
  } catch {
    // An unparsable URL says nothing; the status and body still do.
  }
  if (bing && (path.startsWith('/challenge') || path.startsWith('/turing/captcha'))) return { reason: 'redirected to the Bing challenge page' }
  if (res.status === 429) return { reason: 'HTTP 429 from Bing' }
  const body = res.body
  if (!body) return res.status === 403 ? { reason: 'HTTP 403 from Bing' } : null
  // A page with results is never a block page, whatever its scripts mention (result pages embed
  // the challenge's configuration names too).
  if (RESULT_MARKUP.test(body)) return null
  for (const [re, reason] of CHALLENGE_MARKUP) if (re.test(body)) return { reason }
  if (res.status === 403) return { reason: 'HTTP 403 from Bing' }
  return null
}
