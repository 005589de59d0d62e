/**
 * One engine page over one route (direct or one proxy): each request sent through the transport
 * with the engine session's cookies (and its Set-Cookie kept), same-site redirects followed one
 * hop at a time, the body decoded and capped.
 */
import type { EngineSessions } from './engine-session.ts'
import { decodeText } from './response-body.ts'
import type { FetchPageRequest } from './upstream.types.ts'
import { isSameSite, type MappedTarget, mapUpstream, resolveRedirect } from './upstream-route.ts'
import type { TransportResponse, UpstreamTransport } from './upstream-transport.ts'

/** What one hop chain came back with, before classification. */
export interface RawPage {
  status: number
  url: string
  body: string
  /** The last answer's headers (lower-case names). */
  headers: Record<string, string | string[] | undefined>
  /** Whether any answer of the hop chain set a cookie. */
  setCookie?: boolean
  /** Set when a redirect was not followed, and why. */
  stopped?: 'block' | 'off-site' | 'too-many' | 'bad-location'
  blockReason?: string
}

/** The type of every form posted: with its charset, which DuckDuckGo requires (a browser's own form leaves it out). */
export const FORM_TYPE = 'application/x-www-form-urlencoded; charset=utf-8'

export class PageHops {
  constructor(
    private readonly upstreamHosts: ReadonlyMap<string, string>,
    private readonly transport: UpstreamTransport,
    private readonly sessions: EngineSessions,
    private readonly maxBodyBytes: number,
    readonly maxRedirects: number,
  ) {}

  /** One request, no redirect followed: cookies from the session go out, and its Set-Cookie comes back into it. */
  async sendOnce(
    logical: URL,
    method: 'GET' | 'POST',
    given: Record<string, string> | undefined,
    body: string | undefined,
    proxyUrl: string | null,
    signal: AbortSignal,
    budgetMs: number,
  ) {
    const target = mapUpstream(this.upstreamHosts, logical)
    const headers = requestHeaders(given, target)
    const session = this.sessions.key(logical, proxyUrl, headers['user-agent'])
    const cookie = this.sessions.cookieHeader(session, logical, headers.cookie)
    if (cookie) headers.cookie = cookie
    const res = await this.transport.send({
      method,
      url: target.requestUrl,
      ...(body !== undefined ? { body } : {}),
      headers,
      proxyUrl,
      signal,
      timeoutMs: budgetMs,
    })
    const setCookie = this.sessions.remember(session, logical, res.headers['set-cookie'])
    return { res, target, setCookie }
  }

  async fetchHops(proxyUrl: string | null, start: URL, req: FetchPageRequest, signal: AbortSignal, budgetMs: number): Promise<RawPage> {
    let logical = start
    // A form is posted once; a redirect after it is followed with GET, as browsers do.
    let form = req.form
    let setCookie = false
    // Credentials the caller set (SearXNG's basic auth, Serper's key) go to the origin they were
    // given for: once a redirect changes scheme, host or port, they are not sent again.
    let credentialed = true
    for (let hops = 0; ; hops++) {
      const headers = credentialed ? { ...req.headers } : withoutCredentials(req.headers)
      // Every form names its charset: DuckDuckGo answers a form without it with its 202 block (searxng#6596).
      if (form) headers['content-type'] = FORM_TYPE
      const sent = await this.sendOnce(
        logical,
        form ? 'POST' : 'GET',
        headers,
        form ? new URLSearchParams(form).toString() : undefined,
        proxyUrl,
        signal,
        budgetMs,
      )
      const { res, target } = sent
      setCookie ||= sent.setCookie
      const location = firstHeader(res.headers.location)
      if (res.status >= 300 && res.status < 400 && location) {
        await res.discard()
        const page = { status: res.status, url: logical.href, body: '', headers: res.headers, setCookie }
        const next = resolveRedirect(location, logical, target)
        if (!next) return { ...page, stopped: 'bad-location' }
        // A redirect to a captcha or consent page is the engine saying no: the engine's own
        // block check judges the target before it is followed.
        const block = req.detectBlock?.({ status: res.status, url: next.href, body: '' })
        if (block) return { ...page, url: next.href, stopped: 'block', blockReason: block.reason }
        if (!isSameSite(start, next)) return { ...page, url: next.href, stopped: 'off-site' }
        if (hops >= this.maxRedirects) return { ...page, stopped: 'too-many' }
        if (next.origin !== logical.origin) credentialed = false
        logical = next
        form = undefined
        continue
      }
      return { status: res.status, url: logical.href, body: await this.textOf(res), headers: res.headers, setCookie }
    }
  }

  /** An answer's body as text, capped. Decompressed by the transport (impit itself, undici through response-body.ts), never twice. */
  async textOf(res: TransportResponse): Promise<string> {
    return decodeText(await res.bytes(this.maxBodyBytes), firstHeader(res.headers['content-type']))
  }
}

const CREDENTIAL_HEADERS = new Set(['authorization', 'proxy-authorization', 'x-api-key'])

function withoutCredentials(headers: Record<string, string> | undefined): Record<string, string> {
  return Object.fromEntries(Object.entries(headers ?? {}).filter(([name]) => !CREDENTIAL_HEADERS.has(name.toLowerCase())))
}

/**
 * Caller headers minus those this client owns, plus the one mapping needs. Accept-Encoding is the
 * transport's: each asks for what it decodes (impit the browser's list, undici gzip, deflate, br).
 */
function requestHeaders(headers: Record<string, string> | undefined, target: MappedTarget): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [name, value] of Object.entries(headers ?? {})) {
    const lower = name.toLowerCase()
    if (lower === 'host' || lower === 'accept-encoding' || lower === 'x-forwarded-host' || lower === 'connection') {
      continue
    }
    out[lower] = value
  }
  if (target.forwardedHost) out['x-forwarded-host'] = target.forwardedHost
  return out
}

/** The User-Agent among an engine's headers, whatever the case of its name. */
export function userAgentOf(headers: Record<string, string> | undefined): string | undefined {
  return Object.entries(headers ?? {}).find(([k]) => k.toLowerCase() === 'user-agent')?.[1]
}

function firstHeader(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v
}
