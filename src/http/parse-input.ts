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
  if (req.method === 'GET') {
    input = coerceQuery(schema, req.query as Record<string, string | string[]>, opts.ignore ?? [])
  } else {
    input = req.body ?? {}
    if (Array.isArray(input)) {
      throw new ApiError('invalid_request', 'body must be a JSON object, not an array; send many queries with POST /v1/batches')
    }
    if (typeof input !== 'object' || input === null) throw new ApiError('invalid_request', 'body must be a JSON object')
    if (opts.ignore?.length) input = omit(input as Record<string, unknown>, opts.ignore)
  }
  return parseWith(schema, input, opts.explainUnknown)
}

export function parseWith<S extends z.ZodType>(schema: S, input: unknown, explainUnknown?: ParseOptions['explainUnknown']): z.infer<S> {
  const broken = loneSurrogateAt(input)
  if (broken !== undefined) throw new ApiError('invalid_request', `${broken || 'body'} is not valid Unicode text (it holds a lone UTF-16 surrogate)`)
  const result = schema.safeParse(input)
  if (result.success) return result.data
  throw new ApiError('invalid_request', describeIssue(result.error.issues[0], input, explainUnknown))
}

function describeIssue(issue: z.core.$ZodIssue | undefined, input: unknown, explainUnknown?: ParseOptions['explainUnknown']): string {
  if (!issue) return 'invalid request'
  if (issue.code === 'unrecognized_keys') {
    const name = issue.keys[0] ?? ''
    return explainUnknown?.(name) ?? unknownParameterMessage(name)
  }
  const name = issue.path.map(String).join('.')
  if (!name) return issue.message
  if (issue.code === 'invalid_type' && valueAt(input, issue.path) === undefined) return `${name} is required`
  // Schema messages that already start with the parameter's name read best as they are.
  return issue.message.startsWith(name) ? issue.message : `${name}: ${issue.message}`
}

/**
 * The parameter where a JSON escape left half a surrogate pair (`"\ud800"`): not text, and
 * encodeURIComponent throws on it deep inside the engines, so every route refuses it here.
 * Iterative, since a body may nest arrays thousands deep.
 */
function loneSurrogateAt(input: unknown): string | undefined {
  const stack: [unknown, string][] = [[input, '']]
  for (let next = stack.pop(); next; next = stack.pop()) {
    const [value, param] = next
    if (typeof value === 'string' && /\p{Cs}/u.test(value)) return param
    if (value === null || typeof value !== 'object') continue
    for (const [key, item] of Object.entries(value)) stack.push([key, param], [item, param || key])
  }
  return undefined
}

function valueAt(input: unknown, path: PropertyKey[]): unknown {
  let value = input
  for (const key of path) value = value != null && typeof value === 'object' ? (value as Record<PropertyKey, unknown>)[key] : undefined
  return value
}

function omit(obj: Record<string, unknown>, keys: string[]) {
  return Object.fromEntries(Object.entries(obj).filter(([k]) => !keys.includes(k)))
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
  return def.type
}

function coerceQuery(schema: z.ZodObject, query: Record<string, string | string[]>, ignore: string[]) {
  const out: Record<string, unknown> = {}
  for (const [key, raw] of Object.entries(query ?? {})) {
    if (ignore.includes(key)) continue
    const field = schema.shape[key] as z.core.$ZodType | undefined
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
