import type { EngineName, EngineParam, EngineVerticalName } from '../../../engines/engine.ts'
import { ENGINE_NAMES, type Engines } from '../../../engines/registry.ts'
import type { RouteAttempt } from '../../../engines/upstream/upstream.types.ts'

/**
 * SearXNG engine names that are Trawl providers: the provider's own name and its per-category
 * variants ("google news", "bing images", "brave.videos", "duckduckgo images", …).
 */
const PROVIDER_OF: ReadonlyMap<string, EngineName> = new Map(
  ENGINE_NAMES.flatMap((name) =>
    [name, ...['news', 'images', 'videos'].flatMap((c) => [`${name} ${c}`, `${name}.${c}`])].map((alias) => [alias, name] as const),
  ),
)

export type Unresponsive = [engine: string, reason: string]

export interface EngineChoice {
  /** The providers to try, in the order asked; empty when none was asked or none can serve. */
  providers: EngineName[]
  /** Engines asked for that are not used, with the reason (SearXNG's unresponsive_engines). */
  skipped: Unresponsive[]
}

/**
 * The `engines` parameter as Trawl providers: names Trawl does not have, and providers that
 * lack the vertical or a parameter the request sends, are skipped and reported (never a 400,
 * as SearXNG ignores engines it cannot use). Duplicates fold into the first mention.
 */
export function chooseEngines(engines: Engines, asked: string[], vertical: EngineVerticalName, params: EngineParam[], category: string): EngineChoice {
  const providers: EngineName[] = []
  const skipped: Unresponsive[] = []
  for (const name of asked) {
    const provider = PROVIDER_OF.get(name)
    if (!provider) {
      skipped.push([name, 'unknown engine: not a provider of this Trawl server'])
      continue
    }
    if (providers.includes(provider)) continue
    const engine = engines.get(provider)
    if (!engine || !engines.offering(vertical).includes(provider)) {
      skipped.push([name, `does not offer the ${category} category`])
      continue
    }
    const missing = params.find((p) => !engine.takes(vertical, p))
    if (missing) {
      skipped.push([name, `does not support ${missing === 'time' ? 'time_range' : missing === 'safe' ? 'safesearch' : missing}`])
      continue
    }
    providers.push(provider)
  }
  return { providers, skipped }
}

const REASON: Record<string, string> = { blocked: 'access denied', timeout: 'timeout', error: 'HTTP error', skipped: 'suspended' }

/** Providers Trawl tried that gave no answer (meta.route), as SearXNG reports engines that failed. */
export function failedEngines(attempts: RouteAttempt[], answered: string | undefined): Unresponsive[] {
  const last = new Map<string, RouteAttempt>()
  const ok = new Set<string>()
  for (const a of attempts) {
    if (a.outcome === 'ok') ok.add(a.engine)
    else last.set(a.engine, a)
  }
  return [...last.entries()].filter(([engine]) => !ok.has(engine) && engine !== answered).map(([engine, a]) => [engine, REASON[a.outcome] ?? a.outcome])
}
