import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { expectBooksBalanced } from './support/books.ts'
import { type ChatRequestBody, type FakeModel, fakeModel } from './support/fake-model.ts'
import type { FakeUpstream } from './support/fake-upstream.ts'
import { KETTLE_QUESTION, PRODUCT_PAGES, PRODUCT_RESULTS, PRODUCT_SCHEMA, searchWorld, searchWorldEnv } from './support/search-world.ts'
import { startTrawl, type Trawl } from './support/start-trawl.ts'

/**
 * The MCP tools that use the operator's model, through the SDK's own Client (which checks every
 * structuredContent against the listed output schema) over Streamable HTTP: webpage and extract
 * with `schema`, and `research`. The model is test/support/fake-model.ts, the engine a loopback
 * SearXNG, the pages a loopback site; every tool call is compared, to the credit, with its REST
 * twin on another account.
 */

const SCHEMA = PRODUCT_SCHEMA

let site: FakeUpstream
let searx: FakeUpstream
let model: FakeModel
let trawl: Trawl
let withoutModel: Trawl
const clients: Client[] = []

beforeAll(async () => {
  ;({ site, searx } = await searchWorld(PRODUCT_PAGES, () => PRODUCT_RESULTS))
  model = await fakeModel()
  const env = {
    ...searchWorldEnv(searx),
    TRAWL_SCHEDULER_POLL_MS: '200',
  }
  trawl = await startTrawl({ ...env, TRAWL_LLM_URL: model.url, TRAWL_LLM_MODEL: 'fake-1', TRAWL_LLM_TIMEOUT_MS: '1500' }, { workers: true })
  withoutModel = await startTrawl(env)
}, 60_000)
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close().catch(() => {})))
  await trawl?.close()
  await withoutModel?.close()
  await model?.close()
  await searx?.close()
  await site?.close()
})

async function connect(t: Trawl, key: string): Promise<Client> {
  const client = new Client({ name: 'trawl-test', version: '1.0.0' })
  await client.connect(new StreamableHTTPClientTransport(new URL(`${t.base}/mcp`), { requestInit: { headers: { authorization: `Bearer ${key}` } } }))
  clients.push(client)
  // Listed first: the client then checks each call's structuredContent against the tool's outputSchema.
  await client.listTools()
  return client
}

const call = async (client: Client, name: string, args: Record<string, unknown>) => (await client.callTool({ name, arguments: args })) as CallToolResult
const textOf = (r: CallToolResult) => r.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n')
const structured = (r: CallToolResult) => r.structuredContent as Record<string, any>
const errorOf = (r: CallToolResult) => r._meta?.['trawl/error'] as { code: string; status: number | null }

const rest = (t: Trawl, key: string, method: string, path: string, body?: unknown) =>
  fetch(`${t.base}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
const account = async (t: Trawl, key: string) =>
  (await (await rest(t, key, 'GET', '/v1/account')).json()) as { balance: number; month: { credits: number; requests: number } }

/** Polls GET /v1/research/{id} until the job has ended. */
async function ended(key: string, id: string) {
  for (const until = Date.now() + 20_000; Date.now() < until; await new Promise((r) => setTimeout(r, 100))) {
    const task = await (await rest(trawl, key, 'GET', `/v1/research/${id}`)).json()
    if (['completed', 'failed', 'canceled'].includes(task.status)) return task
  }
  throw new Error(`research ${id} did not end`)
}

/** The product on the page the model was sent, with basis [1], as a model would fill SCHEMA. */
const fromPage = (body: ChatRequestBody) => {
  const user = body.messages.find((m) => m.role === 'user')!.content
  const name = /Aurora|Helios/.exec(user)?.[0] ?? 'unknown'
  return JSON.stringify({ data: { name, price: Number(/costs ([\d.]+) euros/.exec(user)?.[1] ?? 0) }, basis: { name: [1], price: [1] } })
}

describe('webpage and extract with schema', () => {
  test('data and basis as structured content and as text; billed as the REST calls', async () => {
    const viaMcp = await trawl.account({ plan: 'enterprise', rate_limit_rps: 1000, credits: 100 })
    const viaRest = await trawl.account({ plan: 'enterprise', rate_limit_rps: 1000, credits: 100 })
    const client = await connect(trawl, viaMcp.key)
    model.json = fromPage
    try {
      const webpage = await call(client, 'webpage', { url: `${site.url}/kettle`, schema: SCHEMA, prompt: 'the product on sale' })
      expect(webpage.isError).toBeFalsy()
      const w = structured(webpage)
      expect(w).toMatchObject({ data: { name: 'Aurora', price: 39.5 }, credits_used: 2, empty_page: false })
      expect(w.basis.price[0]).toMatchObject({ n: 1, url: `${site.url}/kettle`, text: expect.stringContaining('costs 39.50 euros') })
      expect(w.pages[0].content).toContain('1.7 litre electric kettle')
      const text = textOf(webpage)
      expect(text).toMatch(/^## Data\n\n```json\n\{\n {2}"name": "Aurora",\n {2}"price": 39.5\n\}\n```/)
      expect(text).toContain('- price: [1] “')
      expect(text).toContain('Credits used: 2')
      expect(
        model.calls
          .at(-1)!
          .messages.map((m) => m.content)
          .join('\n'),
      ).toContain('the product on sale')
      await rest(trawl, viaRest.key, 'POST', '/v1/webpage', { url: `${site.url}/kettle`, schema: SCHEMA, prompt: 'the product on sale', timeout: 20 })

      const urls = [`${site.url}/kettle`, `${site.url}/toaster`, `${site.url}/missing`]
      const extract = await call(client, 'extract', { urls, schema: SCHEMA })
      expect(extract.isError).toBeFalsy()
      const e = structured(extract)
      expect(e).toMatchObject({ succeeded: 2, credits_used: 4 })
      expect(e.extracted.map((x: { data: unknown }) => x.data)).toEqual([
        { name: 'Aurora', price: 39.5 },
        { name: 'Helios', price: 59 },
      ])
      expect(e.failed).toEqual([expect.objectContaining({ url: `${site.url}/missing` })])
      expect(textOf(extract)).toMatch(/## Data from \[Aurora electric kettle\]\(.*\/kettle\)/)
      expect(textOf(extract)).toContain('## Data from [Helios toaster]')
      await rest(trawl, viaRest.key, 'POST', '/v1/extract', { urls, schema: SCHEMA, timeout: 20 })
    } finally {
      model.json = null
    }
    const [a, b] = [await account(trawl, viaMcp.key), await account(trawl, viaRest.key)]
    expect([a.balance, a.month]).toEqual([b.balance, b.month])
    expect(a.balance).toBe(100 - 2 - 4)
  })

  test('a schema the REST route refuses is the same invalid_request; nothing is billed', async () => {
    const { key } = await trawl.account({ credits: 10 })
    const client = await connect(trawl, key)
    const bad = await call(client, 'webpage', { url: `${site.url}/kettle`, schema: { type: 'array' } })
    expect(bad.isError).toBe(true)
    expect(errorOf(bad)).toMatchObject({ code: 'invalid_request', status: 400 })
    expect(textOf(bad)).toContain('schema must describe an object')
    const lonePrompt = await call(client, 'webpage', { url: `${site.url}/kettle`, prompt: 'the price' })
    expect(textOf(lonePrompt)).toContain('prompt requires schema')
    expect((await account(trawl, key)).balance).toBe(10)
  })
})

describe('research', () => {
  test('tools/list offers it after context, with its limits', async () => {
    const { key } = await trawl.account({ credits: 10 })
    const { tools } = await (await connect(trawl, key)).listTools()
    expect(tools.map((t) => t.name).slice(0, 4)).toEqual(['search', 'context', 'research', 'webpage'])
    const research = tools.find((t) => t.name === 'research')!
    expect(Object.keys(research.inputSchema.properties ?? {})).toEqual([
      'input',
      'id',
      'max_searches',
      'max_pages',
      'max_tokens',
      'output_schema',
      'engine',
      'wait_seconds',
    ])
    // Not read-only (it starts a billed job) is the default and left out; not destructive is said.
    expect(research.annotations).toEqual({ destructiveHint: false })
  })

  test('waits for the job and returns the cited report, its sources and credits, with progress; billed as POST /v1/research', async () => {
    const viaMcp = await trawl.account({ plan: 'enterprise', rate_limit_rps: 1000, credits: 100 })
    const viaRest = await trawl.account({ plan: 'enterprise', rate_limit_rps: 1000, credits: 100 })
    const client = await connect(trawl, viaMcp.key)
    const args = { input: KETTLE_QUESTION, engine: 'searxng', max_searches: 1, max_pages: 2, max_tokens: 2000 }
    const progress: string[] = []
    const result = (await client.callTool({ name: 'research', arguments: args }, undefined, {
      onprogress: (p) => progress.push(p.message ?? ''),
      timeout: 55_000,
    })) as CallToolResult
    expect(result.isError, textOf(result)).toBeFalsy()
    const r = structured(result)
    // Held: plan 1 + search 1 + 2 pages + report 1; used the same (both pages read).
    expect(r).toMatchObject({ status: 'completed', credits_reserved: 5, credits_used: 5, data: null, basis: null, error: null })
    expect(r.report).toMatch(/electric kettle \[1\]\.$/)
    expect(r.sources[0]).toEqual({
      n: 1,
      url: `${site.url}/kettle`,
      title: 'Aurora electric kettle',
      query: KETTLE_QUESTION,
      start: expect.any(Number),
      end: expect.any(Number),
    })
    expect(r.cited).toEqual([1])
    expect(r.request_id).toMatch(/^req_/)
    const text = textOf(result)
    expect(text).toContain(`# Research: ${KETTLE_QUESTION}`)
    expect(text).toContain('## Sources')
    expect(text).toContain(`[1] [Aurora electric kettle](${site.url}/kettle) (found for “${KETTLE_QUESTION}”)`)
    expect(text).toContain('Credits: 5 held, 5 used (the rest was refunded).')
    expect(progress.length).toBeGreaterThan(0)
    expect(progress.at(-1)).toMatch(/sub-queries searched/)

    const started = await (await rest(trawl, viaRest.key, 'POST', '/v1/research', args)).json()
    expect((await ended(viaRest.key, started.id)).status).toBe('completed')
    const [a, b] = [await account(trawl, viaMcp.key), await account(trawl, viaRest.key)]
    expect([a.balance, a.month]).toEqual([b.balance, b.month])
    expect(a.balance).toBe(95)
    await expectBooksBalanced(trawl, viaMcp.id)
  }, 60_000)

  test('a job still running is waited on again with its id; output_schema answers data with basis', async () => {
    const { key } = await trawl.account({ plan: 'enterprise', rate_limit_rps: 1000, credits: 100 })
    const client = await connect(trawl, key)
    model.json = () => JSON.stringify({ data: { boil_minutes: 3 }, basis: { boil_minutes: [1, 99] } })
    try {
      const schema = { type: 'object', properties: { boil_minutes: { type: 'number' } }, required: ['boil_minutes'] }
      const first = await call(client, 'research', {
        input: KETTLE_QUESTION,
        engine: 'searxng',
        max_searches: 1,
        max_pages: 1,
        output_schema: schema,
        wait_seconds: 0,
      })
      expect(first.isError, textOf(first)).toBeFalsy()
      const id = structured(first).id as string
      expect(structured(first)).toMatchObject({ status: 'queued', report: null, credits_reserved: 5, credits_used: 0 })
      expect(textOf(first)).toContain(`Still queued: call research again with id "${id}" to keep waiting.`)

      const again = await call(client, 'research', { id, wait_seconds: 30 })
      expect(structured(again)).toMatchObject({ id, status: 'completed', data: { boil_minutes: 3 }, basis: { boil_minutes: [1] }, report: null })
      expect(structured(again).credits_remaining).toBeNull()
      expect(textOf(again)).toContain('## Data\n\n```json\n{\n  "boil_minutes": 3\n}\n```')
      expect(textOf(again)).toContain('- boil_minutes: [1]')
    } finally {
      model.json = null
    }
  }, 60_000)

  test('arguments are checked: id with start arguments, neither input nor id, an unknown id, a bad REST value', async () => {
    const { key } = await trawl.account({ credits: 10 })
    const client = await connect(trawl, key)
    const mixed = await call(client, 'research', { id: 'abc', input: KETTLE_QUESTION })
    expect(errorOf(mixed)).toMatchObject({ code: 'invalid_request' })
    expect(textOf(mixed)).toContain('input: id waits on a research already started')
    const none = await call(client, 'research', {})
    expect(textOf(none)).toContain('input: required (or id')
    const unknown = await call(client, 'research', { id: 'no-such-job', wait_seconds: 0 })
    expect(errorOf(unknown)).toMatchObject({ code: 'not_found', status: 404 })
    const tooMany = await call(client, 'research', { input: KETTLE_QUESTION, max_searches: 11 })
    expect(errorOf(tooMany)).toMatchObject({ code: 'invalid_request' })
    expect((await account(trawl, key)).balance).toBe(10)
  })
})

describe('without a model', () => {
  test('schema and research are not_configured tool errors naming TRAWL_LLM_URL; nothing is billed', async () => {
    const { key } = await withoutModel.account({ credits: 10 })
    const client = await connect(withoutModel, key)
    const webpage = await call(client, 'webpage', { url: `${site.url}/kettle`, schema: SCHEMA })
    expect(errorOf(webpage)).toMatchObject({ code: 'not_configured', status: 501 })
    expect(textOf(webpage)).toContain('TRAWL_LLM_URL')
    const research = await call(client, 'research', { input: KETTLE_QUESTION, engine: 'searxng' })
    expect(errorOf(research)).toMatchObject({ code: 'not_configured', status: 501 })
    expect((await account(withoutModel, key)).balance).toBe(10)
  })
})
