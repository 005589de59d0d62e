import { STATUS_CODES } from 'node:http'
import type { Socket } from 'node:net'
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { ApiError } from '../errors.ts'
import { isOutage } from '../store/outage.ts'
import { type CreditsRemaining, type ErrorShape, sendError, trawlEnvelope } from './error-reply.ts'
import { withoutPrototypes } from './parse-input.ts'

/** Fastify's own errors (URL, body parsing, limits) mapped onto the API's error codes (errors.ts); anything unknown is `internal`. */
export function toApiError(err: unknown, req: FastifyRequest): ApiError {
  if (err instanceof ApiError) return err
  const e = err as FastifyError
  switch (e.code) {
    case 'FST_ERR_BAD_URL':
      return new ApiError('invalid_request', 'the URL path is not valid percent-encoding: % must be followed by two hex digits')
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return new ApiError('invalid_request', 'a path segment is too long to be an id')
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ApiError('invalid_request', 'request body is too large', { status: 413 })
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new ApiError('invalid_request', 'send the body as Content-Type: application/json', { status: 415 })
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new ApiError('invalid_request', 'body is not valid JSON')
  }
  if (e.statusCode && e.statusCode >= 400 && e.statusCode < 500) {
    return new ApiError('invalid_request', e instanceof SyntaxError ? 'body is not valid JSON' : e.message)
  }
  // The database or Redis is down or restarting: the caller retries, nothing is broken.
  if (isOutage(err)) {
    req.log.debug({ err }, 'database or redis unavailable')
    return new ApiError('unavailable', 'the service is briefly unavailable (database or cache not answering); retry in a few seconds', {
      retryAfterSeconds: 5,
    })
  }
  req.log.error({ err }, 'unexpected error')
  return new ApiError('internal', 'internal error; it has been logged, please retry with backoff')
}

export function registerErrorHandling(app: FastifyInstance, opts: { creditsRemaining?: CreditsRemaining } = {}) {
  // Decorated before any feature registers: every scope's sendError reads it, compatible shapes' too.
  app.decorate('creditsRemaining', opts.creditsRemaining ?? null)
  recordRouteMethods(app)
  answerErrorsWith(app, trawlEnvelope)
  acceptEmptyJsonBodies(app)
}

/**
 * Every error of `scope` and every path no route of it takes, answered by sendError in `shape`:
 * the app in Trawl's envelope, each compatible API's scope in its vendor's. `notFoundHint` is
 * appended to the 404 message.
 */
export function answerErrorsWith(scope: FastifyInstance, shape: ErrorShape, notFoundHint = '') {
  scope.setErrorHandler((err, req, reply) => sendError(req, reply, toApiError(err, req), shape))
  scope.setNotFoundHandler((req, reply) => sendError(req, reply, noRouteError(req, reply, notFoundHint), shape))
}

/**
 * The error for a request no route took. A path that is a route under other methods (GET on
 * POST /v1/webpage) is 405 invalid_request with `Allow` and a hint, not 404: the caller has the
 * right URL and the wrong method. Anything else is 404 not_found, `notFoundHint` appended. Every
 * not-found handler answers through it: the app's, and each compatible API's in its own shape.
 */
export function noRouteError(req: FastifyRequest, reply: FastifyReply, notFoundHint = ''): ApiError {
  const path = req.url.split('?')[0] || '/'
  const allowed = req.server.routeMethods?.(path) ?? []
  if (allowed.length === 0 || allowed.includes(req.method)) return new ApiError('not_found', `no route ${req.method} ${path}${notFoundHint}`)
  reply.header('allow', allowed.join(', '))
  const methods = allowed.filter((m) => m !== 'HEAD')
  const takes = methods.length === 1 ? `${methods[0]} only` : methods.join(', ')
  const hint = methods.includes('POST') ? '; send the parameters as a JSON body with Content-Type: application/json' : ''
  return new ApiError('invalid_request', `${req.method} ${path} is not allowed: this route takes ${takes}${hint} (API reference: /docs)`, {
    status: 405,
  })
}

/**
 * Every route's path and methods, recorded as routes are added (this runs before any feature
 * registers its routes), for noRouteError. OPTIONS routes (CORS preflight answers every path) and
 * the operator API (which does not exist without TRAWL_ADMIN_TOKEN) are left out: they stay 404.
 */
function recordRouteMethods(app: FastifyInstance) {
  const routes: { pattern: RegExp; methods: string[] }[] = []
  app.addHook('onRoute', (route) => {
    const methods = [route.method].flat().filter((m) => m !== 'OPTIONS')
    if (methods.length === 0 || route.config?.auth === 'admin') return
    routes.push({ pattern: routePattern(route.url ?? route.path), methods })
  })
  app.decorate('routeMethods', (path: string) => {
    const found = new Set<string>()
    for (const route of routes) if (route.pattern.test(path)) for (const m of route.methods) found.add(m)
    if (found.has('GET')) found.add('HEAD')
    return ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'].filter((m) => found.has(m))
  })
}

/** A route's URL (`/v1/crawl/:id`, `/app/*`) as a regular expression over request paths; a trailing slash is optional (ignoreTrailingSlash). */
function routePattern(url: string): RegExp {
  const segments = url.replace(/\/+$/, '').split('/')
  const source = segments.map((seg) => (seg === '*' ? '.*' : seg.startsWith(':') ? '[^/]+' : seg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))).join('/')
  return new RegExp(`^${source}/?$`)
}

/**
 * An empty body under `Content-Type: application/json` is no body, not a 400: many clients send
 * that header on every request, so DELETE /v1/crawl/{id} or POST /v1/monitors/{id}/run would
 * otherwise fail for them. Routes that need a body then name what is missing ("q is required").
 * Anything else goes through Fastify's own parser, keeping its __proto__ and constructor checks,
 * and its objects lose their prototype (withoutPrototypes).
 */
function acceptEmptyJsonBodies(app: FastifyInstance) {
  const { onProtoPoisoning = 'error', onConstructorPoisoning = 'error' } = app.initialConfig
  const parseJson = app.getDefaultJsonParser(onProtoPoisoning, onConstructorPoisoning)
  app.removeContentTypeParser('application/json')
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body, done) => {
    if (body.length === 0) return done(null, undefined)
    return parseJson(req, body as string, (err, value) => done(err, err ? undefined : withoutPrototypes(value)))
  })
}

/** Fastify's `frameworkErrors`: errors found while routing (bad percent-encoding, overlong ids), before any hook. */
export function frameworkErrors(err: FastifyError, req: FastifyRequest, reply: FastifyReply) {
  return sendError(req, reply, toApiError(err, req))
}

/**
 * Fastify's `clientErrorHandler`: requests Node's HTTP parser refuses (headers or URL over the
 * size limit, broken request lines) get the envelope too. Written to the socket by hand because
 * there is no request object; the raw packet (which may hold a key) is never logged.
 */
export function clientErrorHandler(newRequestId: () => string) {
  return function onClientError(this: FastifyInstance, err: NodeJS.ErrnoException, socket: Socket) {
    if (err.code === 'ECONNRESET' || socket.destroyed) return
    const error =
      err.code === 'HPE_HEADER_OVERFLOW'
        ? new ApiError('invalid_request', 'URL and headers are too large (16 KB at most); send long values in a POST body', { status: 431 })
        : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
          ? new ApiError('invalid_request', 'the request took too long to arrive', { status: 408 })
          : new ApiError('invalid_request', 'malformed HTTP request')
    const id = newRequestId()
    this.log.debug({ code: err.code, request_id: id }, `client error: ${error.message}`)
    const status = `HTTP/1.1 ${error.status} ${STATUS_CODES[error.status]}\r\nX-Request-Id: ${id}\r\nConnection: close\r\n`
    if (socket.writable) {
      if (mayBeHead((err as { rawPacket?: unknown }).rawPacket)) {
        socket.write(`${status}\r\n`)
      } else {
        const body = JSON.stringify(error.toBody(id))
        socket.write(`${status}Content-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`)
      }
    }
    socket.destroy()
  }
}

/**
 * Whether the refused request is a HEAD, whose answer has no body: a body after it would be read
 * by a keep-alive client as the start of its next answer. Node hands over only the packet it was
 * parsing when it gave up; a HEAD request line in it means no body. When the request line is not in
 * it (a request too large for one packet), the method is unknown and the envelope is sent, as any
 * GET or POST client expects; the connection is closed after it either way.
 */
function mayBeHead(rawPacket: unknown): boolean {
  if (!Buffer.isBuffer(rawPacket)) return false
  const text = rawPacket.toString('latin1')
  return text.startsWith('HEAD ') || text.includes('\r\nHEAD ')
}
