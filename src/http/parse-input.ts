import type { FastifyRequest } from 'fastify'
import type { z } from 'zod'
import { ApiError } from '../errors.ts'
import { unknownParameterMessage } from './param-aliases.ts'

/**
 * Validates a request's parameters with a strict zod schema: the JSON body for POST, the query
 * string for GET (coerced to the schema's types first, so both forms give identical results).
 * Every failure is a 400 invalid_request whose message names the parameter.
 */
export interface ParseOptions {
  /** Query or body keys that are not parameters (credentials). */
  ignore?: string[]
  /** Says where an unknown parameter belongs, when it is a parameter of another endpoint. */
  explainUnknown?: (name: string) => string | undefined
}

export function parseInput<S extends z.ZodObject>(schema: S, req: FastifyRequest, opts: ParseOptions = {}): z.infer<S> {
  let input: unknown
  // HEAD is GET without the body (Fastify answers it from the GET route).
  if (req.method === 'GET' || req.method === 'HEAD') {
    const queryString = req.url.slice(req.url.indexOf('?') + 1 || req.url.length)
    const memo = memoOf(schema, opts.ignore)
    const known = memo.get(queryString)
    if (known) return copyFlat(known) as z.infer<S>
    input = coerceQuery(schema, req.query as Record<string, string | string[]>, opts.ignore ?? [])
    const parsed = parseWith(schema, input, opts.explainUnknown)
    remember(memo, queryString, parsed)
    return parsed
  } else {
    if (isPublicApi(req)) refuseQueryParameters(req)
    input = bodyObject(req.body, sentBody(req))
    // On PATCH, null asks to clear a setting: one that cannot be cleared stays an error.
    if (req.method === 'POST') input = withoutNullDefaults(schema, input as Record<string, unknown>)
    if (opts.ignore?.length) input = omit(input as Record<string, unknown>, opts.ignore)
  }
  return parseWith(schema, input, opts.explainUnknown)
}

/**
 * GET parameters parsed before, by query string: the same query string always parses to the same
 * parameters (validation is a pure function of it), and clients repeat their queries. Only
 * successes are kept, never a query string with a credential in it, only flat ones (values that are scalars or lists of scalars), only for short
 * query strings, and each caller gets its own copy.
 */
// A query string carrying a credential (?api_key=, ?key=) is not kept: no secret in a long-lived map.
const CREDENTIAL = /key|token|secret|password/i
const memos = new WeakMap<z.ZodObject, Map<string, Map<string, Record<string, unknown>>>>()
const MEMO_ENTRIES = 1000
const MEMO_QUERY_CHARS = 512

function memoOf(schema: z.ZodObject, ignore: string[] | undefined) {
  let bySchema = memos.get(schema)
  if (!bySchema) {
    bySchema = new Map()
    memos.set(schema, bySchema)
  }
  const ignored = ignore?.join(',') ?? ''
  let memo = bySchema.get(ignored)
  if (!memo) {
    memo = new Map()
    bySchema.set(ignored, memo)
  }
  return memo
}

function remember(memo: Map<string, Record<string, unknown>>, queryString: string, parsed: unknown) {
  if (queryString.length > MEMO_QUERY_CHARS || CREDENTIAL.test(queryString) || !isFlat(parsed)) return
  if (memo.size >= MEMO_ENTRIES) memo.delete(memo.keys().next().value as string)
  memo.set(queryString, copyFlat(parsed))
}

const isScalar = (v: unknown) => v === null || (typeof v !== 'object' && typeof v !== 'function')

function isFlat(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false
  const proto = Object.getPrototypeOf(value)
  if (proto !== Object.prototype && proto !== null) return false
  return Object.values(value).every((v) => isScalar(v) || (Array.isArray(v) && v.every(isScalar)))
}

function copyFlat(value: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const key of Object.keys(value)) {
    const v = value[key]
    out[key] = Array.isArray(v) ? v.slice() : v
  }
  return out
}

/**
 * `null` for an optional parameter that takes no null means "not set" in a POST body: generated
 * clients and SDKs in several languages send every field of their request type, unset ones as
 * null. Where a parameter does take null, null keeps its meaning.
 */
function withoutNullDefaults(schema: z.ZodObject, body: Record<string, unknown>): Record<string, unknown> {
  let out = body
  for (const [name, value] of Object.entries(body)) {
    if (value !== null) continue
    const field = fieldOf(schema, name)
    if (!field || field.safeParse(null).success || !field.safeParse(undefined).success) continue
    if (out === body) out = Object.assign(Object.create(null), body)
    delete out[name]
  }
  return out
}

/** The public /v1 API; compatible, dashboard and operator routes keep their own conventions. */
function isPublicApi(req: FastifyRequest): boolean {
  return req.routeOptions.url?.startsWith('/v1/') ?? false
}

/**
 * Outside GET, parameters come in the JSON body only: one in the query string would otherwise be
 * ignored silently (?num=20 on a POST giving 10 results) while still billing the call.
 */
function refuseQueryParameters(req: FastifyRequest) {
  const name = Object.keys((req.query ?? {}) as Record<string, unknown>)[0]
  if (name !== undefined) {
    throw new ApiError('invalid_request', `unknown parameter ${name} in the query string: ${req.method} takes its parameters in the JSON body`)
  }
}

/**
 * Whether the request carried body bytes, by the test Fastify itself uses. Needed because Fastify's
 * validation step hands a route with a body schema `null` when there was no body at all.
 */
function sentBody(req: FastifyRequest): boolean {
  const length = req.headers['content-length']
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0')
}

/** No body reads as no parameters; a JSON `null` is a body, and not an object, like 42 or "coffee". */
function bodyObject(body: unknown, sent: boolean): object {
  if (body === undefined || (body === null && !sent)) return {}
  if (Array.isArray(body)) {
    throw new ApiError('invalid_request', 'body must be a JSON object, not an array; send many queries with POST /v1/batches')
  }
  if (typeof body !== 'object' || body === null) throw new ApiError('invalid_request', 'body must be a JSON object')
  return body
}

/**
 * A parsed JSON body with every object's prototype removed, in place (iteratively: bodies may nest
 * arrays thousands deep). A parameter called `constructor` or `toString` is then only what the
 * caller sent, and a name the caller did not send reads as undefined, never as an Object.prototype
 * member. The JSON parsers of every scope pass their bodies through it.
 */
export function withoutPrototypes<T>(value: T): T {
  const stack: unknown[] = [value]
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    if (next === null || typeof next !== 'object') continue
    if (!Array.isArray(next)) Object.setPrototypeOf(next, null)
    for (const item of Object.values(next)) if (item !== null && typeof item === 'object') stack.push(item)
  }
  return value
}

export function parseWith<S extends z.ZodType>(schema: S, input: unknown, explainUnknown?: ParseOptions['explainUnknown']): z.infer<S> {
  const broken = loneSurrogateAt(input)
  if (broken !== undefined) throw new ApiError('invalid_request', `${broken || 'body'} is not valid Unicode text (it holds a lone UTF-16 surrogate)`)
  const result = schema.safeParse(input)
  if (result.success) return result.data
  throw new ApiError('invalid_request', describeIssue(firstToReport(result.error.issues), input, parameterNames(schema), explainUnknown))
}

/**
 * An unknown parameter is reported before anything else: it is often another API's name for a
 * required one (`query` for `q`), and its hint says what to write where "q is required" would not.
 */
function firstToReport(issues: z.core.$ZodIssue[]): z.core.$ZodIssue | undefined {
  return issues.find((issue) => issue.code === 'unrecognized_keys') ?? issues[0]
}

/** The top-level parameters an object schema takes (empty for other schemas). */
function parameterNames(schema: z.ZodType): ReadonlySet<string> {
  const shape = (schema as { shape?: Record<string, unknown> }).shape
  return new Set(shape && typeof shape === 'object' ? Object.keys(shape) : [])
}

function describeIssue(
  issue: z.core.$ZodIssue | undefined,
  input: unknown,
  accepted: ReadonlySet<string>,
  explainUnknown?: ParseOptions['explainUnknown'],
): string {
  if (!issue) return 'invalid request'
  if (issue.code === 'unrecognized_keys') {
    const name = issue.keys[0] ?? ''
    // A nested object's unknown key is not a name of this endpoint's own parameters.
    return explainUnknown?.(name) ?? unknownParameterMessage(name, issue.path.length === 0 ? accepted : undefined)
  }
  const name = issue.path.map(String).join('.')
  if (!name) return issue.message
  if (issue.code === 'invalid_type') {
    const value = valueAt(input, issue.path)
    if (value === undefined) return `${name} is required`
    // A schema's "is required" covers every type error; a value that was sent is of the wrong type.
    if (issue.message.endsWith('is required')) return `${name} must be ${article(issue.expected)}, not ${typeName(value)}`
  }
  // Schema messages that already start with the parameter's name read best as they are.
  return issue.message.startsWith(name) ? issue.message : `${name}: ${issue.message}`
}

/**
 * The parameter where a JSON escape left half a surrogate pair (`"\ud800"`): not text, and
 * encodeURIComponent throws on it deep inside the engines, so every route refuses it here.
 * Iterative, since a body may nest arrays thousands deep.
 */
function loneSurrogateAt(input: unknown): string | undefined {
  // Pairs of (value, the parameter it is in), flat: every request runs this, so no tuple per value.
  const stack: unknown[] = [input, '']
  while (stack.length > 0) {
    const param = stack.pop() as string
    const value = stack.pop()
    if (typeof value === 'string') {
      if (LONE_SURROGATE.test(value)) return param
      continue
    }
    if (value === null || typeof value !== 'object') continue
    for (const key of Object.keys(value)) stack.push(key, param, (value as Record<string, unknown>)[key], param || key)
  }
  return undefined
}

const LONE_SURROGATE = /\p{Cs}/u

const article = (type: string) => (/^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`)
const typeName = (value: unknown) => (value === null ? 'null' : Array.isArray(value) ? 'an array' : article(typeof value))

function valueAt(input: unknown, path: PropertyKey[]): unknown {
  let value = input
  for (const key of path) value = value != null && typeof value === 'object' ? (value as Record<PropertyKey, unknown>)[key] : undefined
  return value
}

function omit(obj: Record<string, unknown>, keys: string[]) {
  return Object.assign(Object.create(null), Object.fromEntries(Object.entries(obj).filter(([k]) => !keys.includes(k))))
}

/**
 * The schema's own parameter called `name`, never a member of Object.prototype: `constructor`,
 * `toString` or `__proto__` sent as a parameter is an unknown parameter like any other (a 400).
 */
function fieldOf(schema: z.ZodObject, name: string): z.ZodType | undefined {
  return Object.hasOwn(schema.shape, name) ? (schema.shape[name] as z.ZodType) : undefined
}

/** The zod type under optional/default/nullable wrappers: what a query-string value must become. */
function baseType(t: z.core.$ZodType): string {
  let def = t._zod.def as { type: string; innerType?: z.core.$ZodType; in?: z.core.$ZodType; options?: z.core.$ZodType[] }
  while (def.innerType || def.in) {
    const next = (def.innerType ?? def.in) as z.core.$ZodType
    def = next._zod.def as typeof def
  }
  if (def.type === 'union' && def.options) {
    const kinds = def.options.map(baseType)
    if (kinds.includes('array')) return 'array'
    return kinds[0] ?? 'string'
  }
  // A set of numbers (num: 10, 20, 30, 50, 100) is read from the query string as a number.
  if (def.type === 'literal' && (def as { values?: unknown[] }).values?.every((v) => typeof v === 'number')) return 'number'
  return def.type
}

function coerceQuery(schema: z.ZodObject, query: Record<string, string | string[]>, ignore: string[]) {
  // No prototype: `__proto__` is then a key like any other (and refused as unknown), not a setter.
  const out: Record<string, unknown> = Object.create(null)
  for (const [key, raw] of Object.entries(query ?? {})) {
    if (ignore.includes(key)) continue
    const field = fieldOf(schema, key)
    const kind = field ? baseType(field) : 'string'
    const value = Array.isArray(raw) ? raw : [raw]
    if (kind === 'array') {
      out[key] = value
        .flatMap((v) => v.split(','))
        .map((v) => v.trim())
        .filter(Boolean)
      continue
    }
    const last = value[value.length - 1] ?? ''
    if (kind === 'number' || kind === 'int') out[key] = /^-?\d+(\.\d+)?$/.test(last.trim()) ? Number(last) : last
    else if (kind === 'boolean') out[key] = last === 'true' || last === '1' ? true : last === 'false' || last === '0' ? false : last
    else out[key] = last
  }
  return out
}
