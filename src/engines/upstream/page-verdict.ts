/** How the upstream client judges what one route brought back: an answer, a block, or a failure worth another route. */
import type { RawPage } from './page-hops.ts'
import { BodyTooLargeError, UnsupportedEncodingError } from './response-body.ts'
import type { AttemptOutcome, FetchPageRequest, RouteAttempt } from './upstream.types.ts'
import type { UpstreamErrorCode } from './upstream-error.ts'

export interface Verdict {
  outcome: AttemptOutcome
  reason?: string
  /** False when another route would get the same answer (a 404, an oversized page). */
  retry: boolean
}

export function classify(page: RawPage, req: FetchPageRequest, maxRedirects: number): Verdict {
  if (page.status === 429) return { outcome: 'blocked', reason: 'HTTP 429', retry: true }
  if (page.stopped === 'block') return { outcome: 'blocked', reason: page.blockReason, retry: true }
  const hit = req.detectBlock?.({ status: page.status, url: page.url, body: page.body })
  if (hit) return { outcome: 'blocked', reason: hit.reason, retry: true }
  switch (page.stopped) {
    case 'off-site':
      return { outcome: 'error', reason: 'redirected off the engine site', retry: false }
    case 'too-many':
      return { outcome: 'error', reason: `more than ${maxRedirects} redirects`, retry: false }
    case 'bad-location':
      return { outcome: 'error', reason: 'invalid redirect location', retry: false }
  }
  if (page.status >= 200 && page.status < 300) return { outcome: 'ok', retry: false }
  // 5xx, 407 (proxy auth) and 408 may be the proxy's doing; another route can fare better.
  // Any other 4xx is the engine's answer to this URL and would repeat everywhere.
  const routeFault = page.status >= 500 || page.status === 407 || page.status === 408
  return { outcome: 'error', reason: `HTTP ${page.status}`, retry: routeFault }
}

/**
 * Blocked outranks timeout, which outranks error: engine=auto falls back on the first two, and a
 * block seen anywhere is the most useful thing to tell the client. A non-retryable failure is
 * the definitive answer and reported as upstream_error.
 */
export function errorCode(attempts: RouteAttempt[], final: boolean): UpstreamErrorCode {
  if (final) return 'upstream_error'
  if (attempts.some((a) => a.outcome === 'blocked')) return 'upstream_blocked'
  if (attempts.length === 0 || attempts.some((a) => a.outcome === 'timeout')) return 'upstream_timeout'
  return 'upstream_error'
}

/** undici's timeouts, and ETIMEDOUT: impit's (impit-transport.ts maps its errors to these codes). */
const TIMEOUT_CODES = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'UND_ERR_CONNECT_TIMEOUT', 'ETIMEDOUT'])

/** Reasons carry an error code at most: messages can name mapped addresses or proxy hosts. */
export function failureVerdict(err: unknown, deadlineHit: boolean): Verdict {
  const code = (err as { code?: unknown } | null)?.code
  if (deadlineHit || (typeof code === 'string' && TIMEOUT_CODES.has(code))) {
    return { outcome: 'timeout', reason: 'no answer before the deadline', retry: true }
  }
  if (err instanceof BodyTooLargeError) return { outcome: 'error', reason: err.message, retry: false }
  if (err instanceof UnsupportedEncodingError) return { outcome: 'error', reason: err.message, retry: false }
  if (typeof code !== 'string' || !/^[A-Z0-9_]+$/.test(code)) return { outcome: 'error', reason: 'connection failed', retry: true }
  // Another route (a proxy) may still get through, so each of these is retried elsewhere.
  const what = DNS_CODES.has(code) ? 'DNS lookup failed' : TLS_CODE.test(code) ? 'TLS handshake failed' : 'connection failed'
  return { outcome: 'error', reason: `${what} (${code})`, retry: true }
}

const DNS_CODES = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_NONAME'])
/** Node's and OpenSSL's TLS failure codes, and impit's mapped ones (EPROTO, ERR_TLS_CERT_INVALID). */
const TLS_CODE = /^(EPROTO$|ERR_TLS_|ERR_SSL_|CERT_|DEPTH_ZERO_SELF_SIGNED_CERT$|SELF_SIGNED_CERT_IN_CHAIN$|UNABLE_TO_(GET|VERIFY)_)/
