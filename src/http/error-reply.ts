import type { FastifyReply, FastifyRequest } from 'fastify'
import { attemptsOf } from '../engines/upstream/upstream-error.ts'
import type { ApiError } from '../errors.ts'

/** What one API shape makes of an error: the status its clients expect, its body, headers of its own. */
export interface ErrorEnvelope {
  status: number
  body: unknown
  headers?: Record<string, string>
}

/** An API shape's errors: Trawl's own envelope, or a compatible vendor's (docs/compat.md). */
export type ErrorShape = (error: ApiError, requestId: string) => ErrorEnvelope

/** Trawl's own envelope, `{error: {code, message, request_id}}`, at the code's status (errors.ts). */
export const trawlEnvelope: ErrorShape = (error, requestId) => ({ status: error.status, body: error.toBody(requestId) })

/** The caller's balance in credits, for X-Credits-Remaining on a failed billed call (null: unknown). */
export type CreditsRemaining = (accountId: string) => Promise<number | null>

/**
 * The one way an ApiError becomes an answer, whatever the shape: X-Request-Id, Retry-After, the
 * billing headers at zero on billed routes, the log line for 5xx causes; the shape gives only the
 * status and the body. X-Credits-Remaining comes from the function registerErrorHandling set on
 * the app (absent on the metrics server).
 */
export async function sendError(req: FastifyRequest, reply: FastifyReply, error: ApiError, shape: ErrorShape = trawlEnvelope) {
  // Also set here: errors raised before the onRequest hook (bad URLs) never ran it.
  reply.header('x-request-id', req.id)
  if (error.opts.retryAfterSeconds) reply.header('retry-after', String(error.opts.retryAfterSeconds))
  const envelope = shape(error, req.id)
  for (const [name, value] of Object.entries(envelope.headers ?? {})) reply.header(name, value)
  // Serialised once: its length is the token estimate below, and it is what is sent.
  const body = JSON.stringify(envelope.body)
  if (req.routeOptions.config?.billed) {
    // A failed call on a billed endpoint carries the billing headers, at 0 (docs/api-reference.md).
    reply.header('x-credits-used', '0').header('x-cost-usd', '0').header('x-cache', 'MISS')
    reply.header('x-latency-ms', String(req.startedAt === undefined ? 0 : Math.round(performance.now() - req.startedAt)))
    // About four characters a token: an error body is too small to load the tokenizer for.
    reply.header('x-tokens-estimate', String(Math.ceil(body.length / 4)))
    // Once the caller is known; not for 429s, so that a flood of them reads nothing.
    const accountId = (req as { auth?: { accountId?: string } }).auth?.accountId
    const creditsRemaining = req.server.creditsRemaining
    if (creditsRemaining && accountId && error.code !== 'rate_limited') {
      const remaining = await creditsRemaining(accountId).catch(() => null)
      if (remaining != null) reply.header('x-credits-remaining', String(remaining))
    }
  }
  // Operators need the attempts (proxy, status, outcome) to see why an engine failed.
  if (error.status >= 500) req.log.warn({ code: error.code, route: attemptsOf(error) }, `request failed: ${error.message}`)
  return reply.code(envelope.status).type('application/json; charset=utf-8').send(body)
}
