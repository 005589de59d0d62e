import type { ErrorCode } from '../../../errors.ts'
import type { ErrorShape } from '../../../http/error-reply.ts'

/**
 * Trawl's errors in Firecrawl's shape and status codes: `{success: false, code?, error}`, the body
 * Firecrawl's SDKs read `error` from. Statuses are the ones Firecrawl answers for the same cause;
 * `details` keeps Trawl's own code and the request id (the SDK passes it on as SdkError.details).
 */
const FIRECRAWL: Record<ErrorCode, { status: number; code?: string }> = {
  invalid_request: { status: 400, code: 'BAD_REQUEST' },
  unauthorized: { status: 401 },
  insufficient_credits: { status: 402 },
  // Firecrawl answers every credit limit with 402 Payment Required.
  key_limit_reached: { status: 402 },
  spend_cap_reached: { status: 402 },
  forbidden: { status: 403 },
  not_found: { status: 404 },
  rate_limited: { status: 429 },
  daily_limit_reached: { status: 429 },
  internal: { status: 500, code: 'UNKNOWN_ERROR' },
  // No model for json/extract: a self-hosted Firecrawl without one fails too; 501 says it is the set-up.
  not_configured: { status: 501 },
  // A page that could not be fetched: Firecrawl's SCRAPE_SITE_ERROR family; 503 keeps Trawl's Retry-After meaning.
  upstream_error: { status: 503, code: 'SCRAPE_SITE_ERROR' },
  upstream_blocked: { status: 503, code: 'SCRAPE_ALL_ENGINES_FAILED' },
  // Firecrawl's own timeout answer.
  upstream_timeout: { status: 408, code: 'SCRAPE_TIMEOUT' },
  unavailable: { status: 503 },
}

/** Status and body of a Trawl error as Firecrawl would answer it; sendError does the rest. */
export const firecrawlEnvelope: ErrorShape = (error, requestId) => {
  const mapped = FIRECRAWL[error.code]
  // Statuses set on purpose (413 body too large, 415 media type) keep their status.
  const status = error.status !== 400 && error.code === 'invalid_request' ? error.status : mapped.status
  const code = error.status === 400 && /not valid JSON/.test(error.message) ? 'BAD_REQUEST_INVALID_JSON' : mapped.code
  return {
    status,
    body: { success: false as const, ...(code && { code }), error: error.message, details: { code: error.code, request_id: requestId } },
  }
}
