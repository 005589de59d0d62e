import { createHash } from 'node:crypto'
import type { ProxyEngines, ProxyPool } from '../../config.ts'
import type { AttemptOutcome, ProxyHealth } from './upstream.types.ts'

/** One proxy chosen for one attempt. `url` may hold credentials; only `label` is ever shown. */
export interface ProxyRoute {
  pool: string
  url: string
  label: string
}

export interface CooldownOptions {
  /** First cool-down after a failure; each consecutive failure doubles it. */
  baseMs: number
  maxMs: number
}

export const DEFAULT_COOLDOWN: CooldownOptions = { baseMs: 30_000, maxMs: 600_000 }

interface Penalty {
  failures: number
  until: number
}

/**
 * One proxy's cool-down as a process computed it, for the others of the deployment. `proxy` is
 * `proxyId(url)`, never the URL (which may hold credentials); `engine` null is the proxy's own
 * penalty (timeouts, connection errors), else one engine's block; `until` 0 means healthy again.
 */
export interface PenaltyChange {
  proxy: string
  engine: string | null
  failures: number
  until: number
}

/** How cool-downs travel between processes (src/signals in production). */
export interface PenaltyShare {
  publish(change: PenaltyChange): void
  subscribe(apply: (change: PenaltyChange) => void): void
}

/** A stable id for a proxy URL that reveals nothing of it. */
export function proxyId(url: string): string {
  return createHash('sha256').update(url).digest('hex').slice(0, 24)
}

interface ProxyState extends ProxyRoute {
  id: string
  /** Timeouts and connection errors: the proxy itself is unwell, for every engine. */
  own: Penalty
  /** Blocks are per engine: an address Google refuses may still be fine for Bing. */
  blocks: Map<string, Penalty>
  lastOutcome: AttemptOutcome | null
}

/**
 * Health and rotation of the configured proxy pools. With a `share`, every cool-down this process
 * starts or ends is published and the other processes' are applied here, so a proxy that failed
 * for one process is rested by all. A restart forgets cool-downs, which at worst costs one failed
 * attempt per bad proxy.
 */
export class ProxyPools {
  readonly #pools: { name: string; proxies: ProxyState[]; cursor: number }[]
  readonly #cooldown: CooldownOptions
  readonly #now: () => number

  readonly #share: PenaltyShare | undefined
  /** TRAWL_PROXY_ENGINES: an engine's own pools in order, or none (direct); engines not listed take all. */
  readonly #engines: ProxyEngines

  constructor(pools: readonly ProxyPool[], cooldown: CooldownOptions = DEFAULT_COOLDOWN, now = Date.now, share?: PenaltyShare, engines: ProxyEngines = {}) {
    this.#cooldown = cooldown
    this.#now = now
    this.#share = share
    this.#engines = engines
    this.#pools = pools
      .filter((p) => p.urls.length > 0)
      .map((p) => ({
        name: p.name,
        cursor: 0,
        proxies: p.urls.map((url) => ({
          pool: p.name,
          url,
          id: proxyId(url),
          label: proxyLabel(url),
          own: { failures: 0, until: 0 },
          blocks: new Map(),
          lastOutcome: null,
        })),
      }))
    if (this.enabled) share?.subscribe((change) => this.#apply(change))
  }

  get enabled(): boolean {
    return this.#pools.length > 0
  }

  /** Whether `engine`'s requests go through proxies (TRAWL_PROXY_ENGINES may send one directly). */
  enabledFor(engine: string): boolean {
    return this.#poolsFor(engine).length > 0
  }

  /** Number of proxies `engine`'s requests may take. */
  sizeFor(engine: string): number {
    return this.#poolsFor(engine).reduce((n, p) => n + p.proxies.length, 0)
  }

  #poolsFor(engine: string) {
    const names = Object.hasOwn(this.#engines, engine) ? this.#engines[engine] : undefined
    if (names === undefined) return this.#pools
    return this.#pools.filter((p) => names.includes(p.name)).sort((a, b) => names.indexOf(a.name) - names.indexOf(b.name))
  }

  /**
   * The next healthy proxy not yet tried by this request, round robin within a pool, pools in
   * failover order. A pool is left once `perPoolLimit` of its proxies failed for this request.
   */
  pick(engine: string, tried: ReadonlySet<string>, perPoolLimit: number): ProxyRoute | null {
    const now = this.#now()
    for (const pool of this.#poolsFor(engine)) {
      const triedHere = pool.proxies.filter((p) => tried.has(p.url)).length
      if (triedHere >= perPoolLimit) continue
      for (let i = 0; i < pool.proxies.length; i++) {
        const index = (pool.cursor + i) % pool.proxies.length
        const proxy = pool.proxies[index]
        if (!proxy || tried.has(proxy.url) || availableAt(proxy, engine) > now) continue
        pool.cursor = index + 1
        return toRoute(proxy)
      }
    }
    return null
  }

  /**
   * When every proxy is cooling down, the first attempt of a request still goes out, through the
   * proxy whose cool-down ends first, rather than failing without trying. Never falls back to a
   * direct connection: operators configure proxies precisely so the server's address is not used.
   */
  pickLastResort(engine: string): ProxyRoute | null {
    let best: ProxyState | null = null
    for (const proxy of this.#poolsFor(engine).flatMap((p) => p.proxies)) {
      if (!best || availableAt(proxy, engine) < availableAt(best, engine)) best = proxy
    }
    return best ? toRoute(best) : null
  }

  /** `penalise` is false for failures that are not the route's fault (a 404, an oversized page). */
  report(route: ProxyRoute, engine: string, outcome: AttemptOutcome, penalise: boolean): void {
    const proxy = this.#find(route.url)
    if (!proxy) return
    proxy.lastOutcome = outcome
    if (outcome === 'ok') {
      // Only a cool-down that ends is news to the other processes, not every success.
      const ownCleared = proxy.own.failures > 0
      const blockCleared = proxy.blocks.has(engine)
      proxy.own = { failures: 0, until: 0 }
      proxy.blocks.delete(engine)
      if (ownCleared) this.#share?.publish({ proxy: proxy.id, engine: null, failures: 0, until: 0 })
      if (blockCleared) this.#share?.publish({ proxy: proxy.id, engine, failures: 0, until: 0 })
      return
    }
    if (!penalise) return
    if (outcome === 'blocked') {
      const penalty = this.#escalate(proxy.blocks.get(engine))
      proxy.blocks.set(engine, penalty)
      this.#share?.publish({ proxy: proxy.id, engine, ...penalty })
    } else {
      proxy.own = this.#escalate(proxy.own)
      this.#share?.publish({ proxy: proxy.id, engine: null, ...proxy.own })
    }
  }

  /** Another process's view of a proxy: a longer cool-down is taken over, a recovery clears ours. */
  #apply(change: PenaltyChange) {
    const proxy = this.#pools.flatMap((p) => p.proxies).find((p) => p.id === change.proxy)
    if (!proxy) return
    const current = change.engine === null ? proxy.own : proxy.blocks.get(change.engine)
    if (change.until !== 0 && current && current.until >= change.until) return
    const next = change.until === 0 ? { failures: 0, until: 0 } : { failures: change.failures, until: change.until }
    if (change.engine === null) proxy.own = next
    else if (change.until === 0) proxy.blocks.delete(change.engine)
    else proxy.blocks.set(change.engine, next)
  }

  health(): ProxyHealth[] {
    const now = this.#now()
    return this.#pools.flatMap((pool) =>
      pool.proxies.map((p) => {
        const blockedBy: Record<string, string> = {}
        for (const [engine, penalty] of p.blocks) {
          if (penalty.until > now) blockedBy[engine] = new Date(penalty.until).toISOString()
        }
        return {
          pool: pool.name,
          proxy: p.label,
          healthy: p.own.until <= now,
          consecutiveFailures: p.own.failures,
          coolingUntil: p.own.until > now ? new Date(p.own.until).toISOString() : null,
          lastOutcome: p.lastOutcome,
          blockedBy,
        }
      }),
    )
  }

  #escalate(previous: Penalty | undefined): Penalty {
    const failures = (previous?.failures ?? 0) + 1
    const ms = Math.min(this.#cooldown.baseMs * 2 ** (failures - 1), this.#cooldown.maxMs)
    return { failures, until: this.#now() + ms }
  }

  #find(url: string): ProxyState | undefined {
    for (const pool of this.#pools) {
      const found = pool.proxies.find((p) => p.url === url)
      if (found) return found
    }
    return undefined
  }
}

function availableAt(proxy: ProxyState, engine: string): number {
  return Math.max(proxy.own.until, proxy.blocks.get(engine)?.until ?? 0)
}

function toRoute(p: ProxyState): ProxyRoute {
  return { pool: p.pool, url: p.url, label: p.label }
}

/** `host:port` only: proxy URLs often carry credentials, and routes are shown to API users. */
export function proxyLabel(url: string): string {
  const u = new URL(url)
  const port = u.port || (u.protocol === 'https:' ? '443' : '80')
  return `${u.hostname}:${port}`
}
