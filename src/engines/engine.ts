/**
 * The engines as the rest of the code names them. Provider names are the capability table's keys
 * (registry.ts); what a provider declares is in provider.types.ts, the bound provider in
 * search-engine.types.ts. Nothing under engines/ imports this file, so it closes no import circle.
 */
import type { EngineName } from './registry.ts'
import type { SearchEngine as BoundEngine } from './search-engine.types.ts'

export type { EngineParam, EngineVerticalName } from './provider.types.ts'
export type { EngineName }

/** A provider of this server, bound to the upstream client. */
export type SearchEngine = BoundEngine<EngineName>
