import { lookup as dnsLookup, type LookupAddress } from 'node:dns'
import { isIP } from 'node:net'
import type { Agent, buildConnector, Dispatcher } from 'undici'
import { ApiError } from '../errors.ts'
import { type AddressPolicy, allowAll, BlockedAddressError, PRIVATE_ADDRESS_MESSAGE, publicOnly, stripBrackets } from './address-policy.ts'
import {
  type ContentKind,
  contentCodings,
  DecodedTooLargeError,
  decodeContent,
  decodeText,
  sniffContentKind,
  tooManyCodings,
  unsupportedCoding,
} from './body-decode.ts'
import { undici } from './undici.ts'

export interface SafeFetchOptions {
  allowPrivateNetwork: boolean
  /** Total deadline for all hops, headers and body. */
  timeoutMs: number
  /** Cap on the decoded body; default 10 MB. */
  maxBytes?: number
  maxRedirects?: number
  /** http(s) proxy; the target's address is still checked (by resolving it here first). */
  proxyUrl?: string
  headers?: Record<string, string>
  signal?: AbortSignal
  /**
   * Replaces the private-network rule. For tests only: lets a test allow one loopback server and
   * prove that a redirect to another is refused, without ever sending traffic off the machine.
   */
  addressPolicy?: AddressPolicy
  /**
   * Return 4xx/5xx answers instead of throwing upstream_error, for callers whose rules depend on
   * the status (robots.txt). Their body is discarded, not read: it is returned empty.
   */
  acceptErrorStatus?: boolean
  /**
   * Read 4xx/5xx answers like any page (body, content sniffing, charset) instead of throwing, for
   * callers that report the page with its status (the Firecrawl shape: `metadata.statusCode`).
   */
  readErrorPages?: boolean
  /**
   * Skip the content-type check and decode any body as text: robots.txt and sitemaps arrive as
   * text/html, octet-stream or odder types, and the caller parses the bytes itself.
   */
  anyContentType?: boolean
}

export interface SafeFetchResult {
  /** Final URL after redirects. */
  url: string
  status: number
  headers: Record<string, string>
  contentType: ContentKind
  charset?: string
  body: Buffer
  /** Decoded text for html, xhtml and text. */
  text?: string
}

const DEFAULT_MAX_BYTES = 10 * 1024 * 1024
const DEFAULT_HEADERS = {
  'user-agent': 'Mozilla/5.0 (compatible; Trawl/0.1; self-hosted page reader)',
  accept: 'text/html,application/xhtml+xml,application/pdf;q=0.9,text/plain;q=0.8,*/*;q=0.5',
  'accept-encoding': 'gzip, deflate, br',
  'accept-language': 'en-US,en;q=0.8',
}
const REDIRECTS = new Set([301, 302, 303, 307, 308])

/**
 * Node skips the `lookup` hook for IP-literal hosts, so the connector resolves names itself, judges
 * every address, and then connects to the very address it judged (no second DNS answer to
 * rebind to). TLS still verifies the certificate against the original name via `servername`.
 * Every redirect hop is a new connection and passes through here again.
 */
function guardedConnector(policy: AddressPolicy, timeoutMs: number): buildConnector.connector {
  const base = undici().buildConnector({ timeout: Math.min(timeoutMs, 30_000) })
  return (opts, callback) => {
    const host = stripBrackets(opts.hostname)
    const port = Number(opts.port) || (opts.protocol === 'https:' ? 443 : 80)
    if (isIP(host)) {
      if (!policy({ address: host, port, hostname: host })) {
        return callback(new BlockedAddressError({ address: host, port, hostname: host }), null)
      }
      return base({ ...opts, hostname: host }, callback)
    }
    dnsLookup(host, { all: true }, (err, addresses) => {
      if (err) return callback(err, null)
      // Refuse when any record is private: a name answering both public and private addresses is
      // a rebinding attempt, and a later retry could pick the other one.
      const bad = addresses.find((a) => !policy({ address: a.address, port, hostname: host }))
      if (bad) return callback(new BlockedAddressError({ address: bad.address, port, hostname: host }), null)
      const first = addresses[0]
      if (!first) return callback(Object.assign(new Error(`no address for ${host}`), { code: 'ENOTFOUND' }), null)
      base({ ...opts, hostname: first.address, servername: opts.servername ?? host }, callback)
    })
  }
}

// One agent per policy keeps connections alive across calls; tests' custom policies get their own.
const agents = new Map<AddressPolicy, Agent>()
function agentFor(policy: AddressPolicy, timeoutMs: number): Agent {
  let agent = agents.get(policy)
  if (!agent) {
    agent = new (undici().Agent)({ connect: guardedConnector(policy, timeoutMs), connections: 64 })
    if (policy === publicOnly || policy === allowAll) agents.set(policy, agent)
  }
  return agent
}

/**
 * The same guarded connections for callers that speak HTTP themselves (webhook POSTs, which must
 * not follow redirects): each connection's resolved address is judged exactly as in safeFetch.
 * `release()` closes a pool built for a test's own policy; the shared pools stay open.
 */
export function guardedDispatcher(opts: { allowPrivateNetwork: boolean; timeoutMs: number; addressPolicy?: AddressPolicy }) {
  const policy = opts.addressPolicy ?? (opts.allowPrivateNetwork ? allowAll : publicOnly)
  const dispatcher = agentFor(policy, opts.timeoutMs)
  return {
    dispatcher,
    release: () => {
      if (!agents.has(policy)) void dispatcher.close()
    },
  }
}

/**
 * Through a proxy the proxy opens the connection, so we resolve the target here and judge it;
 * a DNS answer that changes between our lookup and the proxy's is the remaining, documented gap.
 */
async function checkViaDns(url: URL, policy: AddressPolicy): Promise<void> {
  const host = stripBrackets(url.hostname)
  const port = Number(url.port) || (url.protocol === 'https:' ? 443 : 80)
  const addresses = isIP(host)
    ? [{ address: host }]
    : await new Promise<LookupAddress[]>((resolve, reject) => dnsLookup(host, { all: true }, (err, a) => (err ? reject(err) : resolve(a))))
  const bad = addresses.find((a) => !policy({ address: a.address, port, hostname: host }))
  if (bad) throw new BlockedAddressError({ address: bad.address, port, hostname: host })
}

/** An http(s) URL without credentials or fragment, or a 400 naming the problem. */
export function parseHttpUrl(raw: string, base?: URL): URL {
  let url: URL
  try {
    url = new URL(raw, base)
  } catch {
    throw new ApiError('invalid_request', `url is not a valid URL: ${raw.slice(0, 200)}`)
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ApiError('invalid_request', `url must use http or https, not ${url.protocol.replace(':', '')}`)
  }
  if (url.username || url.password) throw new ApiError('invalid_request', 'url must not contain credentials')
  url.hash = ''
  return url
}

/**
 * Where a redirect leads. Only the URL the caller sent can be their mistake (400): a Location we
 * will not follow (another scheme, credentials, garbage) is the page misbehaving, so it is an
 * upstream_error, retried like any other upstream failure.
 */
function redirectTarget(location: string, from: URL): URL {
  let target: URL
  try {
    target = new URL(location, from)
  } catch {
    throw unfollowable(`an invalid URL: ${location.slice(0, 200)}`)
  }
  if (target.protocol !== 'http:' && target.protocol !== 'https:') throw unfollowable(`an unsupported scheme (${target.protocol.replace(':', '')})`)
  if (target.username || target.password) throw unfollowable('a URL with credentials')
  target.hash = ''
  return target
}

/** Client errors a retry can change: timeout, too early, rate limited. */
const TRANSIENT_CLIENT_ERRORS = new Set([408, 425, 429])
/** The wait a page's error status calls for, seconds. */
const PAGE_GONE_RETRY_S = 3600

/**
 * A page that answered 404 or 410 (any client error but the transient ones) will not be there in
 * five seconds: the 503 still carries a Retry-After (as every 503 does), but an hour, so that clients which retry by it
 * (the SDK waits at most a minute; MCP tells the model not to) do not ask again for a dead link.
 */
function retryAfterFor(status: number): number {
  return status < 500 && !TRANSIENT_CLIENT_ERRORS.has(status) ? PAGE_GONE_RETRY_S : 5
}

/** A page that answered an HTTP error status: upstream_error, carrying the status for callers that report it. */
export class PageStatusError extends ApiError {
  constructor(readonly pageStatus: number) {
    super('upstream_error', `page answered HTTP ${pageStatus}`, { retryAfterSeconds: retryAfterFor(pageStatus) })
  }
}

const unfollowable = (what: string) => new ApiError('upstream_error', `page redirected to ${what}`, { retryAfterSeconds: 5 })

function flattenHeaders(h: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [k, v] of Object.entries(h)) if (v !== undefined) out[k] = Array.isArray(v) ? v.join(', ') : v
  return out
}

async function readCapped(body: Dispatcher.ResponseData['body'], maxBytes: number): Promise<Buffer> {
  const chunks: Buffer[] = []
  let total = 0
  for await (const chunk of body) {
    total += (chunk as Buffer).length
    if (total > maxBytes) {
      discard(body)
      throw tooLarge(maxBytes)
    }
    chunks.push(chunk as Buffer)
  }
  return Buffer.concat(chunks)
}

/** Drops a body we will not read; undici reports the abort as an error event nobody needs. */
function discard(body: Dispatcher.ResponseData['body']) {
  body.on('error', () => {})
  body.destroy()
}

const tooLarge = (maxBytes: number) => new ApiError('upstream_error', `page is larger than ${Math.round(maxBytes / 1048576)} MB`)

/**
 * Undoes Content-Encoding (body-decode.ts: at most two codings, streamed through node:zlib off the
 * event loop, the output capped, stopped by the read's deadline).
 */
async function decompress(body: Buffer, encoding: string | undefined, maxBytes: number, signal: AbortSignal): Promise<Buffer> {
  try {
    return await decodeContent(body, contentCodings(encoding), maxBytes, signal)
  } catch (e) {
    if (signal.aborted) throw e // the deadline: reported as upstream_timeout by toApiError
    if (e instanceof DecodedTooLargeError) throw tooLarge(maxBytes)
    throw new ApiError('upstream_error', `page body could not be decompressed (${encoding})`, { cause: e })
  }
}

export function findBlocked(e: unknown): BlockedAddressError | undefined {
  for (let cur = e, depth = 0; cur && depth < 5; cur = (cur as { cause?: unknown }).cause, depth++) {
    if (cur instanceof BlockedAddressError) return cur
  }
  return undefined
}

/**
 * GETs a public http(s) URL the way a careful browser would: every connection (each redirect hop
 * included) is refused unless its resolved address is public, the whole exchange has one deadline,
 * the body is capped before and after decompression, and the result is classified and decoded.
 */
export async function safeFetch(rawUrl: string, opts: SafeFetchOptions): Promise<SafeFetchResult> {
  const maxBytes = opts.maxBytes ?? DEFAULT_MAX_BYTES
  const maxRedirects = opts.maxRedirects ?? 10
  const policy = opts.addressPolicy ?? (opts.allowPrivateNetwork ? allowAll : publicOnly)
  const deadline = AbortSignal.timeout(opts.timeoutMs)
  const signal = opts.signal ? AbortSignal.any([deadline, opts.signal]) : deadline
  const proxy = opts.proxyUrl ? new (undici().ProxyAgent)({ uri: opts.proxyUrl }) : undefined
  const dispatcher = proxy ?? agentFor(policy, opts.timeoutMs)
  let url = parseHttpUrl(rawUrl)
  try {
    for (let hop = 0; ; hop++) {
      if (proxy) await checkViaDns(url, policy)
      const res = await undici().request(url, {
        method: 'GET',
        dispatcher,
        signal,
        headers: { ...DEFAULT_HEADERS, ...opts.headers },
      })
      const headers = flattenHeaders(res.headers)
      if (REDIRECTS.has(res.statusCode) && headers.location) {
        discard(res.body)
        if (hop >= maxRedirects) throw new ApiError('upstream_error', `more than ${maxRedirects} redirects`)
        url = redirectTarget(headers.location, url)
        continue
      }
      if (res.statusCode >= 400 && !opts.readErrorPages) {
        discard(res.body)
        if (opts.acceptErrorStatus) return { url: url.href, status: res.statusCode, headers, contentType: 'text', body: Buffer.alloc(0), text: '' }
        throw new PageStatusError(res.statusCode)
      }
      const declared = Number(headers['content-length'])
      if (declared > maxBytes) {
        discard(res.body)
        throw tooLarge(maxBytes)
      }
      // Refused before a byte of the body is read: more codings than a server sends, or one we lack.
      const codings = contentCodings(headers['content-encoding'])
      const tooMany = tooManyCodings(codings, 'page')
      const unsupported = unsupportedCoding(codings)
      if (tooMany || unsupported) {
        discard(res.body)
        throw new ApiError('upstream_error', tooMany ?? `unsupported content encoding ${unsupported}`)
      }
      const raw = await readCapped(res.body, maxBytes)
      const body = await decompress(raw, headers['content-encoding'], maxBytes, signal)
      const contentType = opts.anyContentType ? 'text' : sniffContentKind(body, headers['content-type'])
      const result: SafeFetchResult = { url: url.href, status: res.statusCode, headers, contentType, body }
      if (contentType !== 'pdf') {
        const decoded = decodeText(body, headers['content-type'], contentType)
        result.text = decoded.text
        result.charset = decoded.charset
      }
      return result
    }
  } catch (e) {
    throw toApiError(e, deadline, opts.timeoutMs)
  } finally {
    if (proxy) void proxy.close()
    if (!agents.has(policy)) void (dispatcher as Agent).close()
  }
}

/** safeFetch errors raised below HTTP (refused, reset, DNS, timeout): no answer came from the host. */
const transportFailures = new WeakSet<ApiError>()

/**
 * Whether a safeFetch error means the host gave no answer, as opposed to an answer we refuse (an
 * HTTP error status, a redirect we will not follow, a body too large or of a type we do not read).
 */
export const isTransportFailure = (e: unknown): boolean => e instanceof ApiError && transportFailures.has(e)

function toApiError(e: unknown, deadline: AbortSignal, timeoutMs: number): ApiError {
  if (e instanceof ApiError) return e
  if (findBlocked(e)) return new ApiError('invalid_request', PRIVATE_ADDRESS_MESSAGE)
  const failure = transportError(e, deadline, timeoutMs)
  transportFailures.add(failure)
  return failure
}

function transportError(e: unknown, deadline: AbortSignal, timeoutMs: number): ApiError {
  if (deadline.aborted) return new ApiError('upstream_timeout', `page did not load within ${timeoutMs} ms`, { retryAfterSeconds: 5 })
  const code = (e as { code?: string }).code ?? ''
  if (code === 'UND_ERR_CONNECT_TIMEOUT' || code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') {
    return new ApiError('upstream_timeout', 'page did not answer in time', { retryAfterSeconds: 5, cause: e })
  }
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') {
    return new ApiError('upstream_error', 'host name does not resolve', { retryAfterSeconds: 5, cause: e })
  }
  if ((e as Error).name === 'AbortError') return new ApiError('upstream_timeout', 'page fetch was cancelled', { cause: e })
  return new ApiError('upstream_error', `page could not be fetched: ${code || (e as Error).message}`, {
    retryAfterSeconds: 5,
    cause: e,
  })
}
