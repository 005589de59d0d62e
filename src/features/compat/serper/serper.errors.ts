import type { FastifyReply, FastifyRequest } from 'fastify'
import type { ApiError, ErrorCode } from '../../../errors.ts'
import { latencyMs } from '../../../http/billing-headers.ts'

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
  upstream_error: 503,
  upstream_blocked: 503,
  upstream_timeout: 503,
  unavailable: 503,
}

export function serperError(error: ApiError, requestId: string) {
  // Statuses set on purpose (413 body too large, 415 media type) keep their status.
  const status = error.code === 'invalid_request' && error.status !== 400 ? error.status : STATUS[error.code]
  let message = error.message
  if (error.code === 'unauthorized' && message.startsWith('missing API key')) message = 'missing API key: send X-API-KEY: <Trawl API key>'
  if (error.code === 'insufficient_credits') message = `Not enough credits: ${message}`
  return { status, body: { message, statusCode: status, code: error.code, request_id: requestId } }
}

export function sendSerperError(req: FastifyRequest, reply: FastifyReply, error: ApiError) {
  reply.header('x-request-id', req.id)
  if (error.opts.retryAfterSeconds) reply.header('retry-after', String(error.opts.retryAfterSeconds))
  if (req.routeOptions.config?.billed) {
    reply.header('x-credits-used', '0').header('x-cost-usd', '0').header('x-cache', 'MISS')
    reply.header('x-latency-ms', String(latencyMs(req)))
  }
  if (error.status >= 500) req.log.warn({ code: error.code }, `request failed: ${error.message}`)
  const { status, body } = serperError(error, req.id)
  return reply.code(status).type('application/json; charset=utf-8').send(body)
}
