import type { FastifyInstance } from 'fastify'
import type { ErrorCode } from '../../errors.ts'

/**
 * How a tool reaches the API: every tool call is one (or, while waiting on a crawl or batch, a few)
 * ordinary REST calls on the caller's key, so metering, rate limits, logs and errors are the REST
 * API's own. Over HTTP the call is an in-process `app.inject` carrying the caller's Authorization
 * header; over stdio it is a real HTTP request to the server `trawl mcp` was pointed at.
 */
export interface ApiRequest {
  method: 'GET' | 'POST' | 'DELETE'
  /** Path with its query string, e.g. /v1/crawl/abc or /v1/monitors/x/runs?limit=5. */
  path: string
  body?: unknown
}

export interface ApiReply {
  status: number
  body: unknown
  /** X-Request-Id of the REST call: what the API's log and the caller's bill name it by. */
  requestId: string | null
  retryAfterSeconds: number | null
  creditsUsed: number | null
  creditsRemaining: number | null
  cache: 'HIT' | 'MISS' | null
}

export type CallApi = (req: ApiRequest) => Promise<ApiReply>

/** A REST error (or a tool-side refusal with the same codes): what an MCP tool error carries. */
export class ToolError extends Error {
  constructor(
    readonly code: ErrorCode | string,
    message: string,
    readonly details: { status?: number; retryAfterSeconds?: number | null; requestId?: string | null } = {},
  ) {
    super(message)
  }
}

/** Throws the API's error (code, message, Retry-After, request id) unless the reply is a success. */
export function expectOk(reply: ApiReply): ApiReply {
  if (reply.status >= 200 && reply.status < 300) return reply
  const error = (reply.body as { error?: { code?: string; message?: string } } | null)?.error
  throw new ToolError(error?.code ?? 'internal', error?.message ?? `the API answered HTTP ${reply.status}`, {
    status: reply.status,
    retryAfterSeconds: reply.retryAfterSeconds,
    requestId: reply.requestId,
  })
}

type Headers = Record<string, string | string[] | number | undefined>

function replyOf(status: number, headers: Headers, text: string): ApiReply {
  const header = (name: string) => {
    const v = headers[name]
    return v === undefined ? null : String(Array.isArray(v) ? v[0] : v)
  }
  const number = (name: string) => {
    const v = header(name)
    return v === null || v === '' || !Number.isFinite(Number(v)) ? null : Number(v)
  }
  let body: unknown = null
  if (text) {
    try {
      body = JSON.parse(text)
    } catch {
      body = text
    }
  }
  const cache = header('x-cache')
  return {
    status,
    body,
    requestId: header('x-request-id'),
    retryAfterSeconds: number('retry-after'),
    creditsUsed: number('x-credits-used'),
    creditsRemaining: number('x-credits-remaining'),
    cache: cache === 'HIT' || cache === 'MISS' ? cache : null,
  }
}

const USER_AGENT = 'trawl-mcp/1.0'

/**
 * REST calls answered in this process by the app's own routes, with the caller's Authorization
 * header: the route's auth hook resolves the key and counts the rate limit exactly as for a
 * request from outside (the /mcp endpoint itself does not count, so a tool call counts once).
 */
export function injectApi(app: FastifyInstance, authorization: string): CallApi {
  return async ({ method, path, body }) => {
    const res = await app.inject({
      method,
      url: path,
      headers: {
        authorization,
        'user-agent': USER_AGENT,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
    })
    return replyOf(res.statusCode, res.headers as Headers, res.payload)
  }
}

/** REST calls to a Trawl server over HTTP (`trawl mcp` over stdio), with the API key the command found. */
export function fetchApi(baseUrl: string, apiKey: string, opts: { timeoutMs: number; userAgent?: string }): CallApi {
  const base = baseUrl.replace(/\/+$/, '')
  return async ({ method, path, body }) => {
    let res: Response
    try {
      res = await fetch(`${base}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${apiKey}`,
          'user-agent': opts.userAgent ?? USER_AGENT,
          accept: 'application/json',
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(opts.timeoutMs),
      })
    } catch (e) {
      const err = e as Error
      if (err.name === 'TimeoutError') {
        throw new ToolError('upstream_timeout', `the Trawl server at ${base} did not answer within ${Math.round(opts.timeoutMs / 1000)} s`, {
          retryAfterSeconds: 5,
        })
      }
      throw new ToolError('unavailable', `could not reach the Trawl server at ${base} (set by --url, TRAWL_URL or trawl login): ${causeOf(err)}`, {
        retryAfterSeconds: 5,
      })
    }
    const headers: Headers = {}
    res.headers.forEach((value, name) => {
      headers[name] = value
    })
    return replyOf(res.status, headers, await res.text())
  }
}

function causeOf(err: Error): string {
  const cause = (err as { cause?: { code?: string; message?: string } }).cause
  return cause?.code ?? cause?.message ?? err.message
}
