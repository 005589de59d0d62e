import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

/**
 * A small OpenAI-compatible chat model on 127.0.0.1 (`POST /v1/chat/completions`) that answers
 * deterministically from the prompt it receives, for the tests of answers, schema extraction and
 * research. Its rules:
 *
 * - Answer prompts (the system message speaks of "numbered sources"): the source sharing the most
 *   words of four letters or more with the question is chosen (the first on a tie); the reply is
 *   its first sentence, Markdown links and emphasis removed, followed by `[n]`. No source sharing
 *   a word: `NO ANSWER`.
 * - JSON prompts (`response_format` json_object): the reply is `json(prompt)` when the test set
 *   one, else `{}`.
 * - Research planning prompts (the system message asks for "search queries"): `{"queries": [q]}`
 *   where q is the research input, copied.
 * - `behaviour` overrides all of this for the next calls: `http500` answers 500, `hang` never
 *   answers (the client's timeout ends it), `garbage` answers text that is not JSON, and a
 *   function answers with what it returns (or resolves to: late, or never).
 *
 * Every request is kept in `calls` (parsed body), and usage is reported as words counted.
 */

export interface ChatRequestBody {
  model?: string
  messages: { role: string; content: string }[]
  max_tokens?: number
  response_format?: { type: string }
}

export type Behaviour = 'rules' | 'http500' | 'hang' | 'garbage' | ((body: ChatRequestBody) => string | Promise<string>)

export interface FakeModel {
  url: string
  calls: ChatRequestBody[]
  behaviour: Behaviour
  /** The reply to JSON prompts; default `{}`. */
  json: ((body: ChatRequestBody) => string) | null
  close(): Promise<void>
}

const words = (text: string) => new Set((text.toLowerCase().match(/[\p{L}\p{N}]{4,}/gu) ?? []).filter((w) => !STOP.has(w)))
const STOP = new Set(['what', 'which', 'when', 'where', 'does', 'that', 'this', 'with', 'from', 'have', 'there', 'their', 'about', 'into'])

/** The answer rule: the best source's first sentence and its number. */
export function ruleAnswer(user: string): string {
  const question = /^Question: (.*)$/m.exec(user)?.[1] ?? ''
  const asked = words(question)
  const sources = [...user.matchAll(/<source n="(\d+)"[^>]*>\n([\s\S]*?)\n<\/source>/g)].map((m) => ({ n: Number(m[1]), text: m[2]! }))
  let best: { n: number; text: string; shared: number } | null = null
  for (const s of sources) {
    let shared = 0
    for (const w of words(s.text)) if (asked.has(w)) shared++
    if (shared > 0 && (!best || shared > best.shared)) best = { ...s, shared }
  }
  if (!best) return 'NO ANSWER'
  const plain = best.text
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/[*_`#>]+/g, '')
    .replace(/\s+/g, ' ')
    .trim()
  const sentence = /^.*?[.!?](?=\s|$)/.exec(plain)?.[0] ?? plain
  return `${sentence.replace(/[.!?]$/, '')} [${best.n}].`
}

export async function fakeModel(): Promise<FakeModel> {
  const sockets = new Set<import('node:net').Socket>()
  const model: FakeModel = {
    url: '',
    calls: [],
    behaviour: 'rules',
    json: null,
    close: async () => {
      for (const s of sockets) s.destroy()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
  const server: Server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = []
    for await (const c of req) chunks.push(c as Buffer)
    if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) return res.writeHead(404).end()
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as ChatRequestBody
    model.calls.push(body)
    const b = model.behaviour
    if (b === 'hang') return
    if (b === 'http500') return res.writeHead(500, { 'content-type': 'application/json' }).end('{"error":"model crashed"}')
    if (b === 'garbage') return res.writeHead(200, { 'content-type': 'text/plain' }).end('<html>gateway</html>')
    const system = body.messages.find((m) => m.role === 'system')?.content ?? ''
    const user = body.messages.filter((m) => m.role === 'user').at(-1)?.content ?? ''
    let content: string
    if (typeof b === 'function') content = await b(body)
    else if (/search queries/.test(system)) content = JSON.stringify({ queries: [/^Research: (.*)$/m.exec(user)?.[1] ?? user] })
    else if (body.response_format?.type === 'json_object') content = model.json ? model.json(body) : '{}'
    else content = ruleAnswer(user)
    const count = (t: string) => t.split(/\s+/).filter(Boolean).length
    res.writeHead(200, { 'content-type': 'application/json' }).end(
      JSON.stringify({
        id: `chatcmpl-${model.calls.length}`,
        object: 'chat.completion',
        model: body.model ?? 'fake',
        choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
        usage: { prompt_tokens: count(body.messages.map((m) => m.content).join(' ')), completion_tokens: count(content) },
      }),
    )
  })
  server.on('connection', (s) => {
    sockets.add(s)
    s.on('close', () => sockets.delete(s))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  model.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return model
}
