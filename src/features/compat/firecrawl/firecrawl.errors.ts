import type { ErrorCode } from '../../../errors.ts'
import type { ErrorShape } from '../../../http/error-reply.ts'

/**
 * Trawl's errors in Firecrawl's shape and status codes: `{success: false, code?, error}`, the body
 * Firecrawl's SDKs read `error` from. A status differs from Trawl's (src/errors.ts) only where
 * Firecrawl answers the same cause with another; 501 not_configured (no model for json/extract)
 * stays, as a self-hosted Firecrawl without one fails too. `details` keeps Trawl's own code and the
 * request id (the SDK passes it on as SdkError.details).
 */
const FIRECRAWL_STATUS: Partial<Record<ErrorCode, number>> = {
  // Firecrawl answers every credit limit with 402 Payment Required.
  key_limit_reached: 402,
  spend_cap_reached: 402,
  // Firecrawl's own timeout answer.
  upstream_timeout: 408,
}

/** Firecrawl's `code` for the causes it names. */
const FIRECRAWL_CODE: Partial<Record<ErrorCode, string>> = {
  invalid_request: 'BAD_REQUEST',
  internal: 'UNKNOWN_ERROR',
  // A page that could not be fetched: Firecrawl's SCRAPE_SITE_ERROR family; 503 keeps Trawl's Retry-After meaning.
  upstream_error: 'SCRAPE_SITE_ERROR',
  upstream_blocked: 'SCRAPE_ALL_ENGINES_FAILED',
  upstream_timeout: 'SCRAPE_TIMEOUT',
}

/** Status and body of a Trawl error as Firecrawl would answer it; sendError does the rest. */
export const firecrawlEnvelope: ErrorShape = (error, requestId) => {
  // Statuses set on purpose (413 body too large, 415 media type) keep their status.
  const status = FIRECRAWL_STATUS[error.code] ?? error.status
  const code = error.status === 400 && /not valid JSON/.test(error.message) ? 'BAD_REQUEST_INVALID_JSON' : FIRECRAWL_CODE[error.code]
  return {
    status,
    body: { success: false as const, ...(code && { code }), error: error.message, details: { code: error.code, request_id: requestId } },
  }
}
