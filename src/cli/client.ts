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
  const parsed = parseBody(res, text)
  if (res.ok) return { status: res.status, body: parsed as T, headers: res.headers }
  throw errorOf(res, parsed)
}

const isJson = (res: Response) => (res.headers.get('content-type') ?? '').includes('json')

function parseBody(res: Response, text: string): unknown {
  if (!isJson(res) || !text) return text
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}

/** An error answer as the user sees it: the envelope's code and message, else the HTTP status. */
function errorOf(res: Response, parsed: unknown): ApiCallError {
  const error = (parsed as { error?: { code?: string; message?: string; request_id?: string } } | null)?.error
  const retryAfter = Number(res.headers.get('retry-after'))
  return new ApiCallError(
    error?.code ?? `http_${res.status}`,
    error?.message ?? `the server answered HTTP ${res.status}${isJson(res) ? '' : ' (is this a Trawl server?)'}`,
    res.status,
    res.headers.get('x-request-id') ?? error?.request_id ?? null,
    Number.isFinite(retryAfter) && res.headers.has('retry-after') ? retryAfter : null,
  )
}

/** One server-sent event as read from a stream: its name, id and data (JSON). */
export interface StreamEvent {
  event: string
  id: string | null
  data: unknown
}

/**
 * Reads a text/event-stream (GET) event by event until it ends, the server closes it, or nothing
 * (not even a keep-alive comment) arrives for `idleMs`. Error answers throw as callApi's do.
 */
export async function* readEvents(conn: Connection, path: string, idleMs = 60_000): AsyncGenerator<StreamEvent> {
  const idle = new AbortController()
  let timer = setTimeout(() => idle.abort(), idleMs)
  const alive = () => {
    clearTimeout(timer)
    timer = setTimeout(() => idle.abort(), idleMs)
  }
  try {
    let res: Response
    try {
      res = await fetch(`${conn.url}${path}`, {
        headers: { authorization: `Bearer ${conn.key}`, 'user-agent': `trawl-cli/${VERSION}`, accept: 'text/event-stream' },
        signal: idle.signal,
      })
    } catch (err) {
      throw new ConnectionError(`cannot reach ${conn.url}: ${(err as { cause?: { code?: string } }).cause?.code ?? (err as Error).message}`)
    }
    if (!res.ok || !res.body) throw errorOf(res, parseBody(res, await res.text()))
    const decoder = new TextDecoder()
    let buffered = ''
    for await (const chunk of res.body) {
      alive()
      buffered += decoder.decode(chunk, { stream: true })
      for (let end = buffered.indexOf('\n\n'); end >= 0; end = buffered.indexOf('\n\n')) {
        const block = buffered.slice(0, end)
        buffered = buffered.slice(end + 2)
        const event = parseEvent(block)
        if (event) yield event
      }
    }
  } finally {
    clearTimeout(timer)
    idle.abort()
  }
}

/** `event:`, `id:` and `data:` lines of one block; comments (keep-alives) give nothing. */
function parseEvent(block: string): StreamEvent | null {
  let event = 'message'
  let id: string | null = null
  const data: string[] = []
  for (const line of block.split('\n')) {
    if (line.startsWith(':') || !line) continue
    const colon = line.indexOf(':')
    const field = colon < 0 ? line : line.slice(0, colon)
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '')
    if (field === 'event') event = value
    else if (field === 'id') id = value
    else if (field === 'data') data.push(value)
  }
  if (data.length === 0) return null
  try {
    return { event, id, data: JSON.parse(data.join('\n')) }
  } catch {
    return null
  }
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
