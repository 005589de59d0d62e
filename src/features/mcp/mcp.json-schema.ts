import { z } from 'zod'

/**
 * The JSON Schemas tools/list carries (draft-07, as the SDK's McpServer emits), without what says
 * little to a client: every byte is read by the model at each conversation start (docs/mcp.md
 * keeps tools/list under 15 KB). Nothing removed here makes a schema stricter.
 */
export function toolJsonSchema(schema: z.ZodType, io: 'input' | 'output'): Record<string, unknown> {
  const { $schema: _drop, ...rest } = z.toJSONSchema(schema, { target: 'draft-7', io, unrepresentable: 'any' }) as Record<string, unknown>
  return compact(rest, io, true) as Record<string, unknown>
}

type Node = Record<string, unknown>

const isNode = (v: unknown): v is Node => typeof v === 'object' && v !== null && !Array.isArray(v)

function compact(value: unknown, io: 'input' | 'output', top: boolean): unknown {
  if (Array.isArray(value)) return value.map((v) => compact(v, io, false))
  if (!isNode(value)) return value
  const out: Node = {}
  for (const [key, v] of Object.entries(value)) {
    if (key === 'properties' && isNode(v)) out[key] = Object.fromEntries(Object.entries(v).map(([name, p]) => [name, compact(p, io, false)]))
    else out[key] = compact(v, io, false)
  }
  // String lengths (a URL up to 8,192 characters) and patterns (a country code's; the descriptions
  // give examples) guard the server: the tool's own check still applies them, naming the argument.
  // .int() bounds integers to the safe range.
  if (out.type === 'string') {
    delete out.minLength
    delete out.maxLength
    delete out.pattern
  }
  if (out.minimum === Number.MIN_SAFE_INTEGER) delete out.minimum
  if (out.maximum === Number.MAX_SAFE_INTEGER) delete out.maximum
  // JSON object keys are strings anyway; {} allows anything, as leaving it out does.
  if (isNode(out.propertyNames) && out.propertyNames.type === 'string' && Object.keys(out.propertyNames).length === 1) delete out.propertyNames
  if (isNode(out.additionalProperties) && Object.keys(out.additionalProperties).length === 0) delete out.additionalProperties
  if (isNode(out.properties) && Object.keys(out.properties).length === 0 && !top) delete out.properties
  if (isNode(out.items) && Object.keys(out.items).length === 0) delete out.items
  // Outputs type their fields; which are always there is for the docs, not for each conversation.
  if (io === 'output') delete out.required
  // Outputs are what the server sends: refusing extra keys there tells a client nothing. Inputs keep
  // it only at the top (unknown arguments are refused by name there).
  if (out.additionalProperties === false && (io === 'output' || !top)) delete out.additionalProperties
  return foldNullable(out)
}

/** {anyOf: [{type: 'string'}, {type: 'null'}]} → {type: ['string', 'null']}: the same schema, shorter. */
function foldNullable(node: Node): Node {
  const { anyOf, ...rest } = node
  if (!Array.isArray(anyOf) || anyOf.length !== 2) return node
  const nullIndex = anyOf.findIndex((s) => isNode(s) && s.type === 'null' && Object.keys(s).length === 1)
  const other = anyOf[1 - nullIndex]
  if (nullIndex < 0 || !isNode(other) || typeof other.type !== 'string' || 'enum' in other || 'const' in other) return node
  if (Object.keys(rest).some((k) => k in other)) return node
  return { ...other, ...rest, type: [other.type, 'null'] }
}
