import { WebhookVerificationError } from './errors.ts'
import type { Schemas } from './types.ts'

/**
 * Webhook verification with WebCrypto only (`crypto.subtle`: Node 20, Deno, Bun, workers and
 * browsers in a secure context). Both schemes the server sends on every delivery are understood:
 *
 * - Trawl's own: `X-Trawl-Signature: v1=<hex HMAC-SHA256>` keyed with the secret string exactly
 *   as shown (`whsec_…`), over `<X-Trawl-Timestamp>.<raw body>`.
 * - Standard Webhooks: `webhook-signature: v1,<base64 HMAC-SHA256>` (space-separated list) keyed
 *   with the base64-decoded part after `whsec_`, over `<webhook-id>.<webhook-timestamp>.<raw body>`.
 *
 * Signatures are checked with `crypto.subtle.verify`, which compares in constant time.
 */

/** A delivery's headers: a fetch `Headers`, Node's `req.headers`, or any plain object (case-insensitive). */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>

export interface VerifyWebhookOptions {
  /** Largest accepted distance between the signed timestamp and now, in seconds (default 300). */
  toleranceSeconds?: number
  /** Which signature to check: `auto` (default) checks X-Trawl-Signature when sent, otherwise the Standard Webhooks one. */
  scheme?: 'auto' | 'trawl' | 'standard'
  /** The current time in milliseconds (tests). */
  now?: number
}

export type WebhookEventName = 'batch.completed' | 'crawl.completed' | 'monitor.results' | 'research.completed' | 'webhook.test'

/** batch.completed: one per finished job. */
export interface BatchCompletedEvent {
  event: 'batch.completed'
  id: string
  status: 'done' | 'failed'
  endpoint: string
  created_at: string
  completed_at: string
  credits_used: number
  /** The realtime endpoint's body (status done). */
  result?: unknown
  /** Why the job failed (status failed; refunded). */
  error?: { code: string; message: string }
}

/** crawl.completed: the crawl ended; fetch the pages from `poll_url` (GET /v1/crawl/{id}). */
export interface CrawlCompletedEvent {
  event: 'crawl.completed'
  id: string
  status: Exclude<Schemas['CrawlTask']['status'], 'queued' | 'running'>
  created_at: string
  completed_at: string
  credits_used: number
  stats: Record<string, unknown>
  error: { code: string; message: string } | null
  poll_url: string
}

/** research.completed: the research job ended; fetch the report and sources from `poll_url` (GET /v1/research/{id}). */
export interface ResearchCompletedEvent {
  event: 'research.completed'
  id: string
  status: Exclude<Schemas['ResearchTask']['status'], 'queued' | 'running'>
  created_at: string
  completed_at: string
  credits_used: number
  error: { code: string; message: string } | null
  poll_url: string
}

/** monitor.results: a run found something new. */
export interface MonitorResultsEvent {
  event: 'monitor.results'
  id: string
  monitor_id: string
  name: string
  endpoint: Schemas['Monitor']['endpoint']
  request: Record<string, unknown>
  metadata: Record<string, unknown> | null
  first_run: boolean
  new_results: number
  results: Record<string, unknown>[]
  credits_used: number
  due_at: string
  created_at: string
  runs_url: string
}

/** webhook.test: the dashboard's "send test event". */
export interface WebhookTestEvent {
  event: 'webhook.test'
  id: string
  created_at: string
  message: string
}

export type WebhookEvent = BatchCompletedEvent | CrawlCompletedEvent | MonitorResultsEvent | ResearchCompletedEvent | WebhookTestEvent

export interface VerifiedWebhook<E = WebhookEvent> {
  /** The parsed body. */
  payload: E
  /** The delivery id (X-Trawl-Delivery / webhook-id): the same on every retry, to deduplicate on. */
  id: string | undefined
  /** The event name from X-Trawl-Event, or the body's `event`. */
  event: WebhookEventName | string
  /** The signed Unix time, in seconds. */
  timestamp: number
  scheme: 'trawl' | 'standard'
}

const SECRET_PREFIX = 'whsec_'
const encoder = new TextEncoder()

/**
 * Checks a delivery's signature and timestamp and returns the parsed body; throws
 * WebhookVerificationError otherwise. Pass the raw body exactly as received (string or bytes),
 * never a re-serialized object.
 */
export async function verifyWebhook<E = WebhookEvent>(
  rawBody: string | Uint8Array | ArrayBuffer,
  headers: WebhookHeaders,
  secret: string,
  options: VerifyWebhookOptions = {},
): Promise<VerifiedWebhook<E>> {
  if (typeof secret !== 'string' || secret.length === 0) throw new WebhookVerificationError('no webhook secret given')
  const header = headerReader(headers)
  const body = typeof rawBody === 'string' ? encoder.encode(rawBody) : rawBody instanceof Uint8Array ? rawBody : new Uint8Array(rawBody)
  const scheme = options.scheme ?? 'auto'
  const useTrawl = scheme === 'trawl' || (scheme === 'auto' && header('x-trawl-signature') !== undefined)

  let timestamp: number
  let id: string | undefined
  if (useTrawl) {
    const signature = header('x-trawl-signature')
    const ts = header('x-trawl-timestamp')
    if (!signature || !ts) throw new WebhookVerificationError('missing X-Trawl-Signature or X-Trawl-Timestamp header')
    timestamp = parseTimestamp(ts)
    checkTolerance(timestamp, options)
    const hex = /^v1=([0-9a-f]{64})$/i.exec(signature.trim())?.[1]
    if (!hex) throw new WebhookVerificationError('X-Trawl-Signature is not v1=<hex HMAC-SHA256>')
    const key = await hmacKey(encoder.encode(secret))
    const ok = await crypto.subtle.verify('HMAC', key, hexBytes(hex), concat(encoder.encode(`${ts}.`), body))
    if (!ok) throw new WebhookVerificationError('signature mismatch')
    id = header('x-trawl-delivery') ?? header('webhook-id')
  } else {
    const signature = header('webhook-signature')
    const ts = header('webhook-timestamp')
    id = header('webhook-id')
    if (!signature || !ts || !id) throw new WebhookVerificationError('missing webhook-id, webhook-timestamp or webhook-signature header')
    timestamp = parseTimestamp(ts)
    checkTolerance(timestamp, options)
    const key = await hmacKey(standardKey(secret))
    const signed = concat(encoder.encode(`${id}.${ts}.`), body)
    let ok = false
    for (const part of signature.split(' ')) {
      const [version, value] = part.split(',', 2)
      if (version !== 'v1' || !value) continue
      const bytes = base64Bytes(value)
      // Every listed signature is checked, so the time taken does not tell which one matched.
      if (bytes && (await crypto.subtle.verify('HMAC', key, bytes, signed))) ok = true
    }
    if (!ok) throw new WebhookVerificationError('signature mismatch')
  }

  let payload: E
  try {
    payload = JSON.parse(new TextDecoder().decode(body)) as E
  } catch {
    throw new WebhookVerificationError('the body is not JSON')
  }
  const bodyEvent = (payload as { event?: unknown } | null)?.event
  const event = header('x-trawl-event') ?? (typeof bodyEvent === 'string' ? bodyEvent : '')
  return { payload, id, event, timestamp, scheme: useTrawl ? 'trawl' : 'standard' }
}

function headerReader(headers: WebhookHeaders): (name: string) => string | undefined {
  if (typeof (headers as Headers).get === 'function' && typeof (headers as Headers).has === 'function') {
    const h = headers as Headers
    return (name) => h.get(name) ?? undefined
  }
  const lower = new Map<string, string>()
  for (const [name, value] of Object.entries(headers as Record<string, string | string[] | undefined>)) {
    if (value === undefined) continue
    lower.set(name.toLowerCase(), Array.isArray(value) ? value.join(', ') : String(value))
  }
  return (name) => lower.get(name)
}

function parseTimestamp(text: string): number {
  if (!/^\d{1,12}$/.test(text.trim())) throw new WebhookVerificationError('the timestamp header is not Unix seconds')
  return Number(text.trim())
}

function checkTolerance(timestamp: number, options: VerifyWebhookOptions) {
  const tolerance = options.toleranceSeconds ?? 300
  const now = Math.floor((options.now ?? Date.now()) / 1000)
  if (timestamp < now - tolerance) throw new WebhookVerificationError('the timestamp is too old')
  if (timestamp > now + tolerance) throw new WebhookVerificationError('the timestamp is too far in the future')
}

function hmacKey(raw: Uint8Array): Promise<CryptoKey> {
  return crypto.subtle.importKey('raw', raw as BufferSource, { name: 'HMAC', hash: 'SHA-256' }, false, ['verify'])
}

/** Standard Webhooks keys: the base64 after `whsec_`. */
function standardKey(secret: string): Uint8Array {
  const bytes = base64Bytes(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret)
  if (!bytes || bytes.length === 0) throw new WebhookVerificationError('the secret is not whsec_<base64>')
  return bytes
}

function hexBytes(hex: string): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(hex.length / 2)
  for (let i = 0; i < out.length; i++) out[i] = Number.parseInt(hex.slice(i * 2, i * 2 + 2), 16)
  return out
}

function base64Bytes(text: string): Uint8Array<ArrayBuffer> | undefined {
  try {
    const binary = atob(text.replace(/-/g, '+').replace(/_/g, '/'))
    const out = new Uint8Array(binary.length)
    for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i)
    return out
  } catch {
    return undefined
  }
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(a.length + b.length)
  out.set(a, 0)
  out.set(b, a.length)
  return out
}
