import type { ErrorCode } from '../../../errors.ts'
import type { ErrorShape } from '../../../http/error-reply.ts'

/**
 * Trawl's errors in Serper's shape and status codes: `{message, statusCode}` (plus Trawl's code and
 * the request id). Serper answers a refused key with 403 and an exhausted balance with 400, so
 * clients written against it see the statuses they already handle; every other status is Trawl's
 * (src/errors.ts).
 */
const SERPER_STATUS: Partial<Record<ErrorCode, number>> = {
  unauthorized: 403,
  // Serper: 400 "Not enough credits"; every credit limit is one.
  insufficient_credits: 400,
  key_limit_reached: 400,
  spend_cap_reached: 400,
}

/** Status and body of a Trawl error as Serper would answer it; sendError does the rest. */
export const serperEnvelope: ErrorShape = (error, requestId) => {
  // Statuses set on purpose (413 body too large, 415 media type) keep their status.
  const status = SERPER_STATUS[error.code] ?? error.status
  let message = error.message
  if (error.code === 'unauthorized' && message.startsWith('missing API key')) message = 'missing API key: send X-API-KEY: <Trawl API key>'
  if (error.code === 'insufficient_credits') message = `Not enough credits: ${message}`
  return { status, body: { message, statusCode: status, code: error.code, request_id: requestId } }
}
