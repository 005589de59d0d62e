import { Agent, type Dispatcher, ProxyAgent, request } from 'undici'
import type { Config } from '../../config.ts'
import { metrics } from '../../metrics/metrics.ts'
import { type CooldownOptions, DEFAULT_COOLDOWN, type PenaltyShare, ProxyPools, type ProxyRoute } from './proxy-pool.ts'
import { ACCEPT_ENCODING, BodyTooLargeError, readTextBody, UnsupportedEncodingError } from './response-body.ts'
import type { AttemptOutcome, FetchedPage, FetchPageRequest, ProxyHealth, RouteAttempt } from './upstream.types.ts'
import { type UpstreamErrorCode, upstreamErrorFor } from './upstream-error.ts'
import { isSameSite, type MappedTarget, mapUpstream, resolveRedirect } from './upstream-route.ts'

export type UpstreamConfig = Pick<Config, 'upstreamHosts' | 'proxyPools' | 'upstreamTimeoutMs'>

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
}

export interface UpstreamClient {
  /** Fetches one engine page; throws UpstreamError (an ApiError with `attempts`) when every route fails. */
  fetchPage(req: FetchPageRequest): Promise<FetchedPage>
  /** Per-proxy health for diagnostics; [] when no pools are configured. */
  poolHealth(): ProxyHealth[]
  close(): Promise<void>
}

const DIRECT = null

/** What one hop chain came back with, before classification. */
interface RawPage {
  status: number
  url: string
  body: string
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
  const direct = new Agent({ connect: { timeout: 10_000 } })
  const proxyAgents = new Map<string, ProxyAgent>()

  function dispatcherFor(route: ProxyRoute | null): Dispatcher {
    if (!route) return direct
    let agent = proxyAgents.get(route.url)
    if (!agent) {
      // proxyTunnel false: plain-http targets are sent in absolute form, as forward proxies expect
      // (many refuse CONNECT to port 80); https targets are still tunnelled with CONNECT.
      agent = new ProxyAgent({ uri: route.url, proxyTunnel: false, connect: { timeout: 10_000 } })
      proxyAgents.set(route.url, agent)
    }
    return agent
  }

  async function fetchHops(dispatcher: Dispatcher, start: URL, req: FetchPageRequest, signal: AbortSignal, budgetMs: number): Promise<RawPage> {
    let logical = start
    // A form is posted once; a redirect after it is followed with GET, as browsers do.
    let form = req.form
    for (let hops = 0; ; hops++) {
      const target = mapUpstream(config.upstreamHosts, logical)
      const headers = requestHeaders(req.headers, target)
      if (form) headers['content-type'] = 'application/x-www-form-urlencoded'
      const res = await request(target.requestUrl, {
        method: form ? 'POST' : 'GET',
        body: form ? new URLSearchParams(form).toString() : undefined,
        headers,
        dispatcher,
        signal,
        headersTimeout: budgetMs,
        bodyTimeout: budgetMs,
      })
      const location = firstHeader(res.headers.location)
      if (res.statusCode >= 300 && res.statusCode < 400 && location) {
        await res.body.dump()
        const page = { status: res.statusCode, url: logical.href, body: '' }
        const next = resolveRedirect(location, logical, target)
        if (!next) return { ...page, stopped: 'bad-location' }
        // A redirect to a captcha or consent page is the engine saying no: the engine's own
        // block check judges the target before it is followed.
        const block = req.detectBlock?.({ status: res.statusCode, url: next.href, body: '' })
        if (block) return { ...page, url: next.href, stopped: 'block', blockReason: block.reason }
        if (!isSameSite(start, next)) return { ...page, url: next.href, stopped: 'off-site' }
        if (hops >= maxRedirects) return { ...page, stopped: 'too-many' }
        logical = next
        form = undefined
        continue
      }
      const body = await readTextBody(res.body, res.headers, maxBodyBytes)
      return { status: res.statusCode, url: logical.href, body }
    }
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
    let page: RawPage
    try {
      page = await fetchHops(dispatcherFor(route), url, req, signal, budgetMs)
    } catch (err) {
      if (req.signal?.aborted) throw req.signal.reason // the caller gave up; not the route's fault
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

  async function fetchPage(req: FetchPageRequest): Promise<FetchedPage> {
    if (req.signal?.aborted) throw req.signal.reason
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
    poolHealth: () => pools.health(),
    async close() {
      // Graceful first; an engine that never answers must not hold up shutdown.
      const agents = [direct, ...proxyAgents.values()]
      const graceful = Promise.all(agents.map((a) => a.close()))
      const deadline = new Promise<'late'>((resolve) => setTimeout(() => resolve('late'), 2000).unref())
      if ((await Promise.race([graceful, deadline])) === 'late') await Promise.all(agents.map((a) => a.destroy()))
      proxyAgents.clear()
    },
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

const TIMEOUT_CODES = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'UND_ERR_CONNECT_TIMEOUT'])

/** Reasons carry an error code at most: messages can name mapped addresses or proxy hosts. */
function failureVerdict(err: unknown, deadlineHit: boolean): Verdict {
  const code = (err as { code?: unknown } | null)?.code
  if (deadlineHit || (typeof code === 'string' && TIMEOUT_CODES.has(code))) {
    return { outcome: 'timeout', reason: 'no answer before the deadline', retry: true }
  }
  if (err instanceof BodyTooLargeError) return { outcome: 'error', reason: err.message, retry: false }
  if (err instanceof UnsupportedEncodingError) return { outcome: 'error', reason: err.message, retry: false }
  const detail = typeof code === 'string' && /^[A-Z0-9_]+$/.test(code) ? ` (${code})` : ''
  return { outcome: 'error', reason: `connection failed${detail}`, retry: true }
}

/** Caller headers minus those this client owns, plus the ones mapping and decoding need. */
function requestHeaders(headers: Record<string, string> | undefined, target: MappedTarget): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [name, value] of Object.entries(headers ?? {})) {
    const lower = name.toLowerCase()
    if (lower === 'host' || lower === 'accept-encoding' || lower === 'x-forwarded-host' || lower === 'connection') {
      continue
    }
    out[lower] = value
  }
  out['accept-encoding'] = ACCEPT_ENCODING
  if (target.forwardedHost) out['x-forwarded-host'] = target.forwardedHost
  return out
}

function firstHeader(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v
}
