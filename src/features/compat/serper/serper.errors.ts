import type { ErrorCode } from '../../../errors.ts'
import type { ErrorShape } from '../../../http/error-reply.ts'

/**
 * Trawl's errors in Serper's shape and status codes: `{message, statusCode}` (plus Trawl's code and
 * the request id). Serper answers a refused key with 403 and an exhausted balance with 400, so
 * clients written against it see the statuses they already handle.
 */
const STATUS: Record<ErrorCode, number> = {
  invalid_request: 400,
  unauthorized: 403,
  // Serper: 400 "Not enough credits"; every credit limit is one.
  insufficient_credits: 400,
  key_limit_reached: 400,
  spend_cap_reached: 400,
  forbidden: 403,
  not_found: 404,
  rate_limited: 429,
  daily_limit_reached: 429,
  internal: 500,
  not_configured: 501,
  upstream_error: 503,
  upstream_blocked: 503,
  upstream_timeout: 503,
  unavailable: 503,
}

/** Status and body of a Trawl error as Serper would answer it; sendError does the rest. */
export const serperEnvelope: ErrorShape = (error, requestId) => {
  // Statuses set on purpose (413 body too large, 415 media type) keep their status.
  const status = error.code === 'invalid_request' && error.status !== 400 ? error.status : STATUS[error.code]
  let message = error.message
  if (error.code === 'unauthorized' && message.startsWith('missing API key')) message = 'missing API key: send X-API-KEY: <Trawl API key>'
  if (error.code === 'insufficient_credits') message = `Not enough credits: ${message}`
  return { status, body: { message, statusCode: status, code: error.code, request_id: requestId } }
}
