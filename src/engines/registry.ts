import type { Config } from '../config.ts'
import { bingProvider } from './bing/bing.provider.ts'
import { braveProvider } from './brave/brave.provider.ts'
import { duckduckgoProvider } from './duckduckgo/duckduckgo.provider.ts'
import { builtInNamesOf, engineNamesOf, type NamedRow, type NamesStyle, namesText, primaryOf } from './engine-names.ts'
import { googleProvider } from './google/google.provider.ts'
import { EngineHealth, type HealthShare, routeLayout } from './health.ts'
import { mojeekProvider } from './mojeek/mojeek.provider.ts'
import { bindProvider } from './provider.engine.ts'
import type { EngineVerticalName, Provider } from './provider.types.ts'
import type { SearchEngine } from './search-engine.types.ts'
import { searxngProvider } from './searxng/searxng.provider.ts'
import { serperProvider } from './serper/serper.provider.ts'
import { startpageProvider } from './startpage/startpage.provider.ts'
import type { UpstreamClient } from './upstream/upstream-client.ts'
import { wikipediaProvider } from './wikipedia/wikipedia.provider.ts'

export interface EngineOptions {
  reviewsTokenSecret: string
  braveApiKey: string | null
  /** The operator's SearXNG instance (TRAWL_SEARXNG_URL); no searxng provider without it. */
  searxngUrl?: string | null
  /** Serper's API key (TRAWL_SERPER_API_KEY); no serper provider without it. */
  serperApiKey?: string | null
  cooldownMs: number
  /** One deadline for every provider `consensus` asks (the upstream deadline). */
  deadlineMs: number
  share?: HealthShare
}

export interface ProviderRow extends NamedRow {
  /** The row's provider in this deployment; null for the operator's own service when it is not configured. */
  provider: (opts: EngineOptions, upstream: UpstreamClient) => Provider | null
  /** Tried by `auto` (after the ones above it). */
  auto: boolean
  /** Asked by `consensus`: an independent web index (not a proxy of another row's results). */
  consensus: boolean
}

/**
 * The capability table: every provider Trawl knows, by name, in `auto`'s fallback order (the
 * primary first), and whether `auto` and `consensus` may pick it. A provider's verticals and
 * parameters are its own `capabilities`. A new engine is a folder under engines/ and a row here;
 * nothing else names it: the names accepted, the longest engine list and the names parameter
 * descriptions give are derived below (docs/engines.md).
 */
export const CAPABILITY_TABLE = {
  google: {
    provider: (opts, upstream) => googleProvider({ ...opts, browserRefusal: (url) => upstream.browserRefusal(url, 'google') }),
    auto: true,
    consensus: true,
  },
  // The operator's own services, providers only when configured, right after the primary: they were
  // set up to answer when it cannot (free instance first, paid key next), and each aggregates or
  // resells other engines' results, so neither is an independent index for consensus.
  searxng: {
    provider: (opts) => (opts.searxngUrl ? searxngProvider(opts.searxngUrl) : null),
    auto: true,
    consensus: false,
    configuredOnly: true,
  },
  serper: {
    provider: (opts) => (opts.serperApiKey ? serperProvider(opts.serperApiKey) : null),
    auto: true,
    consensus: false,
    configuredOnly: true,
  },
  bing: { provider: () => bingProvider, auto: true, consensus: true },
  duckduckgo: { provider: () => duckduckgoProvider, auto: true, consensus: true },
  brave: { provider: (opts) => braveProvider(opts.braveApiKey ?? undefined), auto: true, consensus: true },
  mojeek: { provider: () => mojeekProvider, auto: true, consensus: true },
  // Startpage serves Google's results: a fallback when Google blocks us, not a second opinion.
  startpage: { provider: () => startpageProvider, auto: true, consensus: false },
  // One site's articles: asked by name only; as a fallback for web search it would mislead.
  wikipedia: { provider: () => wikipediaProvider, auto: false, consensus: false },
} satisfies Record<string, ProviderRow>

export type EngineName = keyof typeof CAPABILITY_TABLE

/** Every provider name, accepted by `engine` on any server (the operator's own services last). */
export const ENGINE_NAMES = engineNamesOf(CAPABILITY_TABLE)

/** The first row: what a request without `engine` asks (unless its key has fallback on). */
export const PRIMARY_ENGINE = primaryOf(CAPABILITY_TABLE)

/** The providers every server has, the primary first: the ones parameter descriptions list. */
export const BUILT_IN_ENGINES = builtInNamesOf(CAPABILITY_TABLE)

/** The most providers an `engine` array may hold: each built-in provider once. */
export const MAX_ENGINE_LIST = BUILT_IN_ENGINES.length

/** The built-in providers as a parameter's description names them: "google (default), bing, … or wikipedia". */
export function describeEngines(style?: NamesStyle): string {
  return namesText(BUILT_IN_ENGINES, style)
}

/** The bound engines, their order and their health; what search, verticals, rank and customsearch ask. */
export class Engines {
  readonly health: EngineHealth
  private readonly byName = new Map<string, SearchEngine<EngineName>>()

  constructor(
    private readonly rows: { engine: SearchEngine<EngineName>; auto: boolean; consensus: boolean }[],
    health: EngineHealth,
    readonly deadlineMs: number,
  ) {
    this.health = health
    for (const row of rows) this.byName.set(row.engine.name, row.engine)
  }

  get primary(): EngineName {
    return this.rows[0]?.engine.name ?? PRIMARY_ENGINE
  }

  get(name: string): SearchEngine<EngineName> | undefined {
    return this.byName.get(name)
  }

  names(): EngineName[] {
    return this.rows.map((r) => r.engine.name)
  }

  all(): SearchEngine<EngineName>[] {
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
    deadlineMs: config.upstreamTimeoutMs,
  }
}

export function createEngines(upstream: UpstreamClient, opts: EngineOptions): Engines {
  const health = new EngineHealth({ cooldownMs: opts.cooldownMs, share: opts.share })
  const rows: ConstructorParameters<typeof Engines>[0] = []
  for (const r of Object.values(CAPABILITY_TABLE)) {
    const provider = r.provider(opts, upstream)
    if (provider) rows.push({ engine: bindProvider(upstream, provider, health), auto: r.auto, consensus: r.consensus })
  }
  return new Engines(rows, health, opts.deadlineMs)
}
