import type { Server } from '@modelcontextprotocol/sdk/server/index.js'
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js'
import { ApiError } from '../../errors.ts'
import { parseWith } from '../../http/parse-input.ts'
import { type ApiReply, type CallApi, ToolError } from './mcp.api.ts'
import { toolJsonSchema } from './mcp.json-schema.ts'
import { DEFAULT_MAX_TOKENS, type Stash } from './mcp.pages.ts'
import { TOOLS, type ToolDef } from './mcp.tools.ts'

export const MCP_SERVER_NAME = 'trawl'
export const MCP_SERVER_VERSION = '1.0.2'

/**
 * A tool call answers within this time, with whatever is done: reading tools bound their own REST
 * calls below it (extract and webpage `timeout` ≤ 40 s, map ≈ 30 s, waits ≤ 45 s), so this only
 * catches a search whose providers all time out in turn. Clients give up at 60 s by default.
 */
export const TOOL_DEADLINE_MS = 50_000

const INSTRUCTIONS = `Trawl searches the web and reads web pages for you.
- search: ranked results for a query; vertical chooses web (default), news, images, videos, places, maps, shopping, scholar or patents.
- context: the passages of the top results that best answer a question, within a token budget, in one call.
- research: a cited report on a question that needs several searches, written by the operator's model (where one is configured); call again with its id to keep waiting.
- webpage (one page) and extract (up to 20): a page's main content as Markdown; with schema, fields filled as data. map: a site's URLs. crawl then crawl_result: a whole site.
- rank: where a domain ranks for a keyword. batch/batch_result: many requests queued at half price. monitor_create/monitor_list/monitor_runs: watch a search or page over time. account: the credit balance.
Calls are billed in credits on the API key like the REST API (search 1 per 10 results, context 1 plus 1 per page read, webpage 1, extract 1 per page read, map 1, crawl 1 per page, rank 7, a model call 1 by default); failed calls cost nothing.
Parameters that mean the same in every tool:
- max_tokens caps the answer's text (default ${DEFAULT_MAX_TOKENS} tokens); a longer answer ends with a cursor: call the same tool with the same arguments and that cursor to read on, free.
- max_age (seconds, up to a year) accepts a cached answer up to that old, at half price; leave it out for a fresh one.
- country: a two-letter code (default us); language: en, de, pt-BR (default en); location: a place to search from, e.g. "Austin,Texas,United States".
- A parameter a search vertical does not take is refused, naming it.
Errors name a code (invalid_request, insufficient_credits, rate_limited, upstream_timeout, …) and say whether and when to retry.`

/** tools/list: computed once; the JSON Schemas of the zod inputs and outputs. */
const LISTED: Tool[] = TOOLS.map((t) => ({
  name: t.name,
  description: t.description,
  inputSchema: toolJsonSchema(t.input, 'input') as Tool['inputSchema'],
  outputSchema: toolJsonSchema(t.output, 'output') as Tool['outputSchema'],
  annotations: withoutDefaults(t.annotations),
}))
const BY_NAME = new Map<string, ToolDef>(TOOLS.map((t) => [t.name, t]))

/** The hints that differ from the spec's defaults (not read-only, destructive, not idempotent, open world). */
function withoutDefaults(a: ToolDef['annotations']): ToolDef['annotations'] {
  const defaults = { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true }
  return Object.fromEntries(Object.entries(a).filter(([k, v]) => defaults[k as keyof typeof defaults] !== v))
}

export interface ToolCallRecord {
  tool: string
  ms: number
  /** X-Request-Id of every REST call the tool made, in order. */
  apiRequestIds: string[]
  error?: { code: string; message: string }
}

export interface McpServerOptions {
  api: CallApi
  stash: Stash
  /** One line per tool call (the REST calls it made log themselves, as REST calls). */
  onToolCall?: (record: ToolCallRecord) => void
  /** An unexpected error inside a tool (a bug): logged, answered as `internal`. */
  onInternalError?: (err: unknown) => void
}

/**
 * The MCP SDK, loaded with the first MCP request: it is about 7 MB of heap (20 MB resident) that
 * a server nobody talks MCP to should not carry.
 */
const loadSdk = async () => {
  const [{ Server }, types] = await Promise.all([import('@modelcontextprotocol/sdk/server/index.js'), import('@modelcontextprotocol/sdk/types.js')])
  return { Server, ...types }
}

/** The MCP server over any transport: tools/list and tools/call, each call made of REST calls. */
export async function createMcpServer(opts: McpServerOptions): Promise<Server> {
  const { Server, CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError } = await loadSdk()
  // The low-level Server (not McpServer): tools validate their own arguments, so a bad one is a
  // tool error with the API's invalid_request code and message, like the REST answer.
  const server = new Server({ name: MCP_SERVER_NAME, title: 'Trawl', version: MCP_SERVER_VERSION }, { capabilities: { tools: {} }, instructions: INSTRUCTIONS })

  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: LISTED }))

  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const def = BY_NAME.get(request.params.name)
    // An unknown tool is a protocol error (the client asked for something tools/list never named).
    if (!def) throw new McpError(ErrorCode.InvalidParams, `unknown tool ${request.params.name}; tools/list names the tools`)
    const started = performance.now()
    const apiRequestIds: string[] = []
    const api: CallApi = async (req) => {
      const reply: ApiReply = await opts.api(req)
      if (reply.requestId) apiRequestIds.push(reply.requestId)
      return reply
    }
    const token = request.params._meta?.progressToken
    const progress =
      token === undefined
        ? undefined
        : (value: number, total: number | undefined, message: string) =>
            extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress: value, total, message } })
    const record = (error?: { code: string; message: string }) =>
      opts.onToolCall?.({ tool: def.name, ms: Math.round(performance.now() - started), apiRequestIds, ...(error ? { error } : {}) })
    try {
      const args = parseWith(def.input, request.params.arguments ?? {})
      const answer = await withDeadline(def.run({ api, stash: opts.stash, progress }, args), TOOL_DEADLINE_MS)
      record()
      return { content: [{ type: 'text', text: answer.text }], structuredContent: answer.structured as Record<string, unknown> }
    } catch (e) {
      const err = asToolError(e, opts.onInternalError)
      record({ code: String(err.code), message: err.message })
      return errorResult(err)
    }
  })
  return server
}

function withDeadline<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new ToolError(
            'upstream_timeout',
            `no answer within ${ms / 1000} s; the request may still finish on the server and is then billed as usual (a search with max_age=3600 then reads it from the cache at half price)`,
            { retryAfterSeconds: 10 },
          ),
        ),
      ms,
    )
  })
  work.catch(() => {}) // a late failure after the deadline answered has nobody to go to
  return Promise.race([work, late]).finally(() => clearTimeout(timer))
}

function asToolError(e: unknown, onInternal?: (err: unknown) => void): ToolError {
  if (e instanceof ToolError) return e
  if (e instanceof ApiError) return new ToolError(e.code, e.message, { status: e.status, retryAfterSeconds: e.opts.retryAfterSeconds ?? null })
  onInternal?.(e)
  return new ToolError('internal', 'internal error; it has been logged, please retry with backoff', { status: 500, retryAfterSeconds: 5 })
}

/** The API's error codes: which are worth retrying, and what to do about the others. */
const ADVICE: Record<string, string> = {
  invalid_request: 'Do not retry as is: fix the argument the message names.',
  unauthorized: 'Do not retry: the API key is missing, invalid or revoked.',
  insufficient_credits: "Do not retry: the account's balance is too low; credits must be added.",
  key_limit_reached: "Do not retry: this API key's monthly credit limit is reached.",
  spend_cap_reached: "Do not retry: the account's monthly spend cap is reached.",
  forbidden: 'Do not retry.',
  not_found: 'Do not retry: check the id (results are kept 24 hours).',
  daily_limit_reached: "Do not retry today: the free tier's daily limit is reached.",
}
const MAX_RETRY_WAIT_S = 60
const RETRYABLE = new Set(['rate_limited', 'internal', 'upstream_error', 'upstream_blocked', 'upstream_timeout', 'unavailable'])

/** An MCP tool error: isError, the API's code and message, the retry hint, in text and in _meta. */
export function errorResult(err: ToolError): CallToolResult {
  const code = String(err.code)
  const after = err.details.retryAfterSeconds ?? null
  // A wait of more than a minute (a page answering 404 gets an hour) is no retry a model should make now.
  const retryable = RETRYABLE.has(code) && (after === null || after <= MAX_RETRY_WAIT_S)
  const advice = RETRYABLE.has(code) ? `Do not retry now: try again in ${after} s at the earliest.` : (ADVICE[code] ?? 'Do not retry.')
  const retry = retryable ? `Retry: yes, ${after ? `after ${after} s` : 'with backoff'}.` : advice
  const lines = [`Error ${code}${err.details.status ? ` (HTTP ${err.details.status})` : ''}: ${err.message}`, retry]
  if (err.details.requestId) lines.push(`Request id: ${err.details.requestId}`)
  return {
    isError: true,
    content: [{ type: 'text', text: lines.join('\n') }],
    _meta: {
      'trawl/error': {
        code,
        message: err.message,
        status: err.details.status ?? null,
        retryable,
        retry_after_seconds: after,
        request_id: err.details.requestId ?? null,
      },
    },
  }
}
