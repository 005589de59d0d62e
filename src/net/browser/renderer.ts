import { randomUUID } from 'node:crypto'
import type { Browser, BrowserContext, Page, Route } from 'playwright-core'
import { ApiError } from '../../errors.ts'
import { type AddressPolicy, allowAll, PRIVATE_ADDRESS_MESSAGE, publicOnly } from '../address-policy.ts'
import { type GuardProxy, REFUSED_HEADER, startGuardProxy } from './guard-proxy.ts'
import { NetworkIdle } from './network-idle.ts'
import { findBrowserPid, treeMemory } from './process-memory.ts'
import { SiteContexts, type SiteLease, siteOf } from './site-contexts.ts'

/**
 * Pages that need JavaScript, drawn by one headless Chromium (docs/rendering.md):
 * - every connection of the browser goes through the guard proxy (guard-proxy.ts), loopback
 *   included (`<-loopback>`), so a page cannot make the browser reach a private address;
 * - at most `contexts` pages at once; pages of one site share a kept context, never one used by
 *   another site at the same time or before (site-contexts.ts: a small LRU pool, a context closed
 *   rather than handed to another site), in the tab its last page was read in; images, media and
 *   fonts are never fetched;
 * - a page is read once its network has been idle for `quietMs` (network-idle.ts), after `load`
 *   (a page quiet at `load` only for `loadGraceMs`) and again after a scroll to the bottom, within
 *   its deadline;
 * - each page has one deadline; after `recyclePages` pages, or when the browser's process tree
 *   uses more than `maxRssMb` (PSS), the browser is retired: new pages go to a new browser and the
 *   old one is closed when its last page ends, so memory stays flat over any number of pages.
 * The browser is launched at the first render, not at start-up.
 */

export interface RendererOptions {
  /** Chromium executable, or null: rendering is off. */
  executablePath: string | null
  contexts: number
  pageTimeoutMs: number
  recyclePages: number
  maxRssMb: number
  policy: AddressPolicy
  userAgent?: string
  /**
   * Site contexts kept per browser (default: twice `contexts`, at least 4); 0 gives every page a
   * fresh context, closed after it (bench:render's baseline).
   */
  siteContexts?: number
  /** A page is read once no request has been in flight for this long (default 100 ms). */
  quietMs?: number
  /**
   * A page with no request in flight at `load` that starts none within this grace is scrolled at
   * once, without a full quiet window first (default 25 ms); null: always a full window first
   * (bench:render's baseline).
   */
  loadGraceMs?: number | null
  log?: { warn(obj: unknown, msg: string): void; info(obj: unknown, msg: string): void }
}

export interface RenderOptions {
  /** Deadline for this page (also bounded by the renderer's page timeout). */
  timeoutMs: number
  signal?: AbortSignal
  /**
   * A kept context for this key (an engine host): its cookies (consent, session) carry over from
   * one page to the next, as a returning browser's would; `userAgent` is set when it is created.
   * Without it, the page goes to its site's context (site-contexts.ts).
   */
  session?: { key: string; userAgent?: string }
  /**
   * Headers added to the navigation and to every request of this page to the same origin as `url`
   * (its scripts, styles, fetches, frames' requests to that origin), during this render only: other
   * origins' requests never carry them, nor does any other page, before or after, in the same kept
   * context or tab. Set on the page's own route, so the guard proxy still carries every request.
   * The mapped upstream's X-Forwarded-Host (TRAWL_UPSTREAM_HOSTS) is what it is for. Limits, as
   * Playwright continues requests: a redirect of a request that carries them carries them too, to
   * whatever origin it leads; WebSockets and pages the page opens (popups) do not carry them; a
   * Cookie given here is dropped (the context's own cookies are sent).
   */
  extraHeaders?: Record<string, string>
}

export interface RenderedPage {
  /** The page's URL once drawn (client-side routing may have moved it). */
  url: string
  status: number
  html: string
}

export interface RendererStatus {
  state: 'off' | 'idle' | 'running' | 'failed'
  executable: string | null
  contexts: number
  pages_in_flight: number
  pages_rendered: number
  browsers_launched: number
  /** Pages that went to a context kept for their site, and site contexts opened. */
  site_contexts_reused: number
  site_contexts_opened: number
  connections_refused: number
  last_error?: string
}

/** Flags known to be needed (STACK.md), plus the leak closers: no QUIC, no WebRTC UDP outside the proxy, no DNS prefetch. */
export function chromiumArgs(proxyUrl: string, marker: string): string[] {
  return [
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    '--disable-quic',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--disable-extensions',
    '--disable-dev-shm-usage',
    '--dns-prefetch-disable',
    '--force-webrtc-ip-handling-policy=disable_non_proxied_udp',
    '--webrtc-ip-handling-policy=disable_non_proxied_udp',
    `--proxy-server=${proxyUrl}`,
    // Without this Chromium connects to localhost and 127.0.0.1 directly, around the proxy.
    '--proxy-bypass-list=<-loopback>',
    marker,
  ]
}

/** Peer connections are the one way to send UDP from a page; removed before any script runs. */
const NO_WEBRTC = `(() => {
  for (const name of ['RTCPeerConnection', 'webkitRTCPeerConnection', 'RTCDataChannel', 'RTCSessionDescription', 'RTCIceCandidate']) {
    try { Object.defineProperty(window, name, { value: undefined, configurable: false, writable: false }) } catch {}
  }
})()`

/** Scrolls to the bottom; resolves once a frame has been drawn and the tasks it queued (observer callbacks) ran, or after 1 s. */
const SCROLL_AND_FRAME = `new Promise((resolve) => {
  window.scrollTo(0, document.documentElement.scrollHeight);
  setTimeout(resolve, 1000);
  requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(resolve, 0)));
})`

/** The drawn DOM as page.content() gives it, in the page's own world: no second world to set up after each navigation. */
const SERIALIZE = `(() => { const d = document.doctype; return (d ? new XMLSerializer().serializeToString(d) : '') + document.documentElement.outerHTML })()`

const BLOCKED_TYPES = new Set(['image', 'media', 'font'])
/** A page is drawn when no request has been in flight for this long after `load`... */
const QUIET_MS = 100
/** ...or after this long, whatever the network does (analytics beacons, long polls). */
const SETTLE_MAX_MS = 4000
/** A page quiet at `load` is scrolled once it has started nothing for this long (`loadGraceMs`). */
const LOAD_GRACE_MS = 25
/** Memory is measured at most this often. */
const MEMORY_CHECK_MS = 2000

interface Generation {
  browser: Browser
  pid: number | null
  pages: number
  inFlight: number
  retiring: boolean
  /** Kept contexts by session key; they go with their browser. */
  sessions: Map<string, Promise<BrowserContext>>
  /** Kept contexts by site; they go with their browser. */
  sites: SiteContexts | null
}

// Kept contexts per browser at most: engine hosts are few; any beyond get fresh contexts.
const MAX_SESSIONS = 8

export class Renderer {
  private proxy: GuardProxy | null = null
  private current: Generation | null = null
  private launching: Promise<Generation> | null = null
  private readonly waiters: (() => void)[] = []
  private inFlight = 0
  private rendered = 0
  private launched = 0
  private lastError: string | undefined
  private lastMemoryCheck = 0
  private closed = false
  private sitesReused = 0
  private sitesOpened = 0
  /** Every browser still open, retiring ones included, so close() leaves no process behind. */
  private readonly open = new Set<Generation>()

  constructor(private readonly opts: RendererOptions) {}

  /** True when a browser is configured; whether it launches is known at the first render. */
  get available(): boolean {
    return this.opts.executablePath !== null
  }

  status(): RendererStatus {
    const state = !this.available ? 'off' : this.current ? 'running' : this.lastError ? 'failed' : 'idle'
    const s: RendererStatus = {
      state,
      executable: this.opts.executablePath,
      contexts: this.opts.contexts,
      pages_in_flight: this.inFlight,
      pages_rendered: this.rendered,
      browsers_launched: this.launched,
      site_contexts_reused: this.sitesReused,
      site_contexts_opened: this.sitesOpened,
      connections_refused: this.proxy?.refused ?? 0,
    }
    if (this.lastError) s.last_error = this.lastError
    return s
  }

  /** Memory of the current browser's process tree, or null when none runs. */
  memory() {
    return this.current?.pid ? treeMemory(this.current.pid) : null
  }

  /**
   * Loads `url` in its site's context (or its session's) and returns the drawn HTML. Throws ApiError: invalid_request
   * when the page's own address is refused by the policy, upstream_timeout past the deadline,
   * upstream_error when the browser cannot load it.
   */
  async render(url: string, opts: RenderOptions): Promise<RenderedPage> {
    if (!this.available || this.closed) throw new ApiError('upstream_error', 'rendering is not available on this server')
    const deadline = Date.now() + Math.min(opts.timeoutMs, this.opts.pageTimeoutMs)
    await this.acquire(deadline, opts.signal)
    let gen: Generation | null = null
    let lease: SiteLease | null = null
    let context: BrowserContext | null = null
    /** A context of this page alone, closed after it. */
    let fresh: BrowserContext | null = null
    let page: Page | null = null
    let keep = false
    /** Removes this render's extra headers from the page, which may be kept for the next one. */
    let headers: (() => Promise<void>) | null = null
    try {
      gen = await this.generation()
      gen.inFlight++
      gen.pages++
      if (gen.pages >= this.opts.recyclePages) this.retire(gen, 'page count')
      const session = opts.session
      const kept = session ? this.sessionContext(gen, session.key, session.userAgent) : null
      const site = siteOf(url)
      if (kept) context = await kept
      else if (gen.sites && !session) {
        lease = await gen.sites.acquire(site)
        if (lease.reused) this.sitesReused++
        else this.sitesOpened++
        context = lease.context
      } else context = fresh = await this.newContext(gen.browser, this.opts.userAgent)
      page = lease ? await lease.page(url) : await context.newPage()
      if (opts.extraHeaders) headers = await addSameOriginHeaders(page, url, opts.extraHeaders)
      const result = await this.load(page, url, deadline, opts.signal)
      // A page that ended on another site leaves that site's state behind: its context is not kept.
      keep = siteOf(result.url) === site
      this.rendered++
      return result
    } catch (e) {
      throw this.toApiError(e, deadline, url)
    } finally {
      // A tab kept for the site's next page leaves this render's headers behind (another tab is
      // closed anyway); one still routing them is never kept.
      if (headers && lease && page) {
        const removed = await headers().then(
          () => true,
          () => false,
        )
        if (!removed) {
          await page.close().catch(() => {})
          page = null
        }
      }
      if (lease) lease.release(keep, page)
      else await page?.close().catch(() => {})
      if (fresh) await fresh.close().catch(() => {})
      if (gen) {
        gen.inFlight--
        this.checkMemory(gen)
        if (gen.retiring && gen.inFlight === 0) void this.closeGeneration(gen)
      }
      this.release()
    }
  }

  private async newContext(browser: Browser, userAgent: string | undefined): Promise<BrowserContext> {
    const context = await browser.newContext({
      serviceWorkers: 'block',
      acceptDownloads: false,
      userAgent,
      viewport: { width: 1280, height: 1000 },
    })
    await context.addInitScript(NO_WEBRTC)
    await context.route('**/*', (route) => (BLOCKED_TYPES.has(route.request().resourceType()) ? route.abort('blockedbyclient') : route.continue()))
    return context
  }

  /** The kept context of `key` in this browser, made at its first page; null when too many are kept. */
  private sessionContext(gen: Generation, key: string, userAgent: string | undefined): Promise<BrowserContext> | null {
    let context = gen.sessions.get(key)
    if (!context) {
      if (gen.sessions.size >= MAX_SESSIONS) return null
      context = this.newContext(gen.browser, userAgent ?? this.opts.userAgent)
      // A context that failed to open is not kept: the next page tries again.
      context.catch(() => gen.sessions.delete(key))
      gen.sessions.set(key, context)
    }
    return context
  }

  private async load(page: Page, url: string, deadline: number, signal?: AbortSignal): Promise<RenderedPage> {
    const network = new NetworkIdle(page)
    const quietMs = this.opts.quietMs ?? QUIET_MS
    const left = () => Math.max(1, deadline - Date.now())
    const abort = () => void page.close().catch(() => {})
    signal?.addEventListener('abort', abort, { once: true })
    // A page that stops answering (a script in an endless loop) is closed at its deadline.
    const timer = setTimeout(abort, left())
    try {
      const response = await page.goto(url, { waitUntil: 'domcontentloaded', timeout: left() })
      if (response && (await response.headerValue(REFUSED_HEADER)) !== null) throw new ApiError('invalid_request', PRIVATE_ADDRESS_MESSAGE)
      // `load` may never come (a hanging subresource); the DOM is read anyway when it does not.
      await page.waitForLoadState('load', { timeout: Math.min(left(), SETTLE_MAX_MS) }).catch(() => {})
      // Requests the page starts after `load` (data fetched by its scripts) are waited for, with a
      // full quiet window: their answers may draw more of the page, lazy sections included, before
      // it is scrolled. A page with nothing in flight at `load` that starts nothing within a short
      // grace has drawn what it draws without data, and is scrolled at once.
      const grace = this.opts.loadGraceMs === undefined ? LOAD_GRACE_MS : this.opts.loadGraceMs
      const busyAtLoad = network.pending > 0
      const startedBefore = network.startedCount
      if (grace !== null && !busyAtLoad) {
        network.touch()
        await network.wait(grace, Math.min(deadline, Date.now() + SETTLE_MAX_MS))
      }
      if (grace === null || busyAtLoad || network.startedCount !== startedBefore) await network.wait(quietMs, Math.min(deadline, Date.now() + SETTLE_MAX_MS))
      // Lazily loaded sections appear when scrolled into view. Observers see the scroll in the next
      // frame and only then start their requests: the quiet window starts after that frame.
      await page.evaluate(SCROLL_AND_FRAME).catch(() => {})
      network.touch()
      await network.wait(quietMs, Math.min(deadline, Date.now() + SETTLE_MAX_MS))
      return { url: page.url(), status: response?.status() ?? 200, html: String(await page.evaluate(SERIALIZE)) }
    } finally {
      clearTimeout(timer)
      network.dispose()
      signal?.removeEventListener('abort', abort)
    }
  }

  private toApiError(e: unknown, deadline: number, url: string): ApiError {
    if (e instanceof ApiError) return e
    const message = e instanceof Error ? e.message : String(e)
    if (Date.now() >= deadline || /Timeout .*exceeded/.test(message)) {
      return new ApiError('upstream_timeout', 'page was still being drawn when the rendering deadline ran out', { retryAfterSeconds: 5, cause: e })
    }
    // A tunnel that failed for the page itself: refused by the address policy, or (offline, a name
    // that does not resolve, a closed port) a network failure, named as the guard proxy saw it.
    if (/ERR_TUNNEL_CONNECTION_FAILED/.test(message)) {
      const failure = this.proxy?.failureFor(new URL(url).hostname)
      if (!failure || failure.kind === 'refused') return new ApiError('invalid_request', PRIVATE_ADDRESS_MESSAGE)
      const why =
        failure.kind === 'dns' ? `DNS has no address for it (${failure.detail}): is this machine offline?` : `the connection failed (${failure.detail})`
      return new ApiError('upstream_error', `page could not be rendered: ${why}`, { retryAfterSeconds: 5, cause: e })
    }
    return new ApiError('upstream_error', `page could not be rendered: ${message.split('\n')[0]!.slice(0, 200)}`, { retryAfterSeconds: 5, cause: e })
  }

  /** A bounded pool: at most `contexts` pages at once; others wait their turn within their deadline. */
  private acquire(deadline: number, signal?: AbortSignal): Promise<void> {
    if (this.inFlight < this.opts.contexts) {
      this.inFlight++
      return Promise.resolve()
    }
    return new Promise<void>((resolve, reject) => {
      const fail = (err: ApiError) => {
        const i = this.waiters.indexOf(go)
        if (i >= 0) this.waiters.splice(i, 1)
        clearTimeout(timer)
        reject(err)
      }
      const go = () => {
        clearTimeout(timer)
        signal?.removeEventListener('abort', onAbort)
        this.inFlight++
        resolve()
      }
      const onAbort = () => fail(new ApiError('upstream_timeout', 'page rendering was cancelled', { retryAfterSeconds: 5 }))
      const timer = setTimeout(
        () => fail(new ApiError('upstream_timeout', 'every browser context stayed busy until the deadline', { retryAfterSeconds: 5 })),
        Math.max(0, deadline - Date.now()),
      )
      signal?.addEventListener('abort', onAbort, { once: true })
      this.waiters.push(go)
    })
  }

  private release() {
    this.inFlight--
    this.waiters.shift()?.()
  }

  private async generation(): Promise<Generation> {
    if (this.current && !this.current.retiring && this.current.browser.isConnected()) return this.current
    this.launching ??= this.launch().finally(() => {
      this.launching = null
    })
    return this.launching
  }

  private async launch(): Promise<Generation> {
    try {
      this.proxy ??= await startGuardProxy({ policy: this.opts.policy })
      const { chromium } = await import('playwright-core')
      const marker = `--trawl-renderer=${randomUUID()}`
      const browser = await chromium.launch({
        executablePath: this.opts.executablePath!,
        headless: true,
        args: chromiumArgs(this.proxy.url, marker),
        timeout: 30_000,
      })
      const siteContexts = this.opts.siteContexts ?? Math.max(4, 2 * this.opts.contexts)
      const sites = siteContexts > 0 ? new SiteContexts(() => this.newContext(browser, this.opts.userAgent), siteContexts) : null
      const gen: Generation = { browser, pid: findBrowserPid(marker), pages: 0, inFlight: 0, retiring: false, sessions: new Map(), sites }
      browser.on('disconnected', () => {
        this.open.delete(gen)
        if (this.current === gen) this.current = null
      })
      this.current = gen
      this.open.add(gen)
      this.launched++
      this.lastError = undefined
      return gen
    } catch (e) {
      this.lastError = e instanceof Error ? e.message.split('\n')[0] : String(e)
      this.opts.log?.warn({ err: e }, 'browser could not be launched')
      throw new ApiError('upstream_error', `the browser could not be started: ${this.lastError}`, { retryAfterSeconds: 30, cause: e })
    }
  }

  private checkMemory(gen: Generation) {
    if (gen.retiring || !gen.pid || Date.now() - this.lastMemoryCheck < MEMORY_CHECK_MS) return
    this.lastMemoryCheck = Date.now()
    const { pssBytes } = treeMemory(gen.pid)
    if (pssBytes > this.opts.maxRssMb * 1024 * 1024) this.retire(gen, `memory ${Math.round(pssBytes / 1048576)} MB`)
  }

  /** New pages go to a new browser; this one closes when its last page ends. */
  private retire(gen: Generation, reason: string) {
    if (gen.retiring) return
    gen.retiring = true
    if (this.current === gen) this.current = null
    this.opts.log?.info({ pages: gen.pages, reason }, 'browser recycled')
    if (gen.inFlight === 0) void this.closeGeneration(gen)
  }

  private async closeGeneration(gen: Generation) {
    this.open.delete(gen)
    await gen.browser.close().catch(() => {})
  }

  async close(): Promise<void> {
    this.closed = true
    const launching = this.launching
    if (launching) await launching.catch(() => null)
    this.current = null
    await Promise.all([...this.open].map((gen) => this.closeGeneration(gen)))
    await this.proxy?.close()
    this.proxy = null
  }
}

/**
 * Routes `page`'s requests to the origin of `url` through a handler that adds `extra` to their
 * headers, then hands them on to the context's route (images, media and fonts aborted); returns
 * what removes it. Only a page given extra headers pays for the handler.
 */
async function addSameOriginHeaders(page: Page, url: string, extra: Record<string, string>): Promise<() => Promise<void>> {
  const origin = new URL(url).origin
  const added: Record<string, string> = {}
  for (const [name, value] of Object.entries(extra)) added[name.toLowerCase()] = value
  // An opaque origin (data:, about:) matches nothing.
  const sameOrigin = (u: URL) => origin !== 'null' && u.origin === origin
  const handler = (route: Route) => route.fallback({ headers: { ...route.request().headers(), ...added } })
  await page.route(sameOrigin, handler)
  return () => page.unroute(sameOrigin, handler)
}

/** The server's renderer, from its Config: the same private-network rule as safeFetch. */
export function createRenderer(config: {
  allowPrivateNetwork: boolean
  browser: Pick<RendererOptions, 'executablePath' | 'contexts' | 'pageTimeoutMs' | 'recyclePages' | 'maxRssMb'>
}): Renderer {
  return new Renderer({ ...config.browser, policy: config.allowPrivateNetwork ? allowAll : publicOnly })
}
