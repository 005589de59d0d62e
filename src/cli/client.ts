import { readFileSync } from 'node:fs'
import { srcFile } from '../paths.ts'
import type { Connection } from './config-file.ts'

/** HTTP calls of the client commands: JSON in, JSON or Markdown out, the API's errors as ApiCallError. */

export const VERSION: string = (JSON.parse(readFileSync(srcFile('../package.json'), 'utf8')) as { version: string }).version

/** An error answer of the API: its code and message are what the user sees (stderr, exit code 1). */
export class ApiCallError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly status: number,
    readonly requestId: string | null = null,
    readonly retryAfterSeconds: number | null = null,
  ) {
    super(message)
  }
}

/** The server could not be reached at all. */
export class ConnectionError extends Error {}

export interface Reply<T = unknown> {
  status: number
  /** Parsed JSON, or the text of a text/markdown answer. */
  body: T
  headers: Headers
}

export interface CallOptions {
  /** Whole-call deadline; searches reading pages and long extracts take a while. */
  timeoutMs?: number
}

const DEFAULT_TIMEOUT_MS = 180_000

export async function callApi<T = any>(
  conn: Connection,
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
  path: string,
  body?: unknown,
  opts: CallOptions = {},
): Promise<Reply<T>> {
  let res: Response
  try {
    res = await fetch(`${conn.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${conn.key}`,
        'user-agent': `trawl-cli/${VERSION}`,
        accept: 'application/json, text/markdown',
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(opts.timeoutMs ?? DEFAULT_TIMEOUT_MS),
    })
  } catch (err) {
    const cause = (err as { cause?: { code?: string; message?: string } }).cause
    const why = (err as Error).name === 'TimeoutError' ? 'no answer in time' : (cause?.code ?? cause?.message ?? (err as Error).message)
    throw new ConnectionError(`cannot reach ${conn.url}: ${why}`)
  }
  const text = await res.text()
  const isJson = (res.headers.get('content-type') ?? '').includes('json')
  let parsed: unknown = text
  if (isJson && text) {
    try {
      parsed = JSON.parse(text)
    } catch {
      parsed = text
    }
  }
  if (res.ok) return { status: res.status, body: parsed as T, headers: res.headers }
  const error = (parsed as { error?: { code?: string; message?: string; request_id?: string } } | null)?.error
  const retryAfter = Number(res.headers.get('retry-after'))
  throw new ApiCallError(
    error?.code ?? `http_${res.status}`,
    error?.message ?? `the server answered HTTP ${res.status}${isJson ? '' : ' (is this a Trawl server?)'}`,
    res.status,
    res.headers.get('x-request-id') ?? error?.request_id ?? null,
    Number.isFinite(retryAfter) && res.headers.has('retry-after') ? retryAfter : null,
  )
}

/** `trawl: <code>: <message>`, with the retry hint and the request id the server logged it under. */
export function describeApiError(err: ApiCallError): string {
  const retry = err.retryAfterSeconds != null ? ` (retry after ${err.retryAfterSeconds} s)` : ''
  const id = err.requestId ? ` [${err.requestId}]` : ''
  return `${err.code}: ${err.message}${retry}${id}`
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** A GET made again and again while waiting: a 429 or 503 waits for Retry-After (at most 5 times in a row) instead of failing the wait. */
export async function poll<T = any>(conn: Connection, path: string): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return (await callApi<T>(conn, 'GET', path)).body
    } catch (err) {
      const busy = err instanceof ApiCallError && (err.status === 429 || err.status === 503)
      if (!busy || attempt >= 5) throw err
      await sleep(Math.min(30, err.retryAfterSeconds ?? 1) * 1000)
    }
  }
}
