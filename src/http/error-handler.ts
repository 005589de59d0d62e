import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { ApiError } from '../errors.ts'
import { attemptsOf } from '../features/search/engines/upstream/upstream-error.ts'

/** Fastify's own errors (body parsing, limits) mapped onto SPEC codes; anything unknown is `internal`. */
export function toApiError(err: unknown, req: FastifyRequest): ApiError {
  if (err instanceof ApiError) return err
  const e = err as FastifyError
  switch (e.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ApiError('invalid_request', 'request body is too large', { status: 413 })
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new ApiError('invalid_request', 'send the body as Content-Type: application/json', { status: 415 })
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new ApiError('invalid_request', 'body is empty but Content-Type is application/json; send a JSON object')
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new ApiError('invalid_request', 'body is not valid JSON')
  }
  if (e.statusCode && e.statusCode >= 400 && e.statusCode < 500) {
    return new ApiError('invalid_request', e instanceof SyntaxError ? 'body is not valid JSON' : e.message)
  }
  req.log.error({ err }, 'unexpected error')
  return new ApiError('internal', 'internal error; it has been logged, please retry with backoff')
}

export function sendError(req: FastifyRequest, reply: FastifyReply, error: ApiError) {
  if (error.opts.retryAfterSeconds) reply.header('retry-after', String(error.opts.retryAfterSeconds))
  if (req.routeOptions.config?.billed) {
    // SPEC Conventions 8: a failed call on a billed endpoint says it cost nothing.
    reply.header('x-credits-used', '0').header('x-cost-usd', '0').header('x-cache', 'MISS')
    reply.header('x-latency-ms', String(Math.round(performance.now() - req.startedAt)))
  }
  // Operators need the attempts (proxy, status, outcome) to see why an engine failed.
  if (error.status >= 500) req.log.warn({ code: error.code, route: attemptsOf(error) }, `request failed: ${error.message}`)
  return reply.code(error.status).type('application/json; charset=utf-8').send(error.toBody(req.id))
}

export function registerErrorHandling(app: FastifyInstance) {
  app.setErrorHandler((err, req, reply) => sendError(req, reply, toApiError(err, req)))
  app.setNotFoundHandler((req, reply) => sendError(req, reply, new ApiError('not_found', `no route ${req.method} ${req.url.split('?')[0]}`)))
}
