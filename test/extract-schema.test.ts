import type { IncomingMessage, ServerResponse } from 'node:http'
import Firecrawl from '@mendable/firecrawl-js'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { ExtractResponse, WebpageResponse } from '../src/features/reading/reading.response.ts'
import { type ChatRequestBody, type FakeModel, fakeModel } from './support/fake-model.ts'
import { type FakeUpstream, fakeUpstream } from './support/fake-upstream.ts'
import { articlePage } from './support/search-world.ts'
import { startTrawl, type Trawl } from './support/start-trawl.ts'

/**
 * `schema` on POST /v1/webpage and /v1/extract, through HTTP: a loopback product site, the
 * operator's model is test/support/fake-model.ts answering JSON prompts with what each test sets.
 * Data is returned only when valid against the schema; basis points at real passages; invalid
 * output is retried once, then refused; model calls are billed only for data returned.
 */

const PAGES: Record<string, string> = {
  '/kettle': articlePage(
    'Aurora electric kettle',
    'The Aurora is a 1.7 litre electric kettle with a brushed steel body and a blue-lit window that shows the water level.',
    'It costs 39.50 euros and comes with a two-year warranty. It boils one litre in about three minutes.',
  ),
  '/toaster': articlePage('Helios toaster', 'The Helios toaster has four slots and a bagel setting. It costs 59 euros and is sold out until spring.'),
}

const SCHEMA = {
  type: 'object',
  properties: { name: { type: 'string' }, price: { type: 'number' }, currency: { type: 'string' } },
  required: ['name', 'price'],
  additionalProperties: false,
}

let site: FakeUpstream
let model: FakeModel
let trawl: Trawl
let noModel: Trawl
let key: string
let plainKey: string

beforeAll(async () => {
  site = await fakeUpstream((req: IncomingMessage, res: ServerResponse) => {
    const html = PAGES[(req.url ?? '/').split('?')[0]!]
    if (!html) return res.writeHead(404).end()
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html)
  })
  model = await fakeModel()
  const env = { TRAWL_ALLOW_PRIVATE_NETWORK: 'true', TRAWL_BROWSER: 'off' }
  trawl = await startTrawl({ ...env, TRAWL_LLM_URL: `${model.url}/v1`, TRAWL_LLM_TIMEOUT_MS: '1000' })
  noModel = await startTrawl(env)
  key = (await trawl.account({ plan: 'enterprise', rate_limit_rps: 1000, credits: 100 })).key
  plainKey = (await noModel.account({ plan: 'enterprise', rate_limit_rps: 1000, credits: 100 })).key
})
afterAll(async () => {
  await trawl?.close()
  await noModel?.close()
  await model?.close()
  await site?.close()
})

const post = (t: Trawl, k: string, path: string, body: unknown) =>
  fetch(`${t.base}${path}`, { method: 'POST', headers: { authorization: `Bearer ${k}`, 'content-type': 'application/json' }, body: JSON.stringify(body) })
const balance = async (t: Trawl, k: string) =>
  (await (await fetch(`${t.base}/v1/account`, { headers: { authorization: `Bearer ${k}` } })).json()).balance as number

/** The product's values, read from the page the model was sent (as a model would), with basis [1]. */
const pageSent = (body: ChatRequestBody) => body.messages.find((m) => m.role === 'user')!.content
const fromPage = (body: ChatRequestBody) => {
  const user = pageSent(body)
  const name = /Aurora|Helios/.exec(user)?.[0] ?? 'unknown'
  const price = Number(/costs ([\d.]+) euros/.exec(user)?.[1] ?? 0)
  return JSON.stringify({ data: { name, price, currency: 'EUR' }, basis: { name: [1], price: [1, 99], currency: [] } })
}

describe('schema extraction', () => {
  test('without a model: 501 not_configured naming TRAWL_LLM_URL; nothing billed', async () => {
    const before = await balance(noModel, plainKey)
    const res = await post(noModel, plainKey, '/v1/webpage', { url: `${site.url}/kettle`, schema: SCHEMA })
    expect(res.status).toBe(501)
    expect((await res.json()).error.message).toContain('TRAWL_LLM_URL')
    expect(await balance(noModel, plainKey)).toBe(before)
  })

  test.each([
    [{ schema: { type: 'array' } }, 'schema must describe an object'],
    [{ schema: { type: 'object', properties: { a: { type: 'string', pattern: '^(a+)+$' } } } }, 'schema may not use pattern'],
    [{ schema: { type: 'object', properties: { a: { type: 'strng' } } } }, 'schema is not a valid JSON Schema'],
    [{ schema: 'object' }, 'schema must be a JSON Schema object'],
    [{ prompt: 'find the price' }, 'prompt requires schema'],
    [{ schema: SCHEMA, format: 'text' }, 'schema needs format markdown'],
  ])('bad input %j is a 400 naming it; nothing billed, no model call', async (extra, message) => {
    const before = await balance(trawl, key)
    const calls = model.calls.length
    const res = await post(trawl, key, '/v1/webpage', { url: `${site.url}/kettle`, ...extra })
    expect(res.status).toBe(400)
    expect((await res.json()).error.message).toContain(message)
    expect(await balance(trawl, key)).toBe(before)
    expect(model.calls.length).toBe(calls)
  })

  test('webpage: data valid against the schema, basis pointing at real passages; page + one model call billed', async () => {
    model.json = fromPage
    const before = await balance(trawl, key)
    const res = await post(trawl, key, '/v1/webpage', { url: `${site.url}/kettle`, schema: SCHEMA, prompt: 'the product on sale' })
    expect(res.status).toBe(200)
    const body = WebpageResponse.parse(await res.json())
    expect(body.data).toEqual({ name: 'Aurora', price: 39.5, currency: 'EUR' })
    // Only existing sources, and only for filled fields.
    expect(Object.keys(body.basis!)).toEqual(['name', 'price'])
    expect(body.basis!.price!.map((b) => b.n)).toEqual([1])
    const b = body.basis!.name![0]!
    expect(b.url).toBe(body.url)
    expect(body.markdown!.slice(b.start, b.end)).toBe(b.text)
    expect(b.text).toContain('costs 39.50 euros')
    expect(body.meta.model).toMatchObject({ calls: 1 })
    expect(body.meta.credits_used).toBe(2)
    expect(await balance(trawl, key)).toBe(before - 2)
    const sent = model.calls.at(-1)!
    expect(sent.response_format).toEqual({ type: 'json_object' })
    expect(sent.messages[0]!.content).toContain('"required":["name","price"]')
    expect(sent.messages[1]!.content).toContain('Instructions from the caller: the product on sale')
  })

  test('output that fails the schema is sent back once with the errors; the second answer is used and both calls billed', async () => {
    let n = 0
    model.json = (body) => (n++ === 0 ? JSON.stringify({ data: { name: 'Aurora', price: 'cheap' } }) : fromPage(body))
    try {
      const before = await balance(trawl, key)
      const body = WebpageResponse.parse(await (await post(trawl, key, '/v1/webpage', { url: `${site.url}/kettle`, schema: SCHEMA })).json())
      expect(body.data).toMatchObject({ price: 39.5 })
      expect(body.meta.model?.calls).toBe(2)
      expect(body.meta.credits_used).toBe(3)
      expect(await balance(trawl, key)).toBe(before - 3)
      const retry = model.calls.at(-1)!.messages
      expect(retry.at(-2)!.role).toBe('assistant')
      expect(retry.at(-1)!.content).toMatch(/not valid: .*price must be number/)
    } finally {
      model.json = fromPage
    }
  })

  test('output invalid twice is an error, never returned invalid; everything refunded', async () => {
    model.json = () => JSON.stringify({ data: { name: 42 } })
    try {
      const before = await balance(trawl, key)
      const res = await post(trawl, key, '/v1/webpage', { url: `${site.url}/kettle`, schema: SCHEMA })
      expect(res.status).toBe(503)
      const body = await res.json()
      expect(body.error.code).toBe('upstream_error')
      expect(body.error.message).toContain("the model's output did not match the schema twice")
      expect(await balance(trawl, key)).toBe(before)
    } finally {
      model.json = fromPage
    }
  })

  test('extract: each page filled; a page whose model fails is in failed[] and costs nothing', async () => {
    model.json = (body) => (pageSent(body).includes('Helios') ? 'not json at all' : fromPage(body))
    try {
      const before = await balance(trawl, key)
      const res = await post(trawl, key, '/v1/extract', { urls: [`${site.url}/kettle`, `${site.url}/toaster`], schema: SCHEMA })
      const body = ExtractResponse.parse(await res.json())
      expect(body.results.map((r) => r.data)).toEqual([{ name: 'Aurora', price: 39.5, currency: 'EUR' }])
      expect(body.failed).toEqual([{ url: `${site.url}/toaster`, error: { code: 'upstream_error', message: expect.stringContaining('reply is not JSON') } }])
      expect(body.meta.model?.calls).toBe(3)
      // The kettle's page and its one call; the toaster's read and two calls are not billed.
      expect(body.meta.credits_used).toBe(2)
      expect(await balance(trawl, key)).toBe(before - 2)
    } finally {
      model.json = fromPage
    }
  })

  test('a model that never answers: 503 upstream_timeout naming the limit, refunded', async () => {
    model.behaviour = 'hang'
    try {
      const before = await balance(trawl, key)
      const res = await post(trawl, key, '/v1/webpage', { url: `${site.url}/kettle`, schema: SCHEMA })
      expect(res.status).toBe(503)
      const body = await res.json()
      expect(body.error).toMatchObject({ code: 'upstream_timeout', message: expect.stringContaining('did not answer within 1 s') })
      expect(await balance(trawl, key)).toBe(before)
    } finally {
      model.behaviour = 'rules'
    }
  })

  test("a fill's two tries share one TRAWL_LLM_TIMEOUT_MS: the retry gets what the first left, and the request ends within it", async () => {
    // The first answer comes late and fails the schema; the retry is never answered.
    let n = 0
    model.behaviour = () =>
      n++ === 0 ? new Promise((resolve) => setTimeout(() => resolve(JSON.stringify({ data: { name: 42 } })), 600)) : new Promise<string>(() => {})
    try {
      const before = await balance(trawl, key)
      const res = await post(trawl, key, '/v1/webpage', { url: `${site.url}/kettle`, schema: SCHEMA })
      expect(res.status).toBe(503)
      const body = await res.json()
      expect(n).toBe(2)
      expect(body.error).toMatchObject({
        code: 'upstream_timeout',
        message: expect.stringContaining('did not answer within what was left of the 1 s its calls share'),
      })
      expect(await balance(trawl, key)).toBe(before)
    } finally {
      model.behaviour = 'rules'
    }
  })

  test("Firecrawl's json format through its own client: the model's data as document.json, billed as the call", async () => {
    const firecrawl = new Firecrawl({ apiKey: key, apiUrl: `${trawl.base}/compat/firecrawl` })
    const before = await balance(trawl, key)
    const doc = await firecrawl.scrape(`${site.url}/toaster`, { formats: [{ type: 'json', schema: SCHEMA, prompt: 'the product' }] })
    expect(doc.json).toEqual({ name: 'Helios', price: 59, currency: 'EUR' })
    expect(doc.metadata?.creditsUsed).toBe(2)
    expect(await balance(trawl, key)).toBe(before - 2)
    // Crawls take no json format: one model call per page is a scrape's.
    const res = await post(trawl, key, '/compat/firecrawl/v2/crawl', {
      url: `${site.url}/kettle`,
      scrapeOptions: { formats: [{ type: 'json', schema: SCHEMA }] },
    })
    expect(res.status).toBe(400)
    expect((await res.json()).error).toContain('json is taken on /v2/scrape only')
    const noSchema = await post(trawl, key, '/compat/firecrawl/v2/scrape', { url: `${site.url}/kettle`, formats: [{ type: 'json', prompt: 'anything' }] })
    expect(noSchema.status).toBe(400)
    expect((await noSchema.json()).error).toContain('json needs a schema')
  })

  test('batch jobs refuse schema before charging', async () => {
    const before = await balance(trawl, key)
    const res = await post(trawl, key, '/v1/batches', { endpoint: 'webpage', requests: [{ url: `${site.url}/kettle`, schema: SCHEMA }] })
    const body = await res.json()
    expect(JSON.stringify(body)).toContain('schema is not taken in batch jobs')
    expect(await balance(trawl, key)).toBe(before)
  })
})
