/**
 * Pages drawn by the browser for requests with `render` (the engines' browser routes), in the kept
 * context of their engine host, and judged like fetched ones. The browser's own guard proxy carries
 * them (proxy pools are not used), with the address policy of every browser connection;
 * TRAWL_UPSTREAM_HOSTS is honoured.
 */
import { isIP } from 'node:net'
import type { Config } from '../../config.ts'
import { metrics } from '../../metrics/metrics.ts'
import { isPublicAddress, stripBrackets } from '../../net/address-policy.ts'
import { userAgentOf } from './page-hops.ts'
import { classify } from './page-verdict.ts'
import type { AttemptOutcome, EngineBrowser, FetchedPage, FetchPageRequest, RouteAttempt } from './upstream.types.ts'
import { upstreamErrorFor } from './upstream-error.ts'
import { mapUpstream, resolveRedirect } from './upstream-route.ts'

export type BrowserConfig = Pick<Config, 'upstreamHosts' | 'upstreamTimeoutMs'> & Partial<Pick<Config, 'allowPrivateNetwork'>>

export class BrowserPages {
  constructor(
    private readonly config: BrowserConfig,
    private readonly browser: EngineBrowser | undefined,
    /** Whether an engine's traffic must leave through proxy pools (TRAWL_PROXY_ENGINES may send one directly). */
    private readonly pooled: (engine: string) => boolean,
    private readonly maxRedirects: number,
  ) {}

  /**
   * Why the browser cannot draw `url` for `engine` here, or null: no browser, proxy pools for that
   * engine (the browser would bypass them), or (checked without starting one) a mapped upstream on
   * a private address that the browser's guard would refuse.
   */
  refusal(url: string, engine: string): string | null {
    if (!this.browser?.available) return 'no browser on this server (TRAWL_BROWSER)'
    // Engine traffic that must leave through proxies never leaves from the server's own address.
    if (this.pooled(engine)) return 'the browser does not go through proxy pools (TRAWL_PROXY_POOLS; TRAWL_PROXY_ENGINES can send an engine directly)'
    const target = mapUpstream(this.config.upstreamHosts, new URL(url))
    const mappedHost = stripBrackets(new URL(target.requestUrl).hostname)
    if (target.base && !this.config.allowPrivateNetwork && isIP(mappedHost) && !isPublicAddress(mappedHost)) {
      return 'the browser may not reach the mapped upstream, a private address (TRAWL_ALLOW_PRIVATE_NETWORK)'
    }
    return null
  }

  /** One page drawn; a refusal, a failure or a blocked page throws an UpstreamError with its one attempt. */
  async render(req: FetchPageRequest): Promise<FetchedPage> {
    const url = new URL(req.url)
    const base: Omit<RouteAttempt, 'outcome' | 'ms'> = { engine: req.engine, host: url.host, pool: null }
    const started = Date.now()
    const fail = (outcome: AttemptOutcome, reason: string, status?: number): never => {
      const attempt: RouteAttempt = { ...base, ...(status ? { status } : {}), outcome, reason, ms: Date.now() - started }
      metrics.upstreamAttempt(attempt)
      throw upstreamErrorFor(outcome === 'blocked' ? 'upstream_blocked' : outcome === 'timeout' ? 'upstream_timeout' : 'upstream_error', req.engine, [attempt])
    }
    const refusal = this.refusal(req.url, req.engine)
    if (refusal || !this.browser) return fail('error', refusal ?? 'no browser')
    const target = mapUpstream(this.config.upstreamHosts, url)
    let drawn: { url: string; status: number; html: string }
    try {
      drawn = await this.browser.render(target.requestUrl, {
        timeoutMs: req.timeoutMs ?? this.config.upstreamTimeoutMs,
        signal: req.signal,
        session: { key: url.host, userAgent: userAgentOf(req.headers) },
        // A mapped upstream (tests, private mirrors) is told the engine's host, as the HTTP routes tell it.
        ...(target.forwardedHost && { extraHeaders: { 'x-forwarded-host': target.forwardedHost } }),
      })
    } catch (err) {
      if (req.signal?.aborted) throw req.signal.reason
      const code = (err as { code?: string }).code
      // The error lists this attempt under its route's name ("browser: …"): the reason does not repeat it.
      return fail(code === 'upstream_timeout' ? 'timeout' : 'error', (err instanceof Error ? err.message : String(err)).slice(0, 200))
    }
    // The drawn page's address as the engine sees it (a mapped test host is translated back).
    const finalUrl = (target.base && resolveRedirect(drawn.url, url, target)?.href) || drawn.url
    const verdict = classify({ status: drawn.status, url: finalUrl, body: drawn.html, headers: {} }, req, this.maxRedirects)
    if (verdict.outcome !== 'ok') return fail(verdict.outcome, verdict.reason ?? `HTTP ${drawn.status}`, drawn.status)
    const attempt: RouteAttempt = { ...base, status: drawn.status, outcome: 'ok', ms: Date.now() - started }
    metrics.upstreamAttempt(attempt)
    return { status: drawn.status, url: finalUrl, body: drawn.html, attempts: [attempt] }
  }
}
