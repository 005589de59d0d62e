/**
 * Block detection for Startpage. A client it distrusts is redirected to /sp/captcha; it also
 * fronts pages with an Anubis proof-of-work page ("Making sure you're not a bot!") and answers
 * rate limits with HTTP 429; Cloudflare-style challenges are caught too. Body markers are only
 * looked for on pages without results, so a result about captchas is never a block.
 */
import { cloudflareChallenge } from '../brave/brave.block.ts'
import type { BlockCheckInput } from '../upstream/upstream.types.ts'

const RESULT_MARKUP = /UIStartpage\.AppSerp|class="w-gl(?:\s|")|class="w-gl__result/
const MARKERS: [RegExp, string][] = [
  [
    /id="anubis_challenge"|\/\.within\.website\/x\/cmd\/anubis|making sure you(?:'|&#39;|&#x27;|’)re not a bot/i,
    'Startpage served a proof-of-work (Anubis) challenge',
  ],
  [/action="[^"]*\/sp\/captcha|<title>[^<]*captcha[^<]*<\/title>|UIStartpage\.AppCaptcha/i, 'Startpage served its captcha page'],
]

export function detectStartpageBlock(res: BlockCheckInput): { reason: string } | null {
  if (res.status === 429) return { reason: 'Startpage answered HTTP 429 (rate limited)' }
  if (isCaptchaUrl(res.url)) return { reason: 'Startpage redirected to /sp/captcha' }
  if (!res.body || RESULT_MARKUP.test(res.body)) return null
  for (const [re, reason] of MARKERS) if (re.test(res.body)) return { reason }
  return cloudflareChallenge(res)
}

function isCaptchaUrl(url: string): boolean {
  try {
    const u = new URL(url)
    return /(^|\.)startpage\.com$/.test(u.hostname) && /^\/sp\/captcha(?:[/?]|$)/.test(u.pathname)
  } catch {
    return false
  }
}
