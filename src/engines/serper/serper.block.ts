/**
 * How Serper says no, and what Trawl tells the operator about it. Serper answers a missing or
 * wrong key with 401/403 ("Unauthorized."), an exhausted balance with 400 "Not enough credits",
 * and too many requests with 429. A refused key is an error (another request fails the same way
 * until the operator fixes TRAWL_SERPER_API_KEY); a spent balance and the rate limit are blocks,
 * like an engine's rate limit: `auto` moves on, and health cools the provider down.
 */
import type { BlockCheckInput } from '../upstream/upstream.types.ts'
import { isUpstreamError, UpstreamError, type UpstreamErrorCode } from '../upstream/upstream-error.ts'

export function detectSerperBlock(r: BlockCheckInput): { reason: string } | null {
  if (r.status === 400 && /not enough credits/i.test(r.body.slice(0, 2000))) {
    return { reason: 'the Serper account is out of credits ("Not enough credits"); top it up at serper.dev' }
  }
  return null
}

const STATUS_REASONS: Record<number, { code: UpstreamErrorCode; reason: string }> = {
  401: { code: 'upstream_error', reason: 'Serper refused the API key; check TRAWL_SERPER_API_KEY' },
  403: { code: 'upstream_error', reason: 'Serper refused the API key; check TRAWL_SERPER_API_KEY' },
  429: { code: 'upstream_blocked', reason: 'Serper rate limited the key or its credits ran out (HTTP 429)' },
}

/**
 * A failed fetch again, with the operator's explanation of Serper's answer as its message. It
 * carries no attempts of its own (the fetch's are already recorded), so the engine layer records
 * the message as the route's reason: it reaches the 503 and `meta.route`.
 */
export function explainSerperFailure(err: unknown): unknown {
  if (!isUpstreamError(err)) return err
  const status = err.attempts.findLast((a) => a.status !== undefined)?.status
  const known = status === undefined ? undefined : STATUS_REASONS[status]
  return known ? new UpstreamError(known.code, known.reason, [], err) : err
}
