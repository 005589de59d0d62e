/**
 * How a SearXNG instance says no, and what Trawl tells the operator about it:
 *
 * - 403: the instance does not serve the format asked for ("Requesting an unset format will
 *   return a 403 Forbidden error", docs.searxng.org Search API): JSON is off in settings.yml.
 * - 429: its limiter (botdetection) refused the client (the upstream client counts any 429 as a block).
 * - a bot-verification page (public instances such as searx.be answer one with status 200) or a
 *   Cloudflare challenge: blocked.
 * - 401: HTTP authentication in front of the instance.
 * - results empty while `unresponsive_engines` lists failures: the instance's own engines failed,
 *   which is not a true "no results" (see searxng.provider.ts).
 */
import type { BlockCheckInput } from '../upstream/upstream.types.ts'
import { isUpstreamError, UpstreamError } from '../upstream/upstream-error.ts'

const VERIFY_PAGE = [
  /<title>[^<]*verifying your request/i,
  /src="\/check\/check\d?\.js/i,
  /<title>\s*Just a moment\.\.\.\s*<\/title>/i,
  /challenges\.cloudflare\.com/i,
]

export function detectSearxngBlock(r: BlockCheckInput): { reason: string } | null {
  const head = r.body.slice(0, 20_000)
  if (!head.trimStart().startsWith('{') && VERIFY_PAGE.some((re) => re.test(head))) {
    return { reason: 'the SearXNG instance answered a bot-verification page' }
  }
  return null
}

/** Why the instance refused, for a status it answered with; undefined for statuses with no known meaning. */
export const SEARXNG_STATUS_REASONS: Record<number, { code: 'upstream_error' | 'upstream_blocked'; reason: string }> = {
  401: { code: 'upstream_error', reason: 'the SearXNG instance asks for HTTP authentication; put user:password@ in TRAWL_SEARXNG_URL' },
  403: { code: 'upstream_error', reason: 'the SearXNG instance does not allow format=json; enable it in settings.yml search.formats' },
  404: { code: 'upstream_error', reason: 'no SearXNG search API at TRAWL_SEARXNG_URL (HTTP 404 for /search)' },
  429: {
    code: 'upstream_blocked',
    reason: "the SearXNG instance's limiter refused Trawl; turn server.limiter off or list Trawl's address in botdetection ip_lists.pass_ip",
  },
}

/**
 * A failed fetch again, with the operator's explanation of the instance's answer as its message.
 * The error carries no attempts of its own (the fetch's are already recorded), so the engine layer
 * records this message as the route's reason and it reaches the 503 and `meta.route`.
 */
export function explainSearxngFailure(err: unknown): unknown {
  if (!isUpstreamError(err)) return err
  const status = err.attempts.findLast((a) => a.status !== undefined)?.status
  const known = status === undefined ? undefined : SEARXNG_STATUS_REASONS[status]
  return known ? new UpstreamError(known.code, known.reason, [], err) : err
}
