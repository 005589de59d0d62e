import type { AuthContext } from '../../http/auth.ts'
import { normaliseContext } from '../context/context.service.ts'
import { normaliseRank } from '../rank/rank.service.ts'
import { DEFAULT_TIMEOUT_SECONDS } from '../reading/reading.schema.ts'
import { normaliseSearch } from '../search/search.service.ts'
import { VERTICAL_SPECS } from '../search/verticals/vertical.specs.ts'

/** A JSON Schema as far as defaults need one. */
export interface ParamSchema {
  type?: string | string[]
  enum?: unknown[]
  pattern?: string
  minimum?: number
  maximum?: number
  anyOf?: ParamSchema[]
  default?: unknown
}

type Normalise = (params: never, auth: AuthContext) => object

/**
 * The search family fills its defaults in code (the echoed `request` shows them): they are read off
 * what the normaliser makes of a request holding only the required parameters.
 */
const NORMALISERS: Record<string, Normalise> = {
  search: normaliseSearch,
  playgroundSearch: normaliseSearch,
  rank: normaliseRank,
  context: normaliseContext,
  ...Object.fromEntries(Object.values(VERTICAL_SPECS).map((spec) => [spec.name, spec.normalise])),
}

/** A key with no fallback, the plan of nobody: `engine` resolves to the primary engine, as for most keys. */
const PROBE: AuthContext = { keyId: '', accountId: '', userId: '', plan: 'free', rps: 0, keyLimitMc: null, allowFallback: false }

/** Page reading's options, as extract.service fills them in (its `request` echoes them). */
const READING_DEFAULTS = { format: 'markdown', highlights: 0, include_links: false, include_images: false, timeout: DEFAULT_TIMEOUT_SECONDS }
const FIXED: Record<string, Record<string, unknown>> = { extract: READING_DEFAULTS, webpage: READING_DEFAULTS }

/** The defaults the code of `operationId` (or of its POST twin) fills in, or {} when it has none. */
export function normalisedDefaults(operationId: string, required: Record<string, unknown>): Record<string, unknown> {
  if (FIXED[operationId]) return FIXED[operationId]
  const normalise = NORMALISERS[operationId] ?? NORMALISERS[operationId.replace(/Get$/, '')]
  if (!normalise) return {}
  const filled = normalise(required as never, PROBE) as Record<string, unknown>
  return Object.fromEntries(Object.entries(filled).filter(([k, v]) => !(k in required) && v !== undefined && typeof v !== 'object'))
}

/**
 * The default a parameter's description states ("default us", "off (default) or active",
 * "1 to 1,000 (default 25)", "google by default"), kept only when it is a valid value of the
 * parameter: prose that names no value ("default: the account webhook") gives none.
 */
export function describedDefault(description: string | undefined, schema: ParamSchema): unknown {
  if (!description) return undefined
  const patterns = [/\(default ([\w.-]+)\)/, /\bdefault ([\w.-]+)(?=[;,)]|$)/, /([\w.-]+) \(default\b/, /([\w.-]+) by default\b/]
  for (const pattern of patterns) {
    const word = pattern.exec(description)?.[1]
    if (word === undefined) continue
    const value = asValueOf(word, schema)
    if (value !== undefined) return value
  }
  return undefined
}

/** `word` as a value `schema` accepts, or undefined. */
function asValueOf(word: string, schema: ParamSchema): unknown {
  if (schema.anyOf) {
    for (const branch of schema.anyOf) {
      const value = asValueOf(word, branch)
      if (value !== undefined) return value
    }
    return undefined
  }
  const types = Array.isArray(schema.type) ? schema.type : [schema.type]
  if (types.includes('integer') || types.includes('number')) {
    const n = Number(word)
    if (!Number.isFinite(n) || (types.includes('integer') && !types.includes('number') && !Number.isInteger(n))) return undefined
    if ((schema.minimum !== undefined && n < schema.minimum) || (schema.maximum !== undefined && n > schema.maximum)) return undefined
    if (schema.enum && !schema.enum.includes(n)) return undefined
    return n
  }
  if (types.includes('boolean')) return word === 'true' ? true : word === 'false' ? false : undefined
  if (types.includes('string')) {
    if (schema.enum && !schema.enum.includes(word)) return undefined
    if (schema.pattern && !new RegExp(schema.pattern, 'u').test(word)) return undefined
    return word
  }
  return undefined
}
