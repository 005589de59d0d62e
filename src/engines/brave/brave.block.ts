/**
 * Block detection for Brave Search. A challenged client is sent to search.brave.com/captcha (a
 * proof-of-work / slider captcha, "Verify you are human") or /verify; Cloudflare may answer
 * first with its "Just a moment..." challenge; rate limits are HTTP 429. Body markers are only
 * looked for on pages without web results, so a result titled "captcha" is never a block.
 */
import type { BlockCheckInput } from '../upstream/upstream.types.ts'

export interface BraveBlock {
  reason: string
}

const CAPTCHA_PATH = /^\/(?:captcha|verify)(?:[/?]|$)/
const RESULT_MARKUP = /data-type="web"|id="results"/
const CAPTCHA_MARKERS = [
  /<title>[^<]*verify you are human/i,
  /we need to confirm you(?:'|&#39;|&#x27;|’)re human/i,
  /class="[^"]*captcha-(?:card|slider)/i,
  /<form[^>]+action="[^"]*\/captcha/i,
  /\bpage:\s*['"]\/?captcha['"]|"page":\s*"\/?captcha"/,
]

export function detectBraveBlock(res: BlockCheckInput): BraveBlock | null {
  if (res.status === 429) return { reason: 'Brave answered HTTP 429 (rate limited)' }
  if (isBraveCaptchaUrl(res.url)) return { reason: 'Brave redirected to its captcha page' }
  if (!res.body || RESULT_MARKUP.test(res.body)) return null
  const cf = cloudflareChallenge(res)
  if (cf) return cf
  if (CAPTCHA_MARKERS.some((re) => re.test(res.body))) return { reason: 'Brave served its captcha page' }
  return null
}

/** The official API: 429 is its rate limit; 401 / 422 (a bad key or parameter) are errors, not blocks. */
export function detectBraveApiBlock(res: BlockCheckInput): BraveBlock | null {
  return res.status === 429 ? { reason: 'Brave Search API rate limit (HTTP 429)' } : null
}

function isBraveCaptchaUrl(url: string): boolean {
  try {
    const u = new URL(url)
    return u.hostname === 'search.brave.com' && CAPTCHA_PATH.test(u.pathname)
  } catch {
    return false
  }
}

/** Cloudflare's interstitial ("Just a moment...", /cdn-cgi/challenge-platform, cf-chl). */
export function cloudflareChallenge(res: BlockCheckInput): BraveBlock | null {
  const head = res.body.slice(0, 20_000)
  if (/<title>\s*(?:Just a moment\.\.\.|Attention Required! \| Cloudflare)\s*<\/title>/i.test(head)) return { reason: 'Cloudflare challenge page' }
  if ((res.status === 403 || res.status === 503) && /cf-chl|challenge-platform|cf_chl_opt|challenges\.cloudflare\.com/i.test(head)) {
    return { reason: `Cloudflare challenge (HTTP ${res.status})` }
  }
  return null
}
