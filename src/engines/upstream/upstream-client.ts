import { isIP } from 'node:net'
import type { Config } from '../../config.ts'
import { metrics } from '../../metrics/metrics.ts'
import { isPublicAddress, stripBrackets } from '../../net/address-policy.ts'
import { type EngineGate, GateError, type GateHttp, type GateResponse, type PowSolver } from '../gates/gate.types.ts'
import { createPowSolver } from '../gates/pow.ts'
import { EngineSessions, type PassStore } from './engine-session.ts'
import { createImpitTransport } from './impit-transport.ts'
import { type CooldownOptions, DEFAULT_COOLDOWN, type PenaltyShare, ProxyPools, type ProxyRoute } from './proxy-pool.ts'
import { BodyTooLargeError, decodeText, UnsupportedEncodingError } from './response-body.ts'
import { createUndiciTransport } from './undici-transport.ts'
import type { AttemptOutcome, EngineBrowser, FetchedPage, FetchPageRequest, ProxyHealth, RouteAttempt } from './upstream.types.ts'
import { type UpstreamErrorCode, upstreamErrorFor } from './upstream-error.ts'
import { isSameSite, type MappedTarget, mapUpstream, resolveRedirect } from './upstream-route.ts'
import type { UpstreamTransport } from './upstream-transport.ts'

export type UpstreamConfig = Pick<Config, 'upstreamHosts' | 'proxyPools' | 'upstreamTimeoutMs'> & Partial<Pick<Config, 'allowPrivateNetwork' | 'powTimeoutMs'>>

export interface UpstreamClientOptions {
  /** Attempts per fetchPage across all routes (default 4). Without proxy pools there is one. */
  maxAttempts?: number
  /** Proxies of one pool tried per fetchPage before failing over to the next pool (default 2). */
  attemptsPerPool?: number
  cooldown?: CooldownOptions
  /** Shares proxy cool-downs with the deployment's other processes (services.ts: over src/signals). */
  share?: PenaltyShare
  /** Cap on the body, compressed and decompressed (default 8 MiB). */
  maxBodyBytes?: number
  /** Same-site redirects followed per attempt (default 5). */
  maxRedirects?: number
  /**
   * What sends each request (upstream-transport.ts). 'impit' (default): a browser's TLS and
   * HTTP/2 fingerprint with matching headers, which Google and Cloudflare-fronted engines expect.
   * 'undici': Node's own client and TLS handshake. Or any UpstreamTransport (closed with the client).
   */
  transport?: 'impit' | 'undici' | UpstreamTransport
  /** Accept self-signed certificates. Tests only (a loopback TLS server); never from configuration. */
  insecureTls?: boolean
  /** Draws pages for requests with `render` (the engines' browser routes); absent = no browser. */
  browser?: EngineBrowser
  /** Where passes earned at engines' gates are shared with the deployment's other processes. */
  passes?: PassStore
  /** Solves gates' proof-of-work jobs (default: worker threads capped at config.powTimeoutMs). */
  solve?: PowSolver
}

export interface UpstreamClient {
  /** Fetches one engine page; throws UpstreamError (an ApiError with `attempts`) when every route fails. */
  fetchPage(req: FetchPageRequest): Promise<FetchedPage>
  /** Why a page of `url` cannot be drawn by the browser here (`render` requests), or null. */
  browserRefusal(url: string): string | null
  /** Per-proxy health for diagnostics; [] when no pools are configured. */
  poolHealth(): ProxyHealth[]
  /** This process's proof-of-work solves per gate since start (`trawl engines check`). */
  gateStats(): GateStats[]
  close(): Promise<void>
}

const DIRECT = null

export interface GateStats {
  gate: string
  solved: number
  /** Challenges harder than the cap, and refusals of a solved challenge. */
  failed: number
  /** Mean milliseconds of a successful solve; null before the first. */
  meanSolveMs: number | null
}

/** What one hop chain came back with, before classification. */
interface RawPage {
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

interface Verdict {
  outcome: AttemptOutcome
  reason?: string
  /** False when another route would get the same answer (a 404, an oversized page). */
  retry: boolean
}

export function createUpstreamClient(config: UpstreamConfig, options: UpstreamClientOptions = {}): UpstreamClient {
  const maxAttempts = options.maxAttempts ?? 4
  const attemptsPerPool = options.attemptsPerPool ?? 2
  const maxBodyBytes = options.maxBodyBytes ?? 8 * 1024 * 1024
  const maxRedirects = options.maxRedirects ?? 5
  const pools = new ProxyPools(config.proxyPools, options.cooldown ?? DEFAULT_COOLDOWN, Date.now, options.share)
  const transport = transportOf(options)

  const sessions = new EngineSessions(options.passes)
  const stats = new Map<string, { solved: number; failed: number; solveMs: number }>()
  const statsOf = (gate: string) => {
    const entry = stats.get(gate) ?? { solved: 0, failed: 0, solveMs: 0 }
    stats.set(gate, entry)
    return entry
  }
  const solve =
    options.solve ??
    createPowSolver({
      timeoutMs: config.powTimeoutMs ?? 4_000,
      onSolve: (gate, outcome, ms) => {
        metrics.gateSolve(gate, outcome, ms)
        if (outcome !== 'solved') return
        const entry = statsOf(gate)
        entry.solved++
        entry.solveMs += ms
      },
    })
  /** One gate passed at a time per session: concurrent searches wait for the same pass. */
  const passing = new Map<string, Promise<void>>()
  /** Passes earned per session: an answer to a request sent before the latest pass is asked again, not solved again. */
  const passCount = new Map<string, number>()

  /** One request, no redirect followed: cookies from the session go out, and its Set-Cookie comes back into it. */
  async function sendOnce(
    logical: URL,
    method: 'GET' | 'POST',
    given: Record<string, string> | undefined,
    body: string | undefined,
    proxyUrl: string | null,
    signal: AbortSignal,
    budgetMs: number,
  ) {
    const target = mapUpstream(config.upstreamHosts, logical)
    const headers = requestHeaders(given, target)
    const session = sessions.key(logical, proxyUrl, headers['user-agent'])
    const cookie = sessions.cookieHeader(session, logical, headers.cookie)
    if (cookie) headers.cookie = cookie
    const res = await transport.send({
      method,
      url: target.requestUrl,
      ...(body !== undefined ? { body } : {}),
      headers,
      proxyUrl,
      signal,
      timeoutMs: budgetMs,
    })
    const setCookie = sessions.remember(session, logical, res.headers['set-cookie'])
    return { res, target, setCookie }
  }

  async function fetchHops(proxyUrl: string | null, start: URL, req: FetchPageRequest, signal: AbortSignal, budgetMs: number): Promise<RawPage> {
    let logical = start
    // A form is posted once; a redirect after it is followed with GET, as browsers do.
    let form = req.form
    let setCookie = false
    for (let hops = 0; ; hops++) {
      const headers = { ...req.headers }
      // Every form names its charset: DuckDuckGo answers a form without it with its 202 block (searxng#6596).
      if (form) headers['content-type'] = FORM_TYPE
      const sent = await sendOnce(logical, form ? 'POST' : 'GET', headers, form ? new URLSearchParams(form).toString() : undefined, proxyUrl, signal, budgetMs)
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
        if (hops >= maxRedirects) return { ...page, stopped: 'too-many' }
        logical = next
        form = undefined
        continue
      }
      // Decompressed by the transport (impit itself, undici through response-body.ts), never twice.
      const body = decodeText(await res.bytes(maxBodyBytes), firstHeader(res.headers['content-type']))
      return { status: res.status, url: logical.href, body, headers: res.headers, setCookie }
    }
  }

  /**
   * HTTP for a gate (gate.types.ts): the request's own headers, proxy route and session, no
   * redirect followed, the body capped as any engine page.
   */
  function gateHttp(req: FetchPageRequest, proxyUrl: string | null, signal: AbortSignal, deadline: number): GateHttp {
    const own = Object.fromEntries(Object.entries(req.headers ?? {}).filter(([k]) => !/^(cookie|content-type|origin|referer|sec-fetch-site)$/i.test(k)))
    const send = async (url: string, method: 'GET' | 'POST', body: string | undefined, headers: Record<string, string>): Promise<GateResponse> => {
      const logical = new URL(url)
      // A gate reads addresses from the engine's page: it never leaves the engine's site.
      if (!isSameSite(new URL(req.url), logical)) throw new GateError(`the challenge points off the engine site (${logical.host})`)
      const budget = deadline - Date.now()
      if (budget <= 0) throw new GateError('no time left to pass the gate')
      const { res } = await sendOnce(logical, method, { ...own, ...headers }, body, proxyUrl, signal, budget)
      if (res.status >= 300 && res.status < 400) {
        await res.discard()
        return { status: res.status, url: logical.href, headers: res.headers, body: '' }
      }
      const text = decodeText(await res.bytes(maxBodyBytes), firstHeader(res.headers['content-type']))
      return { status: res.status, url: logical.href, headers: res.headers, body: text }
    }
    return {
      headers: own,
      get: (url, headers = {}) => send(url, 'GET', undefined, headers),
      post: (url, body, headers = {}) =>
        typeof body === 'string'
          ? send(url, 'POST', body, headers)
          : send(url, 'POST', new URLSearchParams(body).toString(), { 'content-type': FORM_TYPE, ...headers }),
      setCookie: (url, cookie) => {
        const logical = new URL(url)
        sessions.setCookie(sessions.key(logical, proxyUrl, userAgentOf(req.headers)), logical, cookie)
      },
    }
  }

  /**
   * An answer carrying a challenge the engine's gate can solve: passed (once per session at a
   * time: concurrent searches wait for the same pass, and a pass another process earned is taken
   * from the shared store first), then asked again. A gate that cannot be passed is a block
   * with the gate's reason.
   */
  async function throughGate(
    gate: EngineGate,
    page: RawPage,
    req: FetchPageRequest,
    url: URL,
    proxyUrl: string | null,
    signal: AbortSignal,
    deadline: number,
    session: string,
    passesBefore: number,
  ): Promise<RawPage> {
    const challenge = gate.detect({ status: page.status, url: page.url, headers: page.headers, body: page.body })
    if (challenge === null) return page
    // Registered before the first await, so concurrent searches on one session wait for ONE pass
    // (taken from the shared store when another process earned it, else solved) and share its fate.
    let pass = passing.get(session)
    // Sent before a pass another search earned meanwhile: asked again with it, nothing solved.
    if (!pass && (passCount.get(session) ?? 0) > passesBefore) pass = Promise.resolve()
    if (!pass) {
      const mine = (async () => {
        if (!(await sessions.sync(session, true))) {
          await gate.pass(challenge, gateHttp(req, proxyUrl, signal, deadline), (job, name) => solve(job, name))
          await sessions.share(session)
        }
        passCount.set(session, (passCount.get(session) ?? 0) + 1)
      })()
      pass = mine
      passing.set(session, mine)
      mine
        .catch((err: unknown) => {
          if (err instanceof GateError) statsOf(gate.name).failed++
        })
        .finally(() => passing.delete(session))
    }
    await pass
    const next = await fetchHops(proxyUrl, url, req, signal, Math.max(1, deadline - Date.now()))
    if (gate.detect({ status: next.status, url: next.url, headers: next.headers, body: next.body }) !== null) {
      // The engine did not take the pass: start the next try from a clean session.
      sessions.forget(session)
      statsOf(gate.name).failed++
      metrics.gateSolve(gate.name, 'refused', 0)
      throw new GateError('the engine asked again after the challenge was passed')
    }
    return next
  }

  function classify(page: RawPage, req: FetchPageRequest): Verdict {
    if (page.status === 429) return { outcome: 'blocked', reason: 'HTTP 429', retry: true }
    if (page.stopped === 'block') return { outcome: 'blocked', reason: page.blockReason, retry: true }
    const hit = req.detectBlock?.({ status: page.status, url: page.url, body: page.body })
    if (hit) return { outcome: 'blocked', reason: hit.reason, retry: true }
    switch (page.stopped) {
      case 'off-site':
        return { outcome: 'error', reason: 'redirected off the engine site', retry: false }
      case 'too-many':
        return { outcome: 'error', reason: `more than ${maxRedirects} redirects`, retry: false }
      case 'bad-location':
        return { outcome: 'error', reason: 'invalid redirect location', retry: false }
    }
    if (page.status >= 200 && page.status < 300) return { outcome: 'ok', retry: false }
    // 5xx, 407 (proxy auth) and 408 may be the proxy's doing; another route can fare better.
    // Any other 4xx is the engine's answer to this URL and would repeat everywhere.
    const routeFault = page.status >= 500 || page.status === 407 || page.status === 408
    return { outcome: 'error', reason: `HTTP ${page.status}`, retry: routeFault }
  }

  async function attempt(
    req: FetchPageRequest,
    url: URL,
    route: ProxyRoute | null,
    budgetMs: number,
  ): Promise<{ attempt: RouteAttempt; verdict: Verdict; page?: RawPage }> {
    const started = Date.now()
    const timer = new AbortController()
    const timeout = setTimeout(() => timer.abort(new Error('attempt deadline')), budgetMs)
    const signal = req.signal ? AbortSignal.any([req.signal, timer.signal]) : timer.signal
    const base: Omit<RouteAttempt, 'outcome' | 'ms'> = {
      engine: req.engine,
      host: url.host,
      pool: route?.pool ?? null,
      ...(route ? { proxy: route.label } : {}),
    }
    const proxyUrl = route?.url ?? null
    const deadline = started + budgetMs
    let page: RawPage
    try {
      // A pass another process earned goes out with the first request.
      const session = req.gate ? sessions.key(url, proxyUrl, userAgentOf(req.headers)) : ''
      if (req.gate) await sessions.sync(session)
      const passesBefore = passCount.get(session) ?? 0
      page = await fetchHops(proxyUrl, url, req, signal, budgetMs)
      // Brave answers a fresh client's first request 429 and sets what the next one needs: a
      // browser's next request carries it, so one more request is made with it, at once.
      if (page.status === 429 && page.setCookie && deadline > Date.now()) page = await fetchHops(proxyUrl, url, req, signal, deadline - Date.now())
      if (req.gate) page = await throughGate(req.gate, page, req, url, proxyUrl, signal, deadline, session, passesBefore)
    } catch (err) {
      if (req.signal?.aborted) throw req.signal.reason // the caller gave up; not the route's fault
      if (err instanceof GateError) {
        const verdict: Verdict = { outcome: 'blocked', reason: `${req.gate?.name}: ${err.message}`, retry: true }
        return { attempt: { ...base, outcome: 'blocked', reason: verdict.reason, ms: Date.now() - started }, verdict }
      }
      const verdict = failureVerdict(err, timer.signal.aborted)
      return { attempt: { ...base, outcome: verdict.outcome, reason: verdict.reason, ms: Date.now() - started }, verdict }
    } finally {
      clearTimeout(timeout)
    }
    // Outside the try: a bug in an engine's detectBlock must surface, not pass as a network error.
    const verdict = classify(page, req)
    const attempt: RouteAttempt = { ...base, status: page.status, outcome: verdict.outcome, ms: Date.now() - started }
    if (verdict.reason) attempt.reason = verdict.reason
    return { attempt, verdict, page }
  }

  /**
   * Why the browser cannot draw `url` here, or null: no browser, proxy pools configured (the
   * browser would bypass them), or (checked without starting one) a mapped upstream on a private
   * address that the browser's guard would refuse.
   */
  function browserRefusal(url: string): string | null {
    if (!options.browser?.available) return 'no browser on this server (TRAWL_BROWSER)'
    // Engine traffic that must leave through proxies never leaves from the server's own address.
    if (pools.enabled) return 'the browser does not go through proxy pools (TRAWL_PROXY_POOLS)'
    const target = mapUpstream(config.upstreamHosts, new URL(url))
    const mappedHost = stripBrackets(new URL(target.requestUrl).hostname)
    if (target.base && !config.allowPrivateNetwork && isIP(mappedHost) && !isPublicAddress(mappedHost)) {
      return 'the browser may not reach the mapped upstream, a private address (TRAWL_ALLOW_PRIVATE_NETWORK)'
    }
    return null
  }

  /**
   * One page drawn by the browser, in the kept context of its engine host, and judged like a
   * fetched one. The browser's own guard proxy carries it (proxy pools are not used), with the
   * address policy of every browser connection; TRAWL_UPSTREAM_HOSTS is honoured.
   */
  async function renderPage(req: FetchPageRequest): Promise<FetchedPage> {
    const url = new URL(req.url)
    const base: Omit<RouteAttempt, 'outcome' | 'ms'> = { engine: req.engine, host: url.host, pool: null }
    const started = Date.now()
    const fail = (outcome: AttemptOutcome, reason: string, status?: number): never => {
      const attempt: RouteAttempt = { ...base, ...(status ? { status } : {}), outcome, reason, ms: Date.now() - started }
      metrics.upstreamAttempt(attempt)
      throw upstreamErrorFor(outcome === 'blocked' ? 'upstream_blocked' : outcome === 'timeout' ? 'upstream_timeout' : 'upstream_error', req.engine, [attempt])
    }
    const refusal = browserRefusal(req.url)
    if (refusal || !options.browser) return fail('error', refusal ?? 'no browser')
    const target = mapUpstream(config.upstreamHosts, url)
    const userAgent = userAgentOf(req.headers)
    let drawn: { url: string; status: number; html: string }
    try {
      drawn = await options.browser.render(target.requestUrl, {
        timeoutMs: req.timeoutMs ?? config.upstreamTimeoutMs,
        signal: req.signal,
        session: { key: url.host, userAgent },
        // A mapped upstream (tests, private mirrors) is told the engine's host, as the HTTP routes tell it.
        ...(target.forwardedHost && { extraHeaders: { 'x-forwarded-host': target.forwardedHost } }),
      })
    } catch (err) {
      if (req.signal?.aborted) throw req.signal.reason
      const code = (err as { code?: string }).code
      return fail(code === 'upstream_timeout' ? 'timeout' : 'error', `browser: ${err instanceof Error ? err.message : String(err)}`.slice(0, 200))
    }
    // The drawn page's address as the engine sees it (a mapped test host is translated back).
    const finalUrl = (target.base && resolveRedirect(drawn.url, url, target)?.href) || drawn.url
    const verdict = classify({ status: drawn.status, url: finalUrl, body: drawn.html, headers: {} }, req)
    if (verdict.outcome !== 'ok') return fail(verdict.outcome, verdict.reason ?? `HTTP ${drawn.status}`, drawn.status)
    const attempt: RouteAttempt = { ...base, status: drawn.status, outcome: 'ok', ms: Date.now() - started }
    metrics.upstreamAttempt(attempt)
    return { status: drawn.status, url: finalUrl, body: drawn.html, attempts: [attempt] }
  }

  async function fetchPage(req: FetchPageRequest): Promise<FetchedPage> {
    if (req.signal?.aborted) throw req.signal.reason
    if (req.render) return renderPage(req)
    const url = new URL(req.url)
    const totalMs = req.timeoutMs ?? config.upstreamTimeoutMs
    const deadline = Date.now() + totalMs
    const attempts: RouteAttempt[] = []
    const tried = new Set<string>()
    let final = false

    while (attempts.length < maxAttempts) {
      const remaining = deadline - Date.now()
      if (remaining <= 0) break
      let route: ProxyRoute | null = DIRECT
      if (pools.enabled) {
        route = pools.pick(req.engine, tried, attemptsPerPool)
        if (!route && attempts.length === 0) route = pools.pickLastResort(req.engine)
        if (!route) break
        tried.add(route.url)
      } else if (attempts.length > 0) {
        break // a direct connection has no alternative route to retry on
      }
      // A hanging proxy must not eat the whole deadline, or failover never happens.
      const isLast = !pools.enabled || attempts.length === maxAttempts - 1 || tried.size >= pools.size
      const budgetMs = isLast ? remaining : Math.min(remaining, Math.max(Math.ceil(totalMs / 2), 1))

      const result = await attempt(req, url, route, budgetMs)
      attempts.push(result.attempt)
      metrics.upstreamAttempt(result.attempt)
      if (route) pools.report(route, req.engine, result.verdict.outcome, result.verdict.retry)
      if (result.verdict.outcome === 'ok' && result.page) {
        return { status: result.page.status, url: result.page.url, body: result.page.body, attempts }
      }
      if (!result.verdict.retry) {
        final = true
        break
      }
    }
    throw upstreamErrorFor(errorCode(attempts, final), req.engine, attempts)
  }

  return {
    fetchPage,
    browserRefusal,
    poolHealth: () => pools.health(),
    gateStats: () =>
      [...stats].map(([gate, e]) => ({ gate, solved: e.solved, failed: e.failed, meanSolveMs: e.solved > 0 ? Math.round(e.solveMs / e.solved) : null })),
    close: () => transport.close(),
  }
}

/**
 * Blocked outranks timeout, which outranks error: engine=auto falls back on the first two, and a
 * block seen anywhere is the most useful thing to tell the client. A non-retryable failure is
 * the definitive answer and reported as upstream_error.
 */
function errorCode(attempts: RouteAttempt[], final: boolean): UpstreamErrorCode {
  if (final) return 'upstream_error'
  if (attempts.some((a) => a.outcome === 'blocked')) return 'upstream_blocked'
  if (attempts.length === 0 || attempts.some((a) => a.outcome === 'timeout')) return 'upstream_timeout'
  return 'upstream_error'
}

function transportOf(options: UpstreamClientOptions): UpstreamTransport {
  const chosen = options.transport ?? 'impit'
  if (typeof chosen !== 'string') return chosen
  const tls = { insecureTls: options.insecureTls === true }
  return chosen === 'undici' ? createUndiciTransport(tls) : createImpitTransport(tls)
}

/** undici's timeouts, and ETIMEDOUT: impit's (impit-transport.ts maps its errors to these codes). */
const TIMEOUT_CODES = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'UND_ERR_CONNECT_TIMEOUT', 'ETIMEDOUT'])

/** Reasons carry an error code at most: messages can name mapped addresses or proxy hosts. */
function failureVerdict(err: unknown, deadlineHit: boolean): Verdict {
  const code = (err as { code?: unknown } | null)?.code
  if (deadlineHit || (typeof code === 'string' && TIMEOUT_CODES.has(code))) {
    return { outcome: 'timeout', reason: 'no answer before the deadline', retry: true }
  }
  if (err instanceof BodyTooLargeError) return { outcome: 'error', reason: err.message, retry: false }
  if (err instanceof UnsupportedEncodingError) return { outcome: 'error', reason: err.message, retry: false }
  if (typeof code !== 'string' || !/^[A-Z0-9_]+$/.test(code)) return { outcome: 'error', reason: 'connection failed', retry: true }
  // Another route (a proxy) may still get through, so each of these is retried elsewhere.
  const what = DNS_CODES.has(code) ? 'DNS lookup failed' : TLS_CODE.test(code) ? 'TLS handshake failed' : 'connection failed'
  return { outcome: 'error', reason: `${what} (${code})`, retry: true }
}

const DNS_CODES = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_NONAME'])
/** Node's and OpenSSL's TLS failure codes, and impit's mapped ones (EPROTO, ERR_TLS_CERT_INVALID). */
const TLS_CODE = /^(EPROTO$|ERR_TLS_|ERR_SSL_|CERT_|DEPTH_ZERO_SELF_SIGNED_CERT$|SELF_SIGNED_CERT_IN_CHAIN$|UNABLE_TO_(GET|VERIFY)_)/

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

/** The type of every form posted: with its charset, which DuckDuckGo requires (a browser's own form leaves it out). */
const FORM_TYPE = 'application/x-www-form-urlencoded; charset=utf-8'

/** The User-Agent among an engine's headers, whatever the case of its name. */
function userAgentOf(headers: Record<string, string> | undefined): string | undefined {
  return Object.entries(headers ?? {}).find(([k]) => k.toLowerCase() === 'user-agent')?.[1]
}

function firstHeader(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v
}
