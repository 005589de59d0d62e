import { ApiError } from '../errors.ts'
import { metrics } from '../metrics/metrics.ts'
import { cappedText } from '../net/capped-text.ts'

/**
 * The operator's own chat model (TRAWL_LLM_URL): an OpenAI-compatible `/v1/chat/completions`
 * endpoint, as Ollama, vLLM, llama.cpp's server and hosted providers serve it (docs/models.md).
 * Answers, schema extraction and research call it; without one they answer 501 not_configured.
 *
 * What the model writes is data: callers check it (citations against passages, JSON against the
 * schema) and nothing it says changes a limit, a URL or a price. Every call is bounded by the
 * operator's timeout, `max_tokens` and a cap on the answer's size.
 */

export interface ModelConfig {
  /** The endpoint, or a base URL that `/v1/chat/completions` is appended to. */
  url: string
  model: string | null
  apiKey: string | null
  timeoutMs: number
  /** Credits billed per call (TRAWL_LLM_CALL_CREDITS). */
  callCredits: number
}

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant'
  content: string
}

export type ModelUse = 'answer' | 'extract' | 'research'

export interface ModelReply {
  text: string
  usage: { prompt: number; completion: number }
}

/**
 * Page text as a numbered source of a prompt, fenced as data: a `</source>` inside it is broken so
 * the page cannot close its own fence and speak as the prompt.
 */
export function sourceBlock(n: number, text: string, attributes = ''): string {
  return `<source n="${n}"${attributes}>\n${text.replaceAll('</source>', '</ source>')}\n</source>`
}

/** An answer larger than this is refused: a chat completion is a few kilobytes. */
const MAX_ANSWER_BYTES = 4 * 1024 * 1024

/** The configured model, or 501 not_configured naming the variable (before any credit moves). */
export function requireModel(llm: ModelConfig | null | undefined, feature: string): ModelConfig {
  if (llm) return llm
  throw new ApiError(
    'not_configured',
    `${feature} needs a chat model: the operator sets TRAWL_LLM_URL (and TRAWL_LLM_MODEL) to an OpenAI-compatible endpoint (docs/models.md)`,
  )
}

/** The endpoint's URL: as given when it names the completions route, else with `/v1/chat/completions` appended. */
export function chatEndpoint(url: string): string {
  const u = new URL(url)
  if (/\/chat\/completions\/?$/.test(u.pathname)) return u.toString()
  u.pathname = `${u.pathname.replace(/\/+$/, '')}${/\/v1$/.test(u.pathname.replace(/\/+$/, '')) ? '' : '/v1'}/chat/completions`
  return u.toString()
}

/**
 * One chat completion at temperature 0. `json` asks for a JSON object (response_format
 * json_object, which the servers above accept); the caller still parses and checks it.
 * Throws ApiError upstream_timeout or upstream_error with the reason; each call is counted in
 * /metrics by use and outcome, with the tokens the endpoint reports.
 */
export async function chat(
  config: ModelConfig,
  use: ModelUse,
  messages: readonly ChatMessage[],
  opts: { json?: boolean; maxTokens: number; signal?: AbortSignal; deadline?: number },
): Promise<ModelReply> {
  const body: Record<string, unknown> = { messages, temperature: 0, max_tokens: opts.maxTokens, stream: false }
  if (config.model) body.model = config.model
  if (opts.json) body.response_format = { type: 'json_object' }
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' }
  if (config.apiKey) headers.authorization = `Bearer ${config.apiKey}`
  // A deadline shared by several calls (a schema fill's two tries) shortens the last ones.
  const timeoutMs = Math.max(1, Math.min(config.timeoutMs, (opts.deadline ?? Number.POSITIVE_INFINITY) - Date.now()))
  const timeout = AbortSignal.timeout(timeoutMs)
  const fail = (outcome: 'timeout' | 'error' | 'invalid', message: string): never => {
    metrics.modelCall(use, outcome, { prompt: 0, completion: 0 })
    throw new ApiError(outcome === 'timeout' ? 'upstream_timeout' : 'upstream_error', `the model ${message}`, { retryAfterSeconds: 5 })
  }
  let text: string
  try {
    const res = await fetch(chatEndpoint(config.url), {
      method: 'POST',
      headers,
      body: JSON.stringify(body),
      signal: opts.signal ? AbortSignal.any([timeout, opts.signal]) : timeout,
      redirect: 'error',
    })
    if (!res.ok) {
      await res.body?.cancel()
      return fail('error', `answered HTTP ${res.status}`)
    }
    text = await cappedText(res, MAX_ANSWER_BYTES)
  } catch (err) {
    if (err instanceof ApiError) throw err
    if (timeout.aborted) {
      const limit = timeoutMs < config.timeoutMs ? `what was left of the ${config.timeoutMs / 1000} s its calls share` : `${config.timeoutMs / 1000} s`
      return fail('timeout', `did not answer within ${limit} (TRAWL_LLM_TIMEOUT_MS)`)
    }
    if (opts.signal?.aborted) throw err
    return fail('error', err instanceof RangeError ? err.message : 'could not be reached (TRAWL_LLM_URL)')
  }
  let json: { choices?: { message?: { content?: unknown } }[]; usage?: { prompt_tokens?: unknown; completion_tokens?: unknown } }
  try {
    json = JSON.parse(text)
  } catch {
    return fail('invalid', 'answered something other than JSON')
  }
  const content = json?.choices?.[0]?.message?.content
  if (typeof content !== 'string') return fail('invalid', 'answered no message (choices[0].message.content)')
  const count = (n: unknown) => (typeof n === 'number' && Number.isFinite(n) && n >= 0 ? Math.round(n) : 0)
  const usage = { prompt: count(json.usage?.prompt_tokens), completion: count(json.usage?.completion_tokens) }
  metrics.modelCall(use, 'ok', usage)
  return { text: content, usage }
}
