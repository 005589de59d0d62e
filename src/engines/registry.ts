import type { Config } from '../config.ts'
import { bingProvider } from './bing/bing.provider.ts'
import { braveProvider } from './brave/brave.provider.ts'
import { duckduckgoProvider } from './duckduckgo/duckduckgo.provider.ts'
import type { EngineName, EngineVerticalName, Provider, SearchEngine } from './engine.ts'
import { googleProvider } from './google/google.provider.ts'
import { EngineHealth, type HealthShare, routeLayout } from './health.ts'
import { mojeekProvider } from './mojeek/mojeek.provider.ts'
import { bindProvider } from './provider.engine.ts'
import { searxngProvider } from './searxng/searxng.provider.ts'
import { serperProvider } from './serper/serper.provider.ts'
import { startpageProvider } from './startpage/startpage.provider.ts'
import type { UpstreamClient } from './upstream/upstream-client.ts'
import { wikipediaProvider } from './wikipedia/wikipedia.provider.ts'

/**
 * The capability table: every provider Trawl knows, in `auto`'s fallback order (the primary
 * first), and whether `auto` and `consensus` may pick it. A provider's verticals and parameters
 * are its own `capabilities`. A new engine is a folder under engines/ and a row here.
 */
interface ProviderRow {
  provider: Provider
  /** Tried by `auto` (after the ones above it). */
  auto: boolean
  /** Asked by `consensus`: an independent web index (not a proxy of another row's results). */
  consensus: boolean
}

export interface EngineOptions {
  reviewsTokenSecret: string
  braveApiKey: string | null
  /** The operator's SearXNG instance (TRAWL_SEARXNG_URL); no searxng provider without it. */
  searxngUrl?: string | null
  /** Serper's API key (TRAWL_SERPER_API_KEY); no serper provider without it. */
  serperApiKey?: string | null
  cooldownMs: number
  /** One deadline for every provider `consensus` asks (the upstream deadline). */
  consensusDeadlineMs: number
  share?: HealthShare
}

function providerRows(opts: EngineOptions, upstream: UpstreamClient): ProviderRow[] {
  return [
    { provider: googleProvider({ ...opts, browserRefusal: (url) => upstream.browserRefusal(url) }), auto: true, consensus: true },
    // The operator's own services, listed only when configured, right after the primary: they were
    // set up to answer when it cannot (free instance first, paid key next), and each aggregates or
    // resells other engines' results, so neither is an independent index for consensus.
    ...(opts.searxngUrl ? [{ provider: searxngProvider(opts.searxngUrl), auto: true, consensus: false }] : []),
    ...(opts.serperApiKey ? [{ provider: serperProvider(opts.serperApiKey), auto: true, consensus: false }] : []),
    { provider: bingProvider, auto: true, consensus: true },
    { provider: duckduckgoProvider, auto: true, consensus: true },
    { provider: braveProvider(opts.braveApiKey ?? undefined), auto: true, consensus: true },
    { provider: mojeekProvider, auto: true, consensus: true },
    // Startpage serves Google's results: a fallback when Google blocks us, not a second opinion.
    { provider: startpageProvider, auto: true, consensus: false },
    // One site's articles: asked by name only; as a fallback for web search it would mislead.
    { provider: wikipediaProvider, auto: false, consensus: false },
  ]
}

/** The bound engines, their order and their health; what search, verticals, rank and customsearch ask. */
export class Engines {
  readonly health: EngineHealth
  private readonly byName = new Map<string, SearchEngine>()

  constructor(
    private readonly rows: { engine: SearchEngine; auto: boolean; consensus: boolean }[],
    health: EngineHealth,
    readonly consensusDeadlineMs: number,
  ) {
    this.health = health
    for (const row of rows) this.byName.set(row.engine.name, row.engine)
  }

  get primary(): EngineName {
    return this.rows[0]?.engine.name ?? 'google'
  }

  get(name: string): SearchEngine | undefined {
    return this.byName.get(name)
  }

  names(): EngineName[] {
    return this.rows.map((r) => r.engine.name)
  }

  all(): SearchEngine[] {
    return this.rows.map((r) => r.engine)
  }

  /**
   * Why the primary's web search has no working route (every route unusable here or cooling down
   * after a refusal, an unreadable page or network failures), or null while one works.
   */
  primaryDown(): string | null {
    const engine = this.get(this.primary)
    if (!engine) return null
    const why: string[] = []
    for (const route of engine.routes()) {
      if (route.unavailable) {
        why.push(`${route.name}: ${route.unavailable}`)
        continue
      }
      const layout = routeLayout('search', route.name)
      if (this.health.available(engine.name, layout)) return null
      why.push(`${route.name}: ${this.health.state(engine.name, layout)}`)
    }
    return `${engine.name} has no working route (${why.join('; ')})`
  }

  /** Providers `auto` walks, in order. */
  autoOrder(): EngineName[] {
    return this.rows.filter((r) => r.auto).map((r) => r.engine.name)
  }

  /** Providers `consensus` asks. */
  consensusSet(): EngineName[] {
    return this.rows.filter((r) => r.consensus).map((r) => r.engine.name)
  }

  offering(vertical: EngineVerticalName): EngineName[] {
    return this.rows.filter((r) => r.engine.capabilities.verticals.includes(vertical)).map((r) => r.engine.name)
  }
}

/** The engine options a deployment's Config sets; the caller adds the reviews secret and the health share. */
export function engineOptionsOf(config: Pick<Config, 'braveApiKey' | 'searxngUrl' | 'serperApiKey' | 'engineCooldownMs' | 'upstreamTimeoutMs'>) {
  return {
    braveApiKey: config.braveApiKey,
    searxngUrl: config.searxngUrl,
    serperApiKey: config.serperApiKey,
    cooldownMs: config.engineCooldownMs,
    consensusDeadlineMs: config.upstreamTimeoutMs,
  }
}

export function createEngines(upstream: UpstreamClient, opts: EngineOptions): Engines {
  const health = new EngineHealth({ cooldownMs: opts.cooldownMs, share: opts.share })
  const rows = providerRows(opts, upstream).map((row) => ({ engine: bindProvider(upstream, row.provider, health), auto: row.auto, consensus: row.consensus }))
  return new Engines(rows, health, opts.consensusDeadlineMs)
}
