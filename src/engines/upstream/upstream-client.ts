import type { Config } from '../../config.ts'
import { metrics } from '../../metrics/metrics.ts'
import { GateError, type PowSolver } from '../gates/gate.types.ts'
import { BrowserPages } from './browser-pages.ts'
import { EngineSessions, type PassStore } from './engine-session.ts'
import { GatePasses, type GateStats } from './gate-passes.ts'
import { createImpitTransport } from './impit-transport.ts'
import { PageHops, type RawPage, userAgentOf } from './page-hops.ts'
import { classify, errorCode, failureVerdict, type Verdict } from './page-verdict.ts'
import { type CooldownOptions, DEFAULT_COOLDOWN, type PenaltyShare, ProxyPools, type ProxyRoute } from './proxy-pool.ts'
import { createUndiciTransport } from './undici-transport.ts'
import type { EngineBrowser, FetchedPage, FetchPageRequest, ProxyHealth, RouteAttempt } from './upstream.types.ts'
import { upstreamErrorFor } from './upstream-error.ts'
import type { UpstreamTransport } from './upstream-transport.ts'

export type { GateStats }

export type UpstreamConfig = Pick<Config, 'upstreamHosts' | 'proxyPools' | 'upstreamTimeoutMs'> &
  Partial<Pick<Config, 'allowPrivateNetwork' | 'powTimeoutMs' | 'proxyEngines'>>

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
  browserRefusal(url: string, engine: string): string | null
  /** Per-proxy health for diagnostics; [] when no pools are configured. */
  poolHealth(): ProxyHealth[]
  /** This process's proof-of-work solves per gate since start (`trawl engines check`). */
  gateStats(): GateStats[]
  close(): Promise<void>
}

const DIRECT = null

export function createUpstreamClient(config: UpstreamConfig, options: UpstreamClientOptions = {}): UpstreamClient {
  const maxRedirects = options.maxRedirects ?? 5
  const pools = new ProxyPools(config.proxyPools, options.cooldown ?? DEFAULT_COOLDOWN, Date.now, options.share, config.proxyEngines)
  const transport = transportOf(options)
  const sessions = new EngineSessions(options.passes)
  const hops = new PageHops(config.upstreamHosts, transport, sessions, options.maxBodyBytes ?? 8 * 1024 * 1024, maxRedirects)
  const parts: Parts = {
    config,
    pools,
    sessions,
    hops,
    gates: new GatePasses(hops, sessions, options.solve, config.powTimeoutMs ?? 4_000),
    browser: new BrowserPages(config, options.browser, (engine) => pools.enabledFor(engine), maxRedirects),
    maxAttempts: options.maxAttempts ?? 4,
    attemptsPerPool: options.attemptsPerPool ?? 2,
  }
  return {
    fetchPage: (req) => fetchPage(parts, req),
    browserRefusal: (url, engine) => parts.browser.refusal(url, engine),
    poolHealth: () => pools.health(),
    gateStats: () => parts.gates.gateStats(),
    close: () => transport.close(),
  }
}

/** What a client is made of: its routes, sessions, hop sender, gates and browser. */
interface Parts {
  config: UpstreamConfig
  pools: ProxyPools
  sessions: EngineSessions
  hops: PageHops
  gates: GatePasses
  browser: BrowserPages
  /** Attempts per fetchPage across all routes. */
  maxAttempts: number
  /** Proxies of one pool tried per fetchPage before failing over to the next pool. */
  attemptsPerPool: number
}

/** One engine page: routes (direct, or proxies pool by pool) tried until one answers, under one deadline. */
async function fetchPage(parts: Parts, req: FetchPageRequest): Promise<FetchedPage> {
  const { config, pools, maxAttempts, attemptsPerPool } = parts
  if (req.signal?.aborted) throw req.signal.reason
  if (req.render) return parts.browser.render(req)
  const url = new URL(req.url)
  const totalMs = req.timeoutMs ?? config.upstreamTimeoutMs
  const deadline = Date.now() + totalMs
  const attempts: RouteAttempt[] = []
  const tried = new Set<string>()
  const proxied = pools.enabledFor(req.engine)
  let final = false

  while (attempts.length < maxAttempts) {
    const remaining = deadline - Date.now()
    if (remaining <= 0) break
    let route: ProxyRoute | null = DIRECT
    if (proxied) {
      route = pools.pick(req.engine, tried, attemptsPerPool)
      if (!route && attempts.length === 0) route = pools.pickLastResort(req.engine)
      if (!route) break
      tried.add(route.url)
    } else if (attempts.length > 0) {
      break // a direct connection has no alternative route to retry on
    }
    // A hanging proxy must not eat the whole deadline, or failover never happens.
    const isLast = !proxied || attempts.length === maxAttempts - 1 || tried.size >= pools.sizeFor(req.engine)
    const budgetMs = isLast ? remaining : Math.min(remaining, Math.max(Math.ceil(totalMs / 2), 1))

    const result = await attempt(parts, req, url, route, budgetMs)
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

/** One route asked once: the hop chain, Brave's cookie retry and the engine's gate, judged. */
async function attempt(
  parts: Parts,
  req: FetchPageRequest,
  url: URL,
  route: ProxyRoute | null,
  budgetMs: number,
): Promise<{ attempt: RouteAttempt; verdict: Verdict; page?: RawPage }> {
  const { sessions, hops, gates } = parts
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
    const passesBefore = gates.passesOf(session)
    page = await hops.fetchHops(proxyUrl, url, req, signal, budgetMs)
    // Brave answers a fresh client's first request 429 and sets what the next one needs: a
    // browser's next request carries it, so one more request is made with it, at once.
    if (page.status === 429 && page.setCookie && deadline > Date.now()) page = await hops.fetchHops(proxyUrl, url, req, signal, deadline - Date.now())
    if (req.gate) page = await gates.through(req.gate, page, req, { url, proxyUrl, signal, deadline, session, passesBefore })
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
  const verdict = classify(page, req, hops.maxRedirects)
  const attempt: RouteAttempt = { ...base, status: page.status, outcome: verdict.outcome, ms: Date.now() - started }
  if (verdict.reason) attempt.reason = verdict.reason
  return { attempt, verdict, page }
}

function transportOf(options: UpstreamClientOptions): UpstreamTransport {
  const chosen = options.transport ?? 'impit'
  if (typeof chosen !== 'string') return chosen
  const tls = { insecureTls: options.insecureTls === true }
  return chosen === 'undici' ? createUndiciTransport(tls) : createImpitTransport(tls)
}
