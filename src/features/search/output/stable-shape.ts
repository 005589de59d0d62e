/**
 * format=json sends every key its response schema requires, on every item: parsers leave out what a page lacks
 * (types `Parsed<T>`), and this fills it in when the body is rendered, so bodies read back from the cache get it
 * too. Driven by the schemas' `.shape`, so a field added to a schema is filled without a change here.
 */
import { z } from 'zod'
import { isPlainObject } from './fields.projection.ts'
import { type JsonObject, type ResponseBody, responseSchema, type Vertical } from './output.types.ts'

/** The format=json body of a vertical: every schema key present, null when unknown, [] for an empty list. */
export function completeBody<B extends ResponseBody>(vertical: Vertical, body: B): JsonObject {
  // SPEC: ads only when asked for, and then always, even when the page had none.
  const asked = vertical === 'search' && (body.request as { ads?: unknown }).ads === true
  return complete(responseSchema(vertical), asked ? { ...body, ads: (body as { ads?: unknown }).ads ?? [] } : body) as JsonObject
}

/** `value` with the keys `schema` requires filled in, at any depth. Keys in schema order, unknown keys after. */
export function complete(schema: z.ZodType, value: unknown): unknown {
  const inner = unwrap(schema)
  if (inner instanceof z.ZodArray && Array.isArray(value)) return value.map((item) => complete(inner.element as z.ZodType, item))
  if (!(inner instanceof z.ZodObject) || !isPlainObject(value)) return value
  const out: JsonObject = {}
  for (const [key, field] of Object.entries(inner.shape as Record<string, z.ZodType>)) {
    const filled = value[key] === undefined ? fillFor(field) : complete(field, value[key])
    if (filled !== undefined) out[key] = filled
  }
  for (const [key, child] of Object.entries(value)) if (!(key in out) && child !== undefined) out[key] = child
  return out
}

/**
 * What a missing key becomes: nothing when the schema lets it be absent (optional), else null when it may be null,
 * else [] for a list. A missing required scalar stays missing: that is a parser bug the schema tests catch.
 */
function fillFor(field: z.ZodType): unknown {
  if (field.safeParse(undefined).success) return undefined
  if (field.safeParse(null).success) return null
  return unwrap(field) instanceof z.ZodArray ? [] : undefined
}

function unwrap(schema: z.ZodType): z.ZodType {
  let s = schema
  while (s instanceof z.ZodOptional || s instanceof z.ZodNullable) s = s.unwrap() as z.ZodType
  return s
}
