import { execFile } from 'node:child_process'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { promisify } from 'node:util'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { afterAll, beforeAll, describe, expect, expectTypeOf, test } from 'vitest'
import { z } from 'zod'
import { InvalidRequestError, type ContextResponse as SdkContextResponse, Trawl } from '../packages/sdk/src/index.ts'
import { ContextResponse } from '../src/features/context/context.schema.ts'
import { countTokensNow as countTokens } from '../src/text/token-count.ts'
import { type FakeUpstream, fakeUpstream, fixture } from './support/fake-upstream.ts'
import { startTrawl, type Trawl as TrawlServer } from './support/start-trawl.ts'

/**
 * POST /v1/context through HTTP, MCP and the SDK: a real server whose Google answers the saved
 * "coffee" page with its top result hosts pointed at a loopback site of constructed articles
 * (one answers 500, one has no readable content, two share a syndicated paragraph).
 */

const COFFEE = fixture('serp/google/web-desktop/zlurad-coffee.html').toString('utf8')

const SYNDICATED =
  'Baristas agree that the grind is the single most important variable in espresso: a grind that is too coarse lets water rush through the puck in under twenty seconds and gives a sour, thin shot, while a grind that is too fine chokes the machine and gives a bitter, over-extracted one.'

const para = (...sentences: string[]) => `<p>${sentences.join(' ')}</p>`

const article = (title: string, body: string) =>
  `<!DOCTYPE html><html><head><title>${title}</title></head><body><nav><a href="/">Home</a> <a href="/shop">Shop</a></nav><article><h1>${title}</h1>${body}</article><footer>© Coffee sites</footer></body></html>`

const PAGES: Record<string, string> = {
  '/wiki/Coffee': article(
    'Coffee',
    [
      '<h2>History</h2>',
      para(
        'The earliest credible evidence of coffee drinking appears in the middle of the fifteenth century in the Sufi shrines of Yemen.',
        'From there the drink spread to Mecca and Cairo, and by the sixteenth century it had reached the rest of the Middle East, Persia, Turkey and northern Africa.',
        'Coffee then spread to the Balkans, Italy and the rest of Europe, and later to Indonesia and the Americas.',
      ),
      para(
        'In 1554 the first coffeehouses opened in Istanbul, where they quickly became places of conversation, music and chess.',
        'Religious leaders repeatedly tried to ban them, without lasting success, and the coffeehouse became a fixture of city life across the Ottoman Empire.',
      ),
      '<h2>Coffee drinks</h2>',
      para(
        'Coffee is served in many ways: black, with milk or cream, sweetened or not, hot or iced.',
        'In Italy a caffè latte is coffee with steamed milk, a cappuccino has a thick layer of milk foam, and a macchiato is marked with a spoonful of foam.',
      ),
      para(
        'Turkish coffee is boiled in a small pot called a cezve and served unfiltered with the grounds, often with sugar and sometimes cardamom.',
        'Vietnamese coffee drips slowly through a metal filter into a glass of sweetened condensed milk, and is often poured over ice.',
      ),
      para(
        'Irish coffee adds whiskey and sugar to hot coffee under a layer of cream, and a Viennese coffee house serves its coffee on a silver tray with a glass of water.',
        'In Scandinavia filter coffee is drunk all day long, and Finland drinks more coffee per person than any other country in the world.',
      ),
      para(
        'Instant coffee is made from brewed coffee dried into a powder or granules, and dissolves in hot water; it was popularised by soldiers in the First World War.',
        'Decaffeinated coffee has most of its caffeine removed with water, solvents or carbon dioxide before the beans are roasted.',
      ),
      '<h2>Espresso grind size</h2>',
      para(
        'Espresso needs a fine grind, finer than for drip coffee or a French press, about the texture of powdered sugar or fine table salt.',
        'The grind size controls how fast the water flows through the coffee: a standard double shot of espresso should take twenty five to thirty seconds.',
        'Adjust the grinder one step at a time and taste each shot.',
      ),
      '<h2>Brewing</h2>',
      para(SYNDICATED),
      para(
        'Other brewing methods are more forgiving: a pour-over works with a medium grind, a French press with a coarse one, and cold brew with a very coarse grind steeped for twelve hours or more.',
      ),
    ].join(''),
  ),
  '/wiki/broken': '',
  '/nca/About-Coffee/What-is-Coffee': article(
    'What is Coffee?',
    [
      para(
        'Coffee is a brewed drink prepared from roasted coffee beans, the seeds of berries from certain flowering plants in the Coffea genus.',
        'The two most commonly grown species are Coffea arabica and Coffea canephora, known as robusta.',
      ),
      para(SYNDICATED),
      para(
        'Once picked, the cherries are processed by the dry or the wet method, the green beans are dried, sorted and exported, and roasting then develops the aroma and the flavour of the bean.',
      ),
    ].join(''),
  ),
  '/nca/about-coffee/history-of-coffee': '<!DOCTYPE html><html><head><title></title></head><body><div></div></body></html>',
  '/nca/about-coffee/10-steps-from-seed-to-cup': article(
    '10 Steps from Seed to Cup',
    [
      '<h2>Grinding</h2>',
      para(
        'The objective of a proper grind is to get the most flavour in a cup of coffee.',
        'How coarse or fine the coffee is ground depends on the brewing method: espresso machines need a fine grind, and the finer the grind, the more quickly the coffee should be prepared.',
        'That is why coffee ground for an espresso machine is much finer than coffee brewed in a drip system.',
      ),
      '<h2>Packaging</h2>',
      para(
        'Roasted beans are packed in bags with one-way valves that let carbon dioxide out without letting oxygen in, and whole beans keep their flavour for weeks longer than ground coffee.',
      ),
    ].join(''),
  ),
}

let engine: FakeUpstream
let site: FakeUpstream
let trawl: TrawlServer
let key: string
let balance: () => Promise<number>

beforeAll(async () => {
  site = await fakeUpstream((req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? '/').split('?')[0]!
    if (path === '/wiki/broken') return res.writeHead(500, { 'content-type': 'text/plain' }).end('internal error')
    const page = PAGES[path]
    if (page === undefined) return res.writeHead(404, { 'content-type': 'text/plain' }).end('not found')
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page)
  })
  // The first five results: Wikipedia, the Coffee Bean (broken), and three pages of the NCA.
  const rewritten = COFFEE.replaceAll('https://en.wikipedia.org/', `${site.url}/`)
    .replaceAll('https://www.coffeebean.com/', `${site.url}/wiki/broken`)
    .replaceAll('https://www.ncausa.org/', `${site.url}/nca/`)
  engine = await fakeUpstream((req, res) => {
    const q = new URL(req.url ?? '/', 'http://x').searchParams.get('q') ?? ''
    if (q.includes('blocked')) return res.writeHead(429, { 'retry-after': '60' }).end('slow down')
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(rewritten)
  })
  trawl = await startTrawl({
    TRAWL_UPSTREAM_HOSTS: `*=${engine.url}`,
    TRAWL_ALLOW_PRIVATE_NETWORK: 'true',
    TRAWL_UPSTREAM_TIMEOUT_MS: '3000',
    TRAWL_BROWSER: 'off',
  })
  key = (await trawl.account({ plan: 'enterprise', rate_limit_rps: 1000, credits: 100 })).key
  balance = async () => (await (await fetch(`${trawl.base}/v1/account`, { headers: { authorization: `Bearer ${key}` } })).json()).balance
})
afterAll(async () => {
  await trawl?.close()
  await engine?.close()
  await site?.close()
})

const post = (path: string, body: unknown, k = key) =>
  fetch(`${trawl.base}${path}`, { method: 'POST', headers: { authorization: `Bearer ${k}`, 'content-type': 'application/json' }, body: JSON.stringify(body) })

type Body = z.infer<typeof ContextResponse>

/** `schema` with every object strict, at any depth: a key the documented schema does not name fails. */
function strict(schema: z.ZodType): z.ZodType {
  if (schema instanceof z.ZodObject) {
    const shape = Object.fromEntries(Object.entries(schema.shape as Record<string, z.ZodType>).map(([k, f]) => [k, strict(f)]))
    return schema.def.catchall ? z.object(shape).catchall(schema.def.catchall) : z.strictObject(shape)
  }
  if (schema instanceof z.ZodArray) return z.array(strict(schema.element as z.ZodType))
  if (schema instanceof z.ZodOptional) return strict(schema.unwrap() as z.ZodType).optional()
  if (schema instanceof z.ZodNullable) return strict(schema.unwrap() as z.ZodType).nullable()
  return schema
}

/** The first answer, which later calls (from the cache, over MCP, through the SDK) must repeat. */
let first: Body

describe('POST /v1/context', () => {
  test('ranked passages within the budget, as slices of /v1/webpage Markdown; failed pages listed and free', async () => {
    const before = await balance()
    const res = await post('/v1/context', { q: 'espresso grind size', num: 3 })
    expect(res.status).toBe(200)
    const body = (await res.json()) as Body
    first = body
    expect(strict(ContextResponse).safeParse(body).error?.issues).toBeUndefined()
    expect(body.request).toEqual({ q: 'espresso grind size', max_tokens: 4000, num: 3, engine: 'google', country: 'us', language: 'en' })

    // Results 2 (500) and 4 (no readable content) failed, so 5 was read in their place: 3 pages read.
    expect(body.sources.map((s) => [s.position, s.read, s.error?.code])).toEqual([
      [1, true, undefined],
      [2, false, 'upstream_error'],
      [3, true, undefined],
      [4, false, 'empty_page'],
      [5, true, undefined],
    ])
    expect(body.meta).toMatchObject({ credits_used: 4, engine: 'google', cached: false, pages_read: 3, truncated: false, ranking: 'lexical', notes: [] })
    expect(body.meta.tokens_relevant).toBe(body.meta.tokens_used)
    expect(res.headers.get('x-credits-used')).toBe('4') // 1 search + 3 pages
    expect(res.headers.get('x-cache')).toBe('MISS')
    expect(Number(res.headers.get('x-tokens-estimate'))).toBeGreaterThan(body.meta.tokens_used)
    expect(await balance()).toBe(before - 4)

    // Best first; tokens exact and within the budget; every passage scored on the query.
    expect(body.passages.length).toBeGreaterThan(2)
    const scores = body.passages.map((p) => p.score)
    expect(scores).toEqual([...scores].sort((a, b) => b - a))
    for (const p of body.passages) expect(p.tokens).toBe(countTokens(p.text))
    expect(body.meta.tokens_used).toBe(body.passages.reduce((n, p) => n + p.tokens, 0))
    expect(body.meta.tokens_used).toBeLessThanOrEqual(4000)
    expect(body.passages[0]!.text).toContain('Espresso needs a fine grind')
    expect(body.passages[0]).toMatchObject({ position: 1, title: 'Coffee', heading: 'Espresso grind size' })
    // Nothing from the history section: it does not match well enough to spend the budget on.
    expect(body.passages.some((p) => p.text.includes('Istanbul'))).toBe(false)
    // The syndicated paragraph is on two pages and is given once.
    expect(body.passages.filter((p) => p.text.includes('single most important variable')).length).toBe(1)
    for (const s of body.sources) expect(s.passages).toBe(body.passages.filter((p) => p.position === s.position).length)

    // Offsets index the page's Markdown exactly as /v1/webpage returns it.
    for (const url of new Set(body.passages.map((p) => p.url))) {
      const page = await (await post('/v1/webpage', { url })).json()
      for (const p of body.passages.filter((x) => x.url === url)) expect(page.markdown.slice(p.start, p.end)).toBe(p.text)
    }
  })

  test('max_age: the search and the pages from the cache at half price, the same passages', async () => {
    const before = await balance()
    const res = await post('/v1/context', { q: 'espresso grind size', num: 3, max_age: 600 })
    const body = (await res.json()) as Body
    expect(res.status).toBe(200)
    expect(body.meta).toMatchObject({ credits_used: 2, cached: true, pages_read: 3 }) // 0.5 + 3 × 0.5
    expect(res.headers.get('x-cache')).toBe('HIT')
    expect(body.sources.filter((s) => s.read).every((s) => s.cached === true)).toBe(true)
    expect(body.passages).toEqual(first.passages)
    expect(await balance()).toBe(before - 2)
  })

  test('a small budget is filled best first and says it was truncated', async () => {
    const body = (await (await post('/v1/context', { q: 'coffee', num: 3, max_tokens: 500, max_age: 600 })).json()) as Body
    expect(body.meta.tokens_used).toBeLessThanOrEqual(500)
    expect(body.meta.truncated).toBe(true)
    expect(body.passages.length).toBeGreaterThan(0)
  })

  test('a question that shares no word with the pages read: their leads, in result order, and meta says why', async () => {
    const before = await balance()
    const res = await post('/v1/context', { q: 'zeppelin hangar', num: 3, max_age: 600 })
    expect(res.status).toBe(200)
    const body = (await res.json()) as Body
    expect(strict(ContextResponse).safeParse(body).error?.issues).toBeUndefined()
    // Billed as any answer: the search (not cached yet) and three pages from the cache.
    expect(body.meta).toMatchObject({ ranking: 'leads', pages_read: 3, credits_used: 2.5 })
    expect(body.meta.notes).toEqual([expect.stringContaining('shares a word with q')])
    // One passage a page read, in result order, each its page's first passage.
    expect(body.passages.map((p) => p.position)).toEqual([1, 3, 5])
    for (const p of body.passages) expect(p.score).toBe(0)
    expect(body.passages[0]!.heading).toBe('Coffee')
    expect(body.passages[0]!.text).toContain('earliest credible evidence')
    expect(body.sources.filter((s) => s.read).map((s) => s.passages)).toEqual([1, 1, 1])
    expect(await balance()).toBe(before - 2.5)
  })

  test('word forms and WordNet relations match: a stem ("steaming" → "steamed"), a synonym ("prohibited" → "ban")', async () => {
    const steaming = (await (await post('/v1/context', { q: 'steaming', num: 3, max_age: 600 })).json()) as Body
    expect(steaming.meta.ranking).toBe('lexical')
    expect(steaming.passages[0]!.text).toContain('coffee with steamed milk')
    const prohibited = (await (await post('/v1/context', { q: 'prohibited', num: 3, max_age: 600 })).json()) as Body
    expect(prohibited.meta.ranking).toBe('lexical')
    expect(prohibited.passages[0]!.text).toContain('tried to ban them')
  })

  test('one page does not take the whole budget while others have relevant passages', async () => {
    const body = (await (await post('/v1/context', { q: 'coffee grind espresso brewing', num: 3, max_tokens: 600, max_age: 600 })).json()) as Body
    expect(body.meta.tokens_used).toBeLessThanOrEqual(600)
    expect(new Set(body.passages.map((p) => p.position)).size).toBeGreaterThan(1)
  })

  test('a search that finds nothing is free and answers no passages', async () => {
    const before = await balance()
    const body = (await (await post('/v1/context', { q: 'espresso', include_domains: ['example.org'] })).json()) as Body
    expect(body).toMatchObject({ passages: [], sources: [], meta: { credits_used: 0, pages_read: 0, tokens_used: 0 } })
    expect(body.request.include_domains).toEqual(['example.org'])
    expect(await balance()).toBe(before)
  })

  test('a failed search is the engine error, refunded', async () => {
    const before = await balance()
    const res = await post('/v1/context', { q: 'blocked espresso' })
    expect(res.status).toBe(503)
    expect(res.headers.get('x-credits-used')).toBe('0')
    expect(await balance()).toBe(before)
  })

  test('an account that cannot cover the search and num pages gets 402 before anything is fetched', async () => {
    const { key: poor } = await trawl.account({ plan: 'enterprise', rate_limit_rps: 1000, credits: 3 })
    const asked = engine.seen.length
    const res = await post('/v1/context', { q: 'espresso grind size', num: 3 }, poor)
    expect(res.status).toBe(402)
    expect((await res.json()).error.code).toBe('insufficient_credits')
    expect(engine.seen.length).toBe(asked)
    const ok = await post('/v1/context', { q: 'espresso grind size', num: 2 }, poor)
    expect(ok.status).toBe(200)
    expect((await ok.json()).meta.credits_used).toBe(3)
  })

  test('bad input is a 400 naming the parameter, before anything is billed or fetched', async () => {
    const before = await balance()
    const asked = engine.seen.length
    const cases: [unknown, RegExp][] = [
      [{}, /^q /],
      [{ q: '' }, /^q must not be empty/],
      [{ q: 'x'.repeat(2049) }, /^q must be at most 2,048 characters/],
      [{ q: 'a', max_tokens: 499 }, /^max_tokens must be between 500 and 50,000/],
      [{ q: 'a', max_tokens: 50_001 }, /^max_tokens must be between 500 and 50,000/],
      [{ q: 'a', num: 0 }, /^num must be between 1 and 10/],
      [{ q: 'a', num: 11 }, /^num must be between 1 and 10/],
      [{ q: 'a', num: 2.5 }, /^num must be an integer/],
      [{ q: 'a', engine: 'altavista' }, /^engine altavista is not known/],
      [{ q: 'a', include_content: 2 }, /unknown parameter include_content/],
      [{ q: 'a', format: 'markdown' }, /unknown parameter format/],
      [{ q: 'a', time: 'decade' }, /^time must be one of/],
    ]
    for (const [body, message] of cases) {
      const res = await post('/v1/context', body)
      expect(res.status, JSON.stringify(body)).toBe(400)
      const error = (await res.json()).error
      expect(error.code).toBe('invalid_request')
      expect(error.message, JSON.stringify(body)).toMatch(message)
    }
    expect(await balance()).toBe(before)
    expect(engine.seen.length).toBe(asked)
  })

  test('is documented in the OpenAPI document with its defaults', async () => {
    const doc = await (await fetch(`${trawl.base}/v1/openapi.json`)).json()
    const op = doc.paths['/v1/context'].post
    expect(op.operationId).toBe('context')
    expect(op.responses['200'].content['application/json'].schema.$ref).toBe('#/components/schemas/ContextResponse')
    const props = op.requestBody.content['application/json'].schema.properties
    expect(props.max_tokens).toMatchObject({ minimum: 500, maximum: 50000, default: 4000 })
    expect(props.num).toMatchObject({ minimum: 1, maximum: 10, default: 5 })
    expect(Object.keys(props).sort()).toEqual(
      ['answer', 'country', 'engine', 'exclude_domains', 'include_domains', 'language', 'max_age', 'max_tokens', 'num', 'q', 'time'].sort(),
    )
  })
})

describe('the embeddings hybrid (TRAWL_EMBEDDINGS_URL)', () => {
  let embedder: FakeUpstream
  let hybrid: TrawlServer
  let hybridKey: string
  const asked: { model?: string; input: string[] }[] = []
  /** A toy model: one dimension per topic a text names, so "sleepytime" is close to decaffeinated coffee. */
  const TOPICS = [/decaf|sleep/i, /espresso|grind/i, /histor|istanbul|yemen/i, /milk|latte|cappuccino/i]
  const vector = (text: string) => [...TOPICS.map((t) => (t.test(text) ? 1 : 0)), 0.01]
  let mode: 'ok' | 'error' | 'garbage' = 'ok'

  beforeAll(async () => {
    embedder = await fakeUpstream((req, res) => {
      let raw = ''
      req.on('data', (d) => (raw += d))
      req.on('end', () => {
        if (req.method !== 'POST' || req.url !== '/v1/embeddings') return res.writeHead(404).end()
        const body = JSON.parse(raw) as { model?: string; input: string[] }
        asked.push(body)
        if (mode === 'error') return res.writeHead(500, { 'content-type': 'text/plain' }).end('model not loaded')
        if (mode === 'garbage') {
          return res
            .writeHead(200, { 'content-type': 'application/json' })
            .end(JSON.stringify({ data: body.input.map((_, index) => ({ index, embedding: 'nope' })) }))
        }
        const data = body.input.map((text, index) => ({ object: 'embedding', index, embedding: vector(text) }))
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ object: 'list', data, model: body.model }))
      })
    })
    hybrid = await startTrawl({
      TRAWL_UPSTREAM_HOSTS: `*=${engine.url}`,
      TRAWL_ALLOW_PRIVATE_NETWORK: 'true',
      TRAWL_UPSTREAM_TIMEOUT_MS: '3000',
      TRAWL_BROWSER: 'off',
      TRAWL_EMBEDDINGS_URL: embedder.url,
      TRAWL_EMBEDDINGS_MODEL: 'toy-embed',
    })
    hybridKey = (await hybrid.account({ plan: 'enterprise', rate_limit_rps: 1000, credits: 100 })).key
  })
  afterAll(async () => {
    await hybrid?.close()
    await embedder?.close()
  })
  const ask = (body: unknown) =>
    fetch(`${hybrid.base}/v1/context`, {
      method: 'POST',
      headers: { authorization: `Bearer ${hybridKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    })

  test('passages ranked by words and by meaning, fused: a question no word of the pages matches finds its passage', async () => {
    mode = 'ok'
    const res = await ask({ q: 'sleepytime', num: 3 })
    expect(res.status).toBe(200)
    const body = (await res.json()) as Body
    expect(strict(ContextResponse).safeParse(body).error?.issues).toBeUndefined()
    expect(body.meta).toMatchObject({ ranking: 'hybrid', notes: [], credits_used: 4, pages_read: 3 })
    expect(body.passages[0]!.text).toContain('Decaffeinated coffee')
    // One call: the question first, then the passages (each with its page's title).
    expect(asked).toHaveLength(1)
    expect(asked[0]!.model).toBe('toy-embed')
    expect(asked[0]!.input[0]).toBe('sleepytime')
    expect(asked[0]!.input.length).toBeGreaterThan(5)
    // A question the words find as well: the lexical ranking still counts.
    const espresso = (await (await ask({ q: 'espresso grind size', num: 3, max_age: 600 })).json()) as Body
    expect(espresso.meta.ranking).toBe('hybrid')
    expect(espresso.passages[0]!.text).toContain('Espresso needs a fine grind')
  })

  test('an endpoint that fails or answers garbage: ranked lexically, a note says so, billed as usual', async () => {
    for (const [m, says] of [
      ['error', 'answered HTTP 500'],
      ['garbage', 'not a list of numbers'],
    ] as const) {
      mode = m
      const res = await ask({ q: 'espresso grind size', num: 3, max_age: 600 })
      expect(res.status).toBe(200)
      const body = (await res.json()) as Body
      expect(body.meta.ranking).toBe('lexical')
      expect(res.headers.get('x-credits-used')).toBe(String(body.meta.credits_used))
      expect(body.meta.credits_used).toBeGreaterThan(0)
      expect(body.meta.notes).toEqual([expect.stringContaining(says)])
      expect(body.meta.notes[0]).toContain('ranked lexically')
      expect(body.passages[0]!.text).toContain('Espresso needs a fine grind')
    }
    mode = 'ok'
  })

  test('an endpoint that cannot be reached: ranked lexically with a note', async () => {
    const closed = await startTrawl({
      TRAWL_UPSTREAM_HOSTS: `*=${engine.url}`,
      TRAWL_ALLOW_PRIVATE_NETWORK: 'true',
      TRAWL_BROWSER: 'off',
      TRAWL_EMBEDDINGS_URL: 'http://127.0.0.1:9/v1/embeddings',
    })
    try {
      const { key: k } = await closed.account({ plan: 'enterprise', rate_limit_rps: 1000, credits: 20 })
      const res = await fetch(`${closed.base}/v1/context`, {
        method: 'POST',
        headers: { authorization: `Bearer ${k}`, 'content-type': 'application/json' },
        body: JSON.stringify({ q: 'espresso grind size', num: 3 }),
      })
      expect(res.status).toBe(200)
      const body = (await res.json()) as Body
      expect(body.meta).toMatchObject({ ranking: 'lexical', credits_used: 4 })
      expect(body.meta.notes).toEqual([expect.stringContaining('could not be reached')])
    } finally {
      await closed.close()
    }
  })
})

describe('the MCP tool and the SDK', () => {
  test('MCP context: the same call, billed the same, passages as Markdown and structured', async () => {
    const { key: own } = await trawl.account({ plan: 'enterprise', rate_limit_rps: 1000, credits: 50 })
    const client = new Client({ name: 'trawl-test', version: '1.0.0' })
    await client.connect(new StreamableHTTPClientTransport(new URL(`${trawl.base}/mcp`), { requestInit: { headers: { authorization: `Bearer ${own}` } } }))
    try {
      const { tools } = await client.listTools()
      const tool = tools.find((t) => t.name === 'context')!
      expect(tool.inputSchema.required).toEqual(['q'])
      const result = (await client.callTool({ name: 'context', arguments: { q: 'espresso grind size', num: 3, max_age: 600 } })) as CallToolResult
      expect(result.isError).toBeFalsy()
      const text = result.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n')
      expect(text).toContain('# Context: espresso grind size')
      expect(text).toContain('Espresso needs a fine grind')
      expect(text).toContain('not read: upstream_error: page answered HTTP 500')
      const structured = result.structuredContent as { passages: Body['passages']; sources: unknown[]; credits_used: number; tokens_used: number }
      expect(structured.passages).toEqual(first.passages)
      expect(structured.sources).toHaveLength(5)
      expect(structured.credits_used).toBe(2)
      const account = await (await fetch(`${trawl.base}/v1/account`, { headers: { authorization: `Bearer ${own}` } })).json()
      expect(account.balance).toBe(48)
      const bad = (await client.callTool({ name: 'context', arguments: { q: 'x', max_tokens: 10 } })) as CallToolResult
      expect(bad.isError).toBe(true)
    } finally {
      await client.close()
    }
  })

  test('SDK context(): typed from the OpenAPI document', async () => {
    const sdk = new Trawl({ baseUrl: trawl.base, apiKey: key })
    const answer = await sdk.context({ q: 'espresso grind size', num: 3, max_age: 600 })
    expectTypeOf(answer).toEqualTypeOf<SdkContextResponse>()
    expect(answer.passages).toEqual(first.passages)
    expect(answer.meta.credits_used).toBe(2)
    await expect(sdk.context({ q: 'x', num: 20 })).rejects.toBeInstanceOf(InvalidRequestError)
  })
})

describe('the CLI', () => {
  const TRAWL = new URL('../bin/trawl.mjs', import.meta.url).pathname
  const cli = (...args: string[]) =>
    promisify(execFile)(process.execPath, [TRAWL, ...args, '--url', trawl.base, '--key', key], {
      env: { PATH: process.env.PATH ?? '', TRAWL_CONFIG: '/nonexistent/trawl-config.json' },
    })

  test('trawl context prints the passages as Markdown, or the JSON answer with --json', async () => {
    const { stdout } = await cli('context', 'espresso', 'grind', 'size', '--num', '3', '--max-age', '600')
    expect(stdout).toMatch(/^# Context: espresso grind size\n/)
    expect(stdout).toContain(`## 1. [Coffee](${site.url}/wiki/Coffee)`)
    expect(stdout).toContain('result 1 · under “Espresso grind size”')
    expect(stdout).toContain('- result 4: [The History of Coffee]')
    const json = JSON.parse((await cli('context', 'espresso grind size', '--num', '3', '--max-age', '600', '--json')).stdout) as Body
    expect(json.passages).toEqual(first.passages)
    expect(json.request).toMatchObject({ q: 'espresso grind size', num: 3, max_age: 600 })
  }, 60_000)
})

describe('the dashboard playground', () => {
  test('offers context with its parameters, and runs it on the user’s key: billed as the API call, JSON and Markdown of one call', async () => {
    const email = `context-${Date.now()}@example.test`
    const password = 'correct horse battery'
    const { key: own } = await trawl.account({ email, password, plan: 'enterprise', rate_limit_rps: 1000, credits: 20 })
    const login = await fetch(`${trawl.base}/app/api/v1/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: trawl.base },
      body: JSON.stringify({ email, password }),
    })
    const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0]!
    const app = (method: string, path: string, body?: unknown) =>
      fetch(`${trawl.base}/app/api${path}`, {
        method,
        headers: { cookie, ...(body === undefined ? {} : { 'content-type': 'application/json', origin: trawl.base }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      })
    const meta = await (await app('GET', '/v1/playground')).json()
    const entry = meta.verticals.find((v: { name: string }) => v.name === 'context')
    expect(entry).toMatchObject({ path: '/v1/context', markdown: true, required: ['q'] })
    expect(Object.keys(entry.params)).toEqual(expect.arrayContaining(['q', 'max_tokens', 'num', 'engine', 'max_age']))

    const res = await app('POST', '/v1/playground/context', { params: { q: 'espresso grind size', num: 3, max_age: 600 } })
    expect(res.status).toBe(200)
    const run = await res.json()
    expect(run).toMatchObject({ vertical: 'context', credits_used: 2, credits_remaining: 18, cache: 'HIT' })
    expect(run.json.passages).toEqual(first.passages)
    expect(run.markdown).toContain('# Context: espresso grind size')
    const bad = await app('POST', '/v1/playground/context', { params: { q: 'x', max_tokens: 1 } })
    expect(bad.status).toBe(400)
    const account = await (await fetch(`${trawl.base}/v1/account`, { headers: { authorization: `Bearer ${own}` } })).json()
    expect(account.balance).toBe(18)
  })
})
