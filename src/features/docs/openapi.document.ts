import type { FastifyDynamicSwaggerOptions } from '@fastify/swagger'
import { createJsonSchemaTransform, createJsonSchemaTransformObject } from 'fastify-type-provider-zod'
import { codeSamples } from './code-samples.ts'
import { gettingStarted } from './getting-started.ts'
import { componentRegistry } from './openapi.components.ts'
import { describedDefault, normalisedDefaults, type ParamSchema } from './openapi.defaults.ts'
import { exampleFor } from './request-examples.ts'

/** The interface version (docs/api-reference.md), independent of the package version. */
export const API_VERSION = '1.0.2'

/** Set on a billed route's operation by `transform`, read and removed by `completeDocument`. */
const BILLED = 'x-trawl-billed'
/** The route's own callbacks, whose summaries and descriptions @fastify/swagger drops: put back by `completeDocument`. */
const CALLBACKS = 'x-trawl-callbacks'

/** The swagger plugin's options: the document's frame, and the two steps that fill it from the routes. */
export function openApiOptions(baseUrl: string): FastifyDynamicSwaggerOptions {
  const schemaRegistry = componentRegistry()
  const zodTransform = createJsonSchemaTransform({ schemaRegistry })
  const zodTransformObject = createJsonSchemaTransformObject({ schemaRegistry })
  return {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Trawl API',
        version: API_VERSION,
        summary: 'Web search and page reading for programs and AI agents.',
        description: gettingStarted(baseUrl),
        license: { name: 'MIT', identifier: 'MIT' },
      },
      servers: [{ url: baseUrl }],
      tags: TAGS,
      components: {
        securitySchemes: { apiKey: { type: 'http', scheme: 'bearer', description: 'trawl_live_… API key' } },
        headers: HEADERS,
      },
      security: [{ apiKey: [] }],
    },
    transform: (args) => {
      const out = zodTransform(args)
      const schema = out.schema as Record<string, unknown>
      if (args.route.config?.billed) schema[BILLED] = true
      const { callbacks } = args.schema as { callbacks?: Callbacks }
      if (callbacks) schema[CALLBACKS] = callbacks
      return out
    },
    transformObject: (documentObject) => completeDocument(zodTransformObject(documentObject) as unknown as OpenApiDocument, baseUrl),
  }
}

const TAGS = [
  { name: 'search', description: 'Web search, the other verticals, rank lookup and the search providers. GET and POST take the same parameters.' },
  { name: 'reading', description: 'Pages as Markdown, text or HTML.' },
  { name: 'crawl', description: 'Site maps and crawls.' },
  { name: 'batches', description: 'Up to 100 requests of one endpoint at half price, answered later.' },
  { name: 'monitors', description: 'Saved searches and watched pages that report what is new.' },
  { name: 'account', description: 'Balance, limits and usage.' },
  { name: 'compatible', description: "Google's Custom Search JSON API, answered from Trawl's engines." },
  { name: 'playground', description: 'Keyless search for the dashboard and the site.' },
]

const header = (description: string, schema: { type: 'string' | 'number' | 'integer'; enum?: string[] }, required = true) => ({
  description,
  schema,
  ...(required && { required }),
})

/** The headers of the answers (docs/api-reference.md "Headers, answers and formats"). */
const HEADERS = {
  'X-Request-Id': header('The request id; the same as `request_id` in the body.', { type: 'string' }),
  'X-Credits-Used': header('Credits this call cost; 0 when it failed.', { type: 'number' }),
  'X-Credits-Remaining': header('The account balance after this call, in credits.', { type: 'number' }, false),
  'X-Cost-USD': header('X-Credits-Used times the price of one credit.', { type: 'number' }),
  'X-Cache': header('HIT when answered from the cache (see max_age).', { type: 'string', enum: ['HIT', 'MISS'] }),
  'X-Latency-Ms': header('Time spent on the request, in milliseconds.', { type: 'integer' }),
  'X-Tokens-Estimate': header('Tokens in the body (o200k), to budget a model context.', { type: 'integer' }),
  'Retry-After': header('Seconds to wait before retrying: on 429 and 503.', { type: 'integer' }, false),
}

const ref = (name: keyof typeof HEADERS) => ({ $ref: `#/components/headers/${name}` })
const BILLED_OK = ['X-Request-Id', 'X-Credits-Used', 'X-Credits-Remaining', 'X-Cost-USD', 'X-Cache', 'X-Latency-Ms', 'X-Tokens-Estimate'] as const
const BILLED_ERROR = [...BILLED_OK, 'Retry-After'] as const
const FREE_OK = ['X-Request-Id'] as const
const FREE_ERROR = ['X-Request-Id', 'Retry-After'] as const

const ERROR_DESCRIPTIONS: Record<string, string> = {
  '4XX':
    'The error envelope: 400 invalid_request (also 409, 413, 415), 401 unauthorized, 402 insufficient_credits, 403 key_limit_reached, spend_cap_reached or forbidden, 404 not_found, 429 rate_limited or daily_limit_reached (with Retry-After). Never billed.',
  '5XX': 'The error envelope: 500 internal, 503 upstream_error, upstream_blocked, upstream_timeout or unavailable (with Retry-After). Never billed.',
}

interface MediaType {
  schema?: ParamSchema & { properties?: Record<string, ParamSchema & { description?: string }>; required?: string[] }
  example?: unknown
}
interface Parameter {
  name: string
  in: string
  required?: boolean
  description?: string
  schema?: ParamSchema
  example?: unknown
}
interface Response {
  description: string
  headers?: Record<string, unknown>
  content?: Record<string, MediaType>
}
/** event → URL expression → method → operation */
type Callbacks = Record<string, Record<string, Record<string, { summary?: string; description?: string }>>>
interface Operation {
  operationId?: string
  summary?: string
  parameters?: Parameter[]
  requestBody?: { content?: Record<string, MediaType> }
  responses?: Record<string, Response>
  [BILLED]?: boolean
  [CALLBACKS]?: Callbacks
  callbacks?: Callbacks
  'x-codeSamples'?: unknown
  'x-scalar-ignore'?: boolean
}
export interface OpenApiDocument {
  paths?: Record<string, Record<string, Operation>>
  components?: { schemas?: Record<string, unknown> }
  [key: string]: unknown
}

const METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'])

/** Every operation: headers and descriptions of its answers, text/markdown, defaults, an example and code samples. */
export function completeDocument(doc: OpenApiDocument, baseUrl: string): OpenApiDocument {
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const [method, op] of Object.entries(item)) {
      if (!METHODS.has(method)) continue
      const billed = op[BILLED] === true
      delete op[BILLED]
      restoreCallbackText(op)
      describeResponses(op, billed)
      if (method !== 'patch') addDefaults(op) // absent means unchanged, not a default
      addExample(op, method, path, baseUrl, billed)
    }
    hideGetTwin(item)
  }
  pruneUnusedSchemas(doc)
  return doc
}

/**
 * Web search and every vertical are two operations with the same parameters: POST `news` (JSON
 * body, what the SDK sends) and GET `newsGet` (query string). Both stay in the document, for
 * generators and the GET's code samples; the reference page (Scalar) lists only the POST, whose
 * description says GET takes the same parameters, instead of every entry twice.
 */
function hideGetTwin(item: Record<string, Operation>) {
  const get = item.get
  const post = item.post
  if (get && post?.operationId && get.operationId === `${post.operationId}Get`) get['x-scalar-ignore'] = true
}

function restoreCallbackText(op: Operation) {
  const declared = op[CALLBACKS]
  delete op[CALLBACKS]
  for (const [event, urls] of Object.entries(declared ?? {})) {
    for (const [url, methods] of Object.entries(urls)) {
      for (const [method, { summary, description }] of Object.entries(methods)) {
        const target = op.callbacks?.[event]?.[url]?.[method]
        if (target) Object.assign(target, summary && { summary }, description && { description })
      }
    }
  }
}

/** The fields of an operation's request: query parameters, or the JSON body's properties. */
function requestFields(op: Operation): { name: string; schema: ParamSchema; description?: string; required: boolean }[] {
  const body = op.requestBody?.content?.['application/json']?.schema
  if (body?.properties) {
    return Object.entries(body.properties).map(([name, schema]) => ({
      name,
      schema,
      description: schema.description,
      required: body.required?.includes(name) ?? false,
    }))
  }
  return (op.parameters ?? [])
    .filter((p) => p.in === 'query' && p.schema)
    .map((p) => ({ name: p.name, schema: p.schema!, description: p.description, required: p.required ?? false }))
}

/** format=markdown answers text/markdown on the verticals that have it. */
function answersMarkdown(op: Operation): boolean {
  const format = requestFields(op).find((f) => f.name === 'format')?.schema
  return (format?.enum?.includes('json') && format.enum.includes('markdown')) ?? false
}

function describeResponses(op: Operation, billed: boolean) {
  const markdown = answersMarkdown(op)
  for (const [status, response] of Object.entries(op.responses ?? {})) {
    const error = status.startsWith('4') || status.startsWith('5')
    const names = error ? (billed ? BILLED_ERROR : FREE_ERROR) : billed ? BILLED_OK : FREE_OK
    response.headers = { ...response.headers, ...Object.fromEntries(names.map((n) => [n, ref(n)])) }
    if (error) {
      response.description = ERROR_DESCRIPTIONS[status] ?? response.description
    } else if (response.description === 'Default Response') {
      response.description = markdown
        ? 'JSON by default; with format=markdown the same answer as Markdown (text/markdown); with format=compact or fields= a reduced JSON object with the same top-level keys.'
        : 'OK'
    }
    if (markdown && status === '200' && response.content) {
      response.content['text/markdown'] = { schema: { type: 'string' } }
    }
  }
}

/** `default` on every field whose default is known: filled in by the search family's normalisers, or stated by its description. */
function addDefaults(op: Operation) {
  const fields = requestFields(op)
  const required = Object.fromEntries(fields.filter((f) => f.required).map((f) => [f.name, exampleFor(op.operationId ?? '').params?.[f.name] ?? 'x']))
  const filled = op.operationId ? normalisedDefaults(op.operationId, required) : {}
  for (const field of fields) {
    if (field.required || field.schema.default !== undefined) continue
    const value = field.name in filled ? filled[field.name] : describedDefault(field.description, field.schema)
    if (value !== undefined) field.schema.default = value
  }
}

function addExample(op: Operation, method: string, path: string, baseUrl: string, billed: boolean) {
  if (!op.operationId) return
  const example = exampleFor(op.operationId)
  for (const p of op.parameters ?? []) {
    const value = p.in === 'path' ? example.path?.[p.name] : p.in === 'query' ? example.params?.[p.name] : undefined
    if (value !== undefined) p.example = value
  }
  const body = op.requestBody?.content?.['application/json']
  if (body && example.params) body.example = example.params
  op['x-codeSamples'] = codeSamples(baseUrl, { method, path, example, billed })
}

/** zod's registries emit an input and an output copy of every named schema: keep the ones referenced. */
function pruneUnusedSchemas(doc: OpenApiDocument) {
  const schemas = doc.components?.schemas
  if (!schemas) return
  const used = new Set<string>()
  const visit = (value: unknown) => {
    for (const match of JSON.stringify(value).matchAll(/"#\/components\/schemas\/([^"]+)"/g)) {
      const name = match[1]!
      if (!used.has(name)) {
        used.add(name)
        visit(schemas[name])
      }
    }
  }
  visit({ ...doc, components: { ...doc.components, schemas: {} } })
  for (const name of Object.keys(schemas)) if (!used.has(name)) delete schemas[name]
}
