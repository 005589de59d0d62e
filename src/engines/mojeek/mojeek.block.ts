/**
 * Recognises Mojeek's block pages: a 403 page saying the network sends automated queries, a 403
 * refusing the request's parameters (what `lb` / `arc` in the URL brought in 2026: SearXNG PR
 * #6120), rate limiting (429), and Cloudflare interstitials.
 */
import type { BlockCheckInput } from '../upstream/upstream.types.ts'

export interface MojeekBlock {
  reason: string
}

const RESULT_MARKUP = /class="results-standard"/
// "access denied because of wrong request parameters", and close wordings.
const WRONG_PARAMETERS = /(?:wrong|invalid|bad|unsupported)\s+(?:request\s+)?param(?:eter)?s?\b/i

export function detectMojeekBlock(res: BlockCheckInput): MojeekBlock | null {
  if (res.status === 429) return { reason: 'HTTP 429 from Mojeek' }
  const body = res.body
  // A result page is never a block page, whatever its results say.
  if (body && RESULT_MARKUP.test(body)) return null
  if (res.status === 403 && WRONG_PARAMETERS.test(body)) return { reason: 'Mojeek refused the request parameters (HTTP 403)' }
  if (/automated (?:search )?quer|automated requests/i.test(body)) return { reason: 'Mojeek blocked automated queries' }
  if (/<title>\s*Just a moment\.\.\.|cf-chl-|challenge-platform/i.test(body)) return { reason: 'Cloudflare challenge page' }
  if (res.status === 403) return { reason: 'HTTP 403 from Mojeek' }
  return null
}
