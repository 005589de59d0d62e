/**
 * format=json sends every key its response schema requires, on every item: parsers leave out what a page lacks
 * (types `Parsed<T>`), and this fills it in when the body is rendered, so bodies read back from the cache get it
 * too. Driven by the schemas' `.shape`, so a field added to a schema is filled without a change here.
 */
import { z } from 'zod'
import { isPlainObject } from './fields.projection.ts'
import { type JsonObject, responseSchema, type Vertical } from './output.types.ts'

/** The format=json body of a vertical: every schema key present, null when unknown, [] for an empty list. */
export function completeBody(vertical: Vertical, body: JsonObject): JsonObject {
  // ads only when asked for (ads=true), and then always, even when the page had none.
  const asked = vertical === 'search' && (body.request as { ads?: unknown }).ads === true
  return complete(responseSchema(vertical), asked ? { ...body, ads: body.ads ?? [] } : body) as JsonObject
}

/** `value` with the keys `schema` requires filled in, at any depth. Keys in schema order, unknown keys after. */
export function complete(schema: z.ZodType, value: unknown): unknown {
  return completerFor(schema)(value)
}

type Completer = (value: unknown) => unknown
type Fill = 'absent' | 'null' | 'list'

// Every body rendered walks the same few schemas: each schema's plan (its keys, what a missing key
// becomes, the completer of each child) is worked out once, so rendering a body does no zod parsing.
const completers = new WeakMap<z.ZodType, Completer>()
const same: Completer = (value) => value

function completerFor(schema: z.ZodType): Completer {
  let completer = completers.get(schema)
  if (completer) return completer
  const inner = unwrap(schema)
  if (inner instanceof z.ZodArray) {
    let item: Completer | undefined // resolved on first use: schemas may refer to themselves
    completer = remembered((value) => {
      if (!Array.isArray(value)) return value
      item ??= completerFor(inner.element as z.ZodType)
      return value.map(item)
    })
  } else if (inner instanceof z.ZodObject) {
    let plan: { fields: { key: string; fill: Fill; child: Completer }[]; known: Set<string> } | undefined
    completer = remembered((value) => {
      if (!isPlainObject(value)) return value
      plan ??= planFor(inner.shape as Record<string, z.ZodType>)
      const out: JsonObject = {}
      for (const { key, fill, child } of plan.fields) {
        const present = value[key]
        if (present !== undefined) out[key] = child(present)
        else if (fill === 'null') out[key] = null
        else if (fill === 'list') out[key] = Object.isFrozen(value) ? EMPTY : []
      }
      for (const key of Object.keys(value)) if (!plan.known.has(key) && value[key] !== undefined) out[key] = value[key]
      return out
    })
  } else completer = same
  completers.set(schema, completer)
  return completer
}

const EMPTY = Object.freeze([]) as unknown as unknown[]

/**
 * A frozen value is a cached body's (the response cache deep-freezes what it keeps): it can never
 * change, so its completion is worked out once and kept (frozen too) while the value lives. A cache
 * hit then completes only what is new in it (its meta), and `bodyJson` reuses the children's text.
 */
function remembered(complete: Completer): Completer {
  const done = new WeakMap<object, unknown>()
  return (value) => {
    if (value === null || typeof value !== 'object' || !Object.isFrozen(value)) return complete(value)
    let out = done.get(value)
    if (out === undefined) {
      out = complete(value)
      if (out !== null && typeof out === 'object') Object.freeze(out)
      done.set(value, out)
    }
    return out
  }
}

const jsonOf = new WeakMap<object, Buffer>()
const keyJson = new Map<string, Buffer>()
const [OPEN, COMMA, CLOSE] = [Buffer.from('{'), Buffer.from(','), Buffer.from('}')]

/**
 * JSON.stringify of a completed body as UTF-8 bytes, whose frozen (cached, immutable) children
 * keep their encoded JSON: a replayed cache entry serialises only its new meta, not the whole 6 KB
 * again, and no string of the whole body is built. That string would often be two bytes a
 * character (one non-Latin-1 character in a snippet suffices) and be copied again on its way to
 * the socket: most of what a cache hit allocated. Same bytes as JSON.stringify(body).
 */
export function bodyBytes(body: object): Buffer {
  if (Array.isArray(body) || typeof (body as { toJSON?: unknown }).toJSON === 'function') return Buffer.from(JSON.stringify(body))
  const parts: Buffer[] = [OPEN]
  for (const [key, value] of Object.entries(body)) {
    if (value === undefined || typeof value === 'function' || typeof value === 'symbol') continue
    const frozen = value !== null && typeof value === 'object' && Object.isFrozen(value)
    let bytes = frozen ? jsonOf.get(value) : undefined
    if (bytes === undefined) {
      bytes = Buffer.from(JSON.stringify(value))
      if (frozen) jsonOf.set(value, bytes)
    }
    let name = keyJson.get(key)
    if (name === undefined) {
      name = Buffer.from(`${JSON.stringify(key)}:`)
      // Keys come from the response schemas: a small, fixed set.
      if (keyJson.size < 1000) keyJson.set(key, name)
    }
    if (parts.length > 1) parts.push(COMMA)
    parts.push(name, bytes)
  }
  parts.push(CLOSE)
  return Buffer.concat(parts)
}

function planFor(shape: Record<string, z.ZodType>) {
  const fields = Object.entries(shape).map(([key, field]) => ({ key, fill: fillFor(field), child: completerFor(field) }))
  return { fields, known: new Set(Object.keys(shape)) }
}

/**
 * What a missing key becomes: nothing when the schema lets it be absent (optional), else null when it may be null,
 * else [] for a list. A missing required scalar stays missing: that is a parser bug the schema tests catch.
 */
function fillFor(field: z.ZodType): Fill {
  if (field.safeParse(undefined).success) return 'absent'
  if (field.safeParse(null).success) return 'null'
  return unwrap(field) instanceof z.ZodArray ? 'list' : 'absent'
}

function unwrap(schema: z.ZodType): z.ZodType {
  let s = schema
  while (s instanceof z.ZodOptional || s instanceof z.ZodNullable) s = s.unwrap() as z.ZodType
  return s
}
