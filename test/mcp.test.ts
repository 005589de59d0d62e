import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { request as httpRequest } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { type CrawlSite, startCrawlSite } from './support/crawl-site.ts'
import { type FakeUpstream, fakeUpstream, fixture, htmlPage } from './support/fake-upstream.ts'
import { type LocalSite, startLocalSite } from './support/reading-site.ts'
import { startTrawl, type Trawl } from './support/start-trawl.ts'

const COFFEE = fixture('serp/google/web-desktop/zlurad-coffee.html')
const ROOT = fileURLToPath(new URL('..', import.meta.url))
/** The configured public address: Host and Origin checks compare against it (and loopback). */
const BASE_URL = 'http://mcp.trawl.test'

let upstream: FakeUpstream
let site: LocalSite
let crawlSite: CrawlSite
let trawl: Trawl
const clients: Client[] = []
const loginDirs: string[] = []

beforeAll(async () => {
  upstream = await fakeUpstream(htmlPage(COFFEE))
  site = await startLocalSite()
  crawlSite = await startCrawlSite()
  trawl = await startTrawl(
    {
      TRAWL_UPSTREAM_HOSTS: `*=${upstream.url}`,
      TRAWL_UPSTREAM_TIMEOUT_MS: '3000',
      TRAWL_ALLOW_PRIVATE_NETWORK: 'true',
      TRAWL_SCHEDULER_POLL_MS: '100',
      TRAWL_BASE_URL: BASE_URL,
    },
    { workers: true },
  )
})
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close().catch(() => {})))
  await trawl.close()
  await Promise.all([upstream.close(), site.close(), crawlSite.close()])
  for (const dir of loginDirs) rmSync(dir, { recursive: true, force: true })
})

/**
 * A connected client that has read tools/list: the SDK's Client then checks every tool call's
 * structuredContent against that tool's outputSchema (and throws when it does not match).
 */
async function connect(key: string | null): Promise<Client> {
  const client = new Client({ name: 'trawl-test', version: '1.0.0' })
  const transport = new StreamableHTTPClientTransport(new URL(`${trawl.base}/mcp`), {
    requestInit: { headers: key ? { authorization: `Bearer ${key}` } : {} },
  })
  await client.connect(transport)
  clients.push(client)
  if (key) await client.listTools()
  return client
}

const rest = (key: string, method: string, path: string, body?: unknown) =>
  fetch(`${trawl.base}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  })

const account = async (key: string) =>
  (await (await rest(key, 'GET', '/v1/account')).json()) as { balance: number; month: { credits: number; requests: number } }

const textOf = (r: CallToolResult) => r.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n')
const structured = <T = Record<string, any>>(r: CallToolResult) => r.structuredContent as T
const errorMeta = (r: CallToolResult) =>
  r._meta?.['trawl/error'] as { code: string; status: number | null; retryable: boolean; retry_after_seconds: number | null }

async function call(client: Client, name: string, args: Record<string, unknown>) {
  return (await client.callTool({ name, arguments: args })) as CallToolResult
}

/** Polls a REST endpoint until `done` holds. */
async function until<T>(read: () => Promise<T>, done: (t: T) => boolean, ms = 20_000): Promise<T> {
  const end = Date.now() + ms
  for (;;) {
    const value = await read()
    if (done(value) || Date.now() > end) return value
    await new Promise((r) => setTimeout(r, 100))
  }
}

describe('MCP over Streamable HTTP', () => {
  test('lists every tool with a description, an input schema and an output schema', async () => {
    const { key } = await trawl.account({ credits: 10 })
    const client = await connect(key)
    expect(client.getServerVersion()).toMatchObject({ name: 'trawl' })
    expect(client.getInstructions()).toContain('cursor')
    const { tools } = await client.listTools()
    expect(tools.map((t) => t.name)).toEqual([
      'search',
      'context',
      'research',
      'webpage',
      'extract',
      'map',
      'crawl',
      'crawl_result',
      'rank',
      'batch',
      'batch_result',
      'monitor_create',
      'monitor_list',
      'monitor_runs',
      'account',
    ])
    for (const t of tools) {
      expect(t.description?.length).toBeGreaterThan(60)
      expect(t.inputSchema.type).toBe('object')
      expect(t.outputSchema?.type).toBe('object')
    }
    const search = tools.find((t) => t.name === 'search')!
    expect(search.inputSchema.required).toEqual(['q'])
    expect(search.inputSchema.additionalProperties).toBe(false)
    expect(Object.keys(search.inputSchema.properties ?? {})).toEqual(expect.arrayContaining(['q', 'vertical', 'engine', 'num', 'max_tokens', 'cursor']))
    expect((search.inputSchema.properties as Record<string, { enum?: string[] }>).vertical?.enum).toEqual([
      'web',
      'news',
      'images',
      'videos',
      'places',
      'maps',
      'shopping',
      'scholar',
      'patents',
    ])
    // Listing and initialising are free, and the key's balance is untouched.
    expect((await account(key)).month.requests).toBe(0)
  })

  test('tools/list stays under 17,500 bytes of JSON, output schemas included', async () => {
    const { key } = await trawl.account({ credits: 10 })
    const client = await connect(key)
    const listed = await client.listTools()
    const bytes = Buffer.byteLength(JSON.stringify(listed))
    expect(bytes).toBeLessThan(17_500)
    // Shared parameters are explained once, in the server's instructions, not in every tool.
    expect(client.getInstructions()).toMatch(/max_age/)
    for (const t of listed.tools) expect(JSON.stringify(t.inputSchema)).not.toMatch(/9007199254740991|"maxLength"|"pattern"/)
  })

  test('tool calls return structuredContent that validates against the outputSchema; errors stay isError without it', async () => {
    const { key } = await trawl.account({ credits: 10 })
    const client = await connect(key)
    const { tools } = await client.listTools()
    const validator = new AjvJsonSchemaValidator()
    const check = (name: string, result: CallToolResult) => {
      const schema = tools.find((t) => t.name === name)!.outputSchema!
      const verdict = validator.getValidator(schema)(result.structuredContent)
      expect(verdict.errorMessage).toBeUndefined()
      expect(verdict.valid).toBe(true)
    }
    const search = await call(client, 'search', { q: 'coffee' })
    expect(search.isError).toBeFalsy()
    expect(structured(search)).toMatchObject({ vertical: 'web', query: 'coffee', total: 10, credits_used: 1 })
    check('search', search)
    // The text stays the Markdown answer for clients that do not read structuredContent.
    expect(textOf(search)).toContain('# Search: coffee')
    const me = await call(client, 'account', {})
    expect(structured(me)).toMatchObject({ balance: 9 })
    check('account', me)

    const bad = await call(client, 'search', { q: 'coffee', num: 7 })
    expect(bad.isError).toBe(true)
    expect(bad.structuredContent).toBeUndefined()
    expect(errorMeta(bad)).toMatchObject({ code: 'invalid_request' })
  })

  test('every tool call moves exactly the credits its REST twin moves', async () => {
    const viaMcp = await trawl.account({ plan: 'pro', credits: 200 })
    const viaRest = await trawl.account({ plan: 'pro', credits: 200 })
    const client = await connect(viaMcp.key)
    const article = `${site.url}/article/ars`

    const search = await call(client, 'search', { q: 'coffee' })
    expect(search.isError).toBeFalsy()
    expect(textOf(search)).toContain('# Search: coffee')
    expect(textOf(search)).toContain('[Coffee](https://en.wikipedia.org/wiki/Coffee)')
    expect(structured(search)).toMatchObject({ vertical: 'web', query: 'coffee', engine: 'google', credits_used: 1, offset: 0, total: 10 })
    expect(structured(search).results[0]).toMatchObject({ position: 1, link: 'https://en.wikipedia.org/wiki/Coffee' })
    expect(structured(search).extras.knowledge_graph.title).toBe('Coffee')
    expect(structured(search).request_id).toMatch(/^req_/)
    await rest(viaRest.key, 'POST', '/v1/search', { q: 'coffee' })

    const webpage = await call(client, 'webpage', { url: article, max_tokens: 50_000 })
    expect(webpage.isError).toBeFalsy()
    expect(structured(webpage)).toMatchObject({ credits_used: 1, empty_page: false, next_cursor: null })
    expect(structured(webpage).pages[0]).toMatchObject({ url: article, part: 'whole' })
    expect(structured(webpage).pages[0].content.length).toBeGreaterThan(1000)
    await rest(viaRest.key, 'POST', '/v1/webpage', { url: article, timeout: 30 })

    const urls = [article, `${site.url}/article/bbc`, `${site.url}/missing`]
    const extract = await call(client, 'extract', { urls, max_tokens: 50_000 })
    expect(extract.isError).toBeFalsy()
    expect(structured(extract)).toMatchObject({ credits_used: 2, succeeded: 2 })
    expect(structured(extract).failed).toEqual([expect.objectContaining({ url: `${site.url}/missing` })])
    expect(textOf(extract)).toContain('Could not read (not billed)')
    await rest(viaRest.key, 'POST', '/v1/extract', { urls, timeout: 30 })

    const map = await call(client, 'map', { url: `${crawlSite.url}/` })
    expect(map.isError).toBeFalsy()
    expect(structured(map).credits_used).toBe(1)
    expect(structured(map).total).toBeGreaterThan(5)
    expect(textOf(map)).toContain(`${crawlSite.url}/about`)
    await rest(viaRest.key, 'POST', '/v1/map', { url: `${crawlSite.url}/` })

    const rank = await call(client, 'rank', { q: 'coffee', domain: 'wikipedia.org', num: 10 })
    expect(rank.isError).toBeFalsy()
    expect(structured(rank)).toMatchObject({ domain: 'wikipedia.org', position: 1, credits_used: 1 })
    expect(textOf(rank)).toContain('Best position: 1')
    await rest(viaRest.key, 'POST', '/v1/rank', { q: 'coffee', domain: 'wikipedia.org', num: 10 })

    const crawl = await call(client, 'crawl', { url: `${crawlSite.url}/`, limit: 4, max_depth: 1, wait_seconds: 30 })
    expect(crawl.isError).toBeFalsy()
    expect(structured(crawl)).toMatchObject({ status: 'completed', credits_reserved: 4 })
    const crawlId = structured(crawl).id as string
    const started = await (await rest(viaRest.key, 'POST', '/v1/crawl', { url: `${crawlSite.url}/`, limit: 4, max_depth: 1 })).json()
    await until(
      async () => (await (await rest(viaRest.key, 'GET', `/v1/crawl/${started.id}`)).json()).status,
      (s) => s === 'completed',
    )

    // Same money and the same billed requests on both keys' accounts.
    const [a, b] = [await account(viaMcp.key), await account(viaRest.key)]
    expect(a.balance).toBe(b.balance)
    expect(a.month).toEqual(b.month)
    expect(a.balance).toBe(200 - 1 - 1 - 2 - 1 - 1 - 4)

    // crawl_result pages the crawl's pages; later pages are free.
    const first = await call(client, 'crawl_result', { id: crawlId, max_tokens: 800 })
    expect(first.isError).toBeFalsy()
    expect(structured(first)).toMatchObject({ id: crawlId, status: 'completed', offset: 0 })
    expect(structured(first).stats).toMatchObject({ pages: 4 })
    expect(textOf(first)).toContain('# Crawl of')
    const cursor = structured(first).next_cursor as string
    expect(cursor).toEqual(expect.any(String))
    const second = await call(client, 'crawl_result', { id: crawlId, max_tokens: 800, cursor })
    expect(structured(second).offset).toBeGreaterThan(0)
    expect(structured(second).pages.length).toBeGreaterThan(0)
    expect((await account(viaMcp.key)).balance).toBe(a.balance)
  }, 60_000)

  test('long answers are paged with a cursor, and reading on costs nothing', async () => {
    const { key } = await trawl.account({ credits: 50 })
    const client = await connect(key)
    const first = await call(client, 'search', { q: 'coffee', max_tokens: 500 })
    const page1 = structured(first)
    expect(page1.results.length).toBeGreaterThan(0)
    expect(page1.results.length).toBeLessThan(10)
    expect(page1.next_cursor).toEqual(expect.any(String))
    expect(textOf(first)).toContain(`cursor "${page1.next_cursor}"`)
    const balance = (await account(key)).balance
    expect(balance).toBe(49)

    const seen = [...page1.results]
    let cursor = page1.next_cursor
    while (cursor) {
      const next = await call(client, 'search', { q: 'coffee', max_tokens: 500, cursor })
      expect(next.isError).toBeFalsy()
      expect(structured(next).credits_used).toBe(0)
      expect(structured(next).extras).toBeNull()
      seen.push(...structured(next).results)
      cursor = structured(next).next_cursor
    }
    expect(seen.map((r) => r.position)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10])
    expect((await account(key)).balance).toBe(49)

    // A long page is cut between paragraphs, the parts say so, and a cursor is bound to its tool.
    const long = await call(client, 'webpage', { url: `${site.url}/article/wiki`, max_tokens: 500 })
    expect(structured(long).pages[0].part).toBe('start')
    const more = await call(client, 'webpage', { url: `${site.url}/article/wiki`, max_tokens: 500, cursor: structured(long).next_cursor })
    expect(structured(more).pages[0].part).toMatch(/middle|end/)
    expect(textOf(more)).toContain('(continued)')
    expect(textOf(long)).toContain('Shown: page 1 of 1, in part.')
    const wrong = await call(client, 'search', { q: 'coffee', cursor: structured(long).next_cursor })
    expect(wrong.isError).toBe(true)
    expect(errorMeta(wrong).code).toBe('invalid_request')
    // ...and to its arguments: the same cursor with another URL is refused, not another page's text.
    const other = await call(client, 'webpage', { url: `${site.url}/article/ars`, max_tokens: 500, cursor: structured(long).next_cursor })
    expect(errorMeta(other)).toMatchObject({ code: 'invalid_request' })
    expect(textOf(other)).toContain('cursor continues a webpage call with other arguments')
    expect((await account(key)).balance).toBe(48)
  })

  test('a call with a short deadline returns what is done: extract lists the slow page as failed', async () => {
    const { key } = await trawl.account({ credits: 10 })
    const client = await connect(key)
    const started = Date.now()
    const result = await call(client, 'extract', { urls: [`${site.url}/article/bbc`, `${site.url}/slow`], timeout: 2 })
    expect(Date.now() - started).toBeLessThan(10_000)
    expect(structured(result)).toMatchObject({ succeeded: 1, credits_used: 1 })
    expect(structured(result).failed).toEqual([{ url: `${site.url}/slow`, error: expect.objectContaining({ code: 'upstream_timeout' }) }])
  })

  test('extract where no page can be read answers as REST does: every URL in failed[], free, not an error to retry', async () => {
    const { key } = await trawl.account({ credits: 10 })
    const client = await connect(key)
    const urls = [`${site.url}/missing`, `${site.url}/server-error`]
    const viaRest = await rest(key, 'POST', '/v1/extract', { urls, timeout: 30 })
    expect(viaRest.status).toBe(200)
    const restBody = await viaRest.json()
    expect(restBody.results).toEqual([])
    expect(restBody.failed.map((f: { url: string }) => f.url)).toEqual(urls)

    const result = await call(client, 'extract', { urls })
    expect(result.isError).toBeFalsy()
    expect(result._meta?.['trawl/error']).toBeUndefined()
    expect(structured(result)).toMatchObject({ pages: [], total: 0, next_cursor: null, succeeded: 0, credits_used: 0, offset: 0 })
    expect(structured(result).failed).toEqual(restBody.failed)
    expect(textOf(result)).toContain('Could not read (not billed)')
    for (const url of urls) expect(textOf(result)).toContain(url)
    expect((await account(key)).balance).toBe(10)
  })

  test('tool errors carry the API code, message and retry hint', async () => {
    const broke = await trawl.account({ credits: 0 })
    const client = await connect(broke.key)
    const poor = await call(client, 'search', { q: 'coffee' })
    expect(poor.isError).toBe(true)
    expect(textOf(poor)).toMatch(/^Error insufficient_credits \(HTTP 402\): /)
    expect(textOf(poor)).toContain('Do not retry')
    expect(errorMeta(poor)).toMatchObject({ code: 'insufficient_credits', status: 402, retryable: false })

    // Refused by the tool's own schema and by the REST route's: the same code either way.
    const badNum = await call(client, 'search', { q: 'coffee', num: 7 })
    expect(errorMeta(badNum)).toMatchObject({ code: 'invalid_request', status: 400 })
    expect(textOf(badNum)).toContain('num')
    const wrongVertical = await call(client, 'search', { q: 'coffee', vertical: 'scholar', device: 'mobile' })
    expect(errorMeta(wrongVertical)).toMatchObject({ code: 'invalid_request', status: 400 })
    expect(textOf(wrongVertical)).toContain('device')
    const missing = await call(client, 'crawl_result', { id: 'no-such-crawl', wait_seconds: 0 })
    expect(errorMeta(missing)).toMatchObject({ code: 'not_found', status: 404 })
    expect(textOf(missing)).toMatch(/Request id: req_/)
    await expect(client.callTool({ name: 'no_such_tool', arguments: {} })).rejects.toThrow(/unknown tool/)
  })

  test('a tool call counts once against the rate limit; initialize and tools/list do not count', async () => {
    const { key } = await trawl.account({ plan: 'enterprise', rate_limit_rps: 2, credits: 10 })
    const client = await connect(key)
    await client.listTools()
    await client.listTools()
    // One tool call (its REST call is rate counted), one REST call: the limit of 2 is reached...
    const first = await call(client, 'crawl_result', { id: 'nope', wait_seconds: 0 })
    expect(errorMeta(first).code).toBe('not_found')
    expect((await rest(key, 'GET', '/v1/crawl/nope')).status).toBe(404)
    // ...so the next call of either kind in the same second is refused, with a retry hint.
    const limited = await call(client, 'crawl_result', { id: 'nope', wait_seconds: 0 })
    expect(limited.isError).toBe(true)
    expect(errorMeta(limited)).toMatchObject({ code: 'rate_limited', status: 429, retryable: true, retry_after_seconds: 1 })
    expect(textOf(limited)).toContain('Retry: yes, after 1 s.')
    expect((await rest(key, 'GET', '/v1/crawl/nope')).status).toBe(429)
    await client.listTools() // still answered: listing is not a metered call
  })

  test('a dead link is not a retry the model should make; a server error is', async () => {
    const { key } = await trawl.account({ plan: 'enterprise', rate_limit_rps: 100, credits: 10 })
    const client = await connect(key)
    const gone = await call(client, 'webpage', { url: `${site.url}/missing` })
    expect(errorMeta(gone)).toMatchObject({ code: 'upstream_error', retryable: false, retry_after_seconds: 3600 })
    expect(textOf(gone)).toContain('Do not retry now')
    const broken = await call(client, 'webpage', { url: `${site.url}/server-error` })
    expect(errorMeta(broken)).toMatchObject({ code: 'upstream_error', retryable: true, retry_after_seconds: 5 })
  })

  test('a missing or bad key is refused with 401 before anything runs', async () => {
    await expect(connect('trawl_live_0123456789abcdef0123456789abcdef')).rejects.toMatchObject({
      code: 401,
      message: expect.stringMatching(/"code":"unauthorized","message":"invalid API key"/),
    })
    await expect(connect(null)).rejects.toMatchObject({ code: 401, message: expect.stringContaining('missing API key') })
  })

  test('Host and Origin are checked against DNS rebinding; GET and DELETE answer 405', async () => {
    const { key } = await trawl.account({ credits: 10 })
    const port = new URL(trawl.base).port
    const initialize = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    }
    const post = (headers: Record<string, string>, method = 'POST') =>
      raw(
        port,
        method,
        {
          authorization: `Bearer ${key}`,
          accept: 'application/json, text/event-stream',
          ...(method === 'POST' ? { 'content-type': 'application/json' } : {}),
          ...headers,
        },
        method === 'POST' ? JSON.stringify(initialize) : undefined,
      )

    const rebound = await post({ host: `evil.example:${port}` })
    expect(rebound.status).toBe(403)
    expect(JSON.parse(rebound.body).error).toMatchObject({ code: 'forbidden', message: expect.stringContaining('evil.example') })
    const foreignPage = await post({ host: `127.0.0.1:${port}`, origin: 'http://evil.example' })
    expect(foreignPage.status).toBe(403)
    expect(JSON.parse(foreignPage.body).error.message).toContain('Origin http://evil.example')
    expect((await post({ host: `localhost:${port}`, origin: 'null' })).status).toBe(403)

    // The configured address, and a browser page of this server's own origin, are answered.
    const own = await post({ host: 'mcp.trawl.test', origin: BASE_URL })
    expect(own.status).toBe(200)
    expect(own.body).toContain('"protocolVersion":"2025-11-25"')
    expect(own.headers['x-request-id']).toMatch(/^req_/)
    expect((await post({ host: `[::1]:${port}` })).status).toBe(200)

    const get = await post({ host: `127.0.0.1:${port}` }, 'GET')
    expect(get.status).toBe(405)
    expect(get.headers.allow).toBe('POST')
    expect((await post({ host: `127.0.0.1:${port}` }, 'DELETE')).status).toBe(405)
    expect((await post({ host: `evil.example:${port}` }, 'GET')).status).toBe(403)
  })

  test('batch and batch_result: queued at half price, results read back as Markdown', async () => {
    const { key } = await trawl.account({ credits: 20 })
    const client = await connect(key)
    const batch = await call(client, 'batch', { endpoint: 'search', requests: [{ q: 'coffee' }, { q: 'tea', num: 7 }] })
    expect(batch.isError).toBeFalsy()
    expect(structured(batch)).toMatchObject({ endpoint: 'search', queued: 1, refused: 1, credits_used: 0.5 })
    expect(structured(batch).jobs[1].error.code).toBe('invalid_request')
    const id = structured(batch).jobs[0].id as string
    const result = await call(client, 'batch_result', { ids: [id, 'no-such-job'], wait_seconds: 30 })
    expect(result.isError).toBeFalsy()
    expect(structured(result)).toMatchObject({ done: 1, pending: 0 })
    expect(structured(result).jobs.map((j: { status: string }) => j.status)).toEqual(['done', 'not_found'])
    expect(textOf(result)).toContain('# Search: coffee')
    expect((await account(key)).balance).toBe(19.5)
  }, 40_000)

  test('monitor_create, monitor_list and monitor_runs', async () => {
    const { key } = await trawl.account({ credits: 20 })
    const client = await connect(key)
    const created = await call(client, 'monitor_create', { q: 'coffee', name: 'Coffee watch', interval: 'daily' })
    expect(created.isError).toBeFalsy()
    const id = structured(created).monitor.id as string
    expect(structured(created).monitor).toMatchObject({ name: 'Coffee watch', endpoint: 'search', active: true })

    const list = await call(client, 'monitor_list', {})
    expect(structured(list).monitors.map((m: { id: string }) => m.id)).toEqual([id])
    expect(textOf(list)).toContain('Coffee watch')

    const runs = await until(
      () => call(client, 'monitor_runs', { id }),
      (r) => structured(r).runs.length > 0,
    )
    expect(structured(runs).runs[0]).toMatchObject({ status: 'ok', first_run: true })
    expect(textOf(runs)).toContain('first run')
    expect(textOf(runs)).toContain('https://en.wikipedia.org/wiki/Coffee')
  }, 30_000)
})

describe('MCP over stdio (`trawl mcp`)', () => {
  test('a thin client of the HTTP API: same tools, billed on the server', async () => {
    const { key } = await trawl.account({ credits: 10 })
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: ['bin/trawl.mjs', 'mcp'],
      cwd: ROOT,
      env: { TRAWL_URL: trawl.base, TRAWL_API_KEY: key },
      stderr: 'pipe',
    })
    const client = new Client({ name: 'trawl-stdio-test', version: '1.0.0' })
    await client.connect(transport)
    clients.push(client)
    const { tools } = await client.listTools()
    expect(tools).toHaveLength(15)

    const search = await call(client, 'search', { q: 'coffee', num: 10 })
    expect(search.isError).toBeFalsy()
    expect(structured(search)).toMatchObject({ credits_used: 1, total: 10 })
    expect(textOf(search)).toContain('# Search: coffee')
    const page = await call(client, 'webpage', { url: `${site.url}/article/ars`, max_tokens: 600 })
    expect(structured(page).credits_used).toBe(1)
    const more = await call(client, 'webpage', { url: `${site.url}/article/ars`, max_tokens: 600, cursor: structured(page).next_cursor })
    expect(structured(more).credits_used).toBe(0)
    expect((await account(key)).balance).toBe(8)

    const missing = await call(client, 'crawl_result', { id: 'nope', wait_seconds: 0 })
    expect(errorMeta(missing)).toMatchObject({ code: 'not_found', status: 404 })
    await client.close()
  }, 60_000)

  test('without TRAWL_API_KEY, the saved `trawl login` is used (an empty variable counts as unset)', async () => {
    const saved = await trawl.account({ credits: 7 })
    const config = savedLogin({ url: trawl.base, key: saved.key })
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: ['bin/trawl.mjs', 'mcp'],
      cwd: ROOT,
      env: { TRAWL_CONFIG: config, TRAWL_API_KEY: '', TRAWL_URL: '' },
      stderr: 'pipe',
    })
    const client = new Client({ name: 'trawl-stdio-test', version: '1.0.0' })
    await client.connect(transport)
    clients.push(client)
    await client.listTools()
    const me = await call(client, 'account', {})
    expect(me.isError).toBeFalsy()
    expect(structured(me)).toMatchObject({ balance: 7 })
    await client.close()
  }, 60_000)

  test('TRAWL_API_KEY comes before the saved login: a wrong one is a tool error; no key anywhere stops the command', async () => {
    const saved = await trawl.account({ credits: 7 })
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: ['bin/trawl.mjs', 'mcp'],
      cwd: ROOT,
      env: {
        TRAWL_URL: trawl.base,
        TRAWL_API_KEY: 'trawl_live_0123456789abcdef0123456789abcdef',
        TRAWL_CONFIG: savedLogin({ url: trawl.base, key: saved.key }),
      },
      stderr: 'pipe',
    })
    const client = new Client({ name: 'trawl-stdio-test', version: '1.0.0' })
    await client.connect(transport)
    clients.push(client)
    const denied = await call(client, 'account', {})
    expect(errorMeta(denied)).toMatchObject({ code: 'unauthorized', status: 401, retryable: false })
    await client.close()

    const { spawnSync } = await import('node:child_process')
    const env = { PATH: process.env.PATH ?? '', TRAWL_CONFIG: join(tmpdir(), 'trawl-mcp-test-no-such-dir', 'config.json') }
    const run = spawnSync(process.execPath, ['bin/trawl.mjs', 'mcp'], { cwd: ROOT, env, encoding: 'utf8', input: '' })
    expect(run.status).toBe(2)
    expect(run.stderr).toContain('no API key')
    expect(run.stderr).toContain('TRAWL_API_KEY')
    expect(run.stderr).toContain('trawl login')
    expect(run.stdout).toBe('')
  }, 60_000)
})

/** A login file as `trawl login` writes it (0600), in a directory of its own. */
function savedLogin(login: { url: string; key: string }): string {
  const dir = mkdtempSync(join(tmpdir(), 'trawl-mcp-login-'))
  loginDirs.push(dir)
  const path = join(dir, 'config.json')
  writeFileSync(path, `${JSON.stringify(login)}\n`, { mode: 0o600 })
  return path
}

/** A raw HTTP request, for the headers fetch will not let a caller set (Host). */
function raw(port: string, method: string, headers: Record<string, string>, body?: string) {
  return new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }>((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port: Number(port), method, path: '/mcp', headers }, (res) => {
      let text = ''
      res.setEncoding('utf8')
      res.on('data', (chunk) => {
        text += chunk
      })
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }))
    })
    req.on('error', reject)
    req.end(body)
  })
}
