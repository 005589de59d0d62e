import type { default as Ajv2020 } from 'ajv/dist/2020.js'
import { ApiError } from '../errors.ts'

/**
 * A caller's JSON Schema for what a model writes (research's output_schema, extraction's schema;
 * docs/models.md): checked with ajv when the request comes in, before any credit moves, and again
 * against what the model wrote. A schema comes from a client, so what ajv would trust blindly is
 * bounded here first: its size and depth, and no `pattern` (a regular expression chosen by a
 * client could spend minutes on one string of the model's output, on the server's only thread).
 */

export type CheckOutput = (data: unknown) => string | null

const DRAFT_2020 = /^https:\/\/json-schema\.org\/draft\/2020-12\/schema#?$/
const DRAFT_07 = /^http:\/\/json-schema\.org\/draft-07\/schema#?$/
const MAX_DEPTH = 32
const MAX_ERROR_CHARS = 1000
const REFUSED_KEYWORDS = ['pattern', 'patternProperties']

type AjvClass = typeof Ajv2020
// Loaded at the first output_schema: most deployments never compile one.
let modules: Promise<{ v2020: AjvClass; v07: AjvClass }> | null = null
const loadAjv = () => {
  modules ??= Promise.all([import('ajv/dist/2020.js'), import('ajv')]).then(([a, b]) => ({
    v2020: defaultOf(a) as AjvClass,
    v07: defaultOf(b) as unknown as AjvClass,
  }))
  return modules
}
// ajv is CommonJS: its class is `default` under Node's loader and `default.default` under some bundlers.
const defaultOf = (m: { default: unknown }) => ((m.default as { default?: unknown }).default ?? m.default) as unknown

/** A schema longer than this, as JSON, is refused: it goes to the model with every call. */
const MAX_SCHEMA_CHARS = 20_000

/** The checker of data against `schema`; throws 400 invalid_request naming `param` and what is wrong with the schema. */
export async function compileOutputSchema(schema: Record<string, unknown>, param = 'output_schema'): Promise<CheckOutput> {
  const refuse = (message: string) => new ApiError('invalid_request', `${param} ${message}`)
  // Depth first: it bounds the recursion of everything after it.
  const refused = refusedKeyword(schema, 0)
  if (refused) throw refuse(refused)
  if (JSON.stringify(schema).length > MAX_SCHEMA_CHARS) throw refuse(`must be at most ${MAX_SCHEMA_CHARS.toLocaleString('en')} characters as JSON`)
  const draft = schema.$schema
  if (draft !== undefined && (typeof draft !== 'string' || !(DRAFT_2020.test(draft) || DRAFT_07.test(draft)))) {
    throw refuse('$schema must be https://json-schema.org/draft/2020-12/schema or http://json-schema.org/draft-07/schema#, or left out (2020-12)')
  }
  const { v2020, v07 } = await loadAjv()
  const Ajv = typeof draft === 'string' && DRAFT_07.test(draft) ? v07 : v2020
  const ajv = new Ajv({
    allErrors: true,
    strictSchema: true,
    strictNumbers: true,
    strictTypes: false,
    strictTuples: false,
    strictRequired: false,
    allowUnionTypes: true,
    validateFormats: false,
    logger: false,
  })
  if (!ajv.validateSchema(schema)) throw refuse(`is not a valid JSON Schema: ${ajv.errorsText(ajv.errors, { dataVar: param, separator: '; ' })}`)
  if (schema.type !== 'object') throw refuse('must describe an object: "type": "object" at the top level')
  let validate: ReturnType<typeof ajv.compile>
  try {
    validate = ajv.compile(schema)
  } catch (err) {
    throw refuse(`cannot be used: ${(err as Error).message}`)
  }
  return (data) => (validate(data) ? null : ajv.errorsText(validate.errors, { dataVar: 'data', separator: '; ' }).slice(0, MAX_ERROR_CHARS))
}

/** Keys whose value maps names to schemas: there a key named like a keyword (a field called "pattern") is no keyword. */
const NAME_MAPS = ['properties', '$defs', 'definitions', 'dependentSchemas']

/** The first keyword refused, or a nesting deeper than MAX_DEPTH, as a message; null when there is none. */
function refusedKeyword(node: unknown, depth: number, names = false): string | null {
  if (depth > MAX_DEPTH) return `is nested more than ${MAX_DEPTH} levels deep`
  if (node === null || typeof node !== 'object') return null
  for (const [key, value] of Array.isArray(node) ? node.entries() : Object.entries(node)) {
    if (!names && typeof key === 'string' && REFUSED_KEYWORDS.includes(key)) {
      return `may not use ${key}: a regular expression from the request could run for minutes on one string`
    }
    const found = refusedKeyword(value, depth + 1, !names && typeof key === 'string' && NAME_MAPS.includes(key))
    if (found) return found
  }
  return null
}
