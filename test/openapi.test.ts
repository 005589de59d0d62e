import { execFile } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { promisify } from 'node:util'
import { createConfig, lintFromString } from '@redocly/openapi-core'
import createClient from 'openapi-fetch'
import openapiTS from 'openapi-typescript'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { ErrorCode } from '../src/errors.ts'
import { launchChromium, skipWithoutChromium } from './support/browser.ts'
import { type FakeUpstream, fakeUpstream, fixture } from './support/fake-upstream.ts'
import { type LocalSite, startLocalSite } from './support/reading-site.ts'
import { serpRouter } from './support/serp-router.ts'
import { startTrawl, type Trawl } from './support/start-trawl.ts'

/**
 * /v1/openapi.json is good for generators and people: it passes Redocly's recommended rules, a
 * client generated from it (openapi-typescript types + openapi-fetch) type-checks and talks to the
 * real server, and /docs renders it with nothing loaded from elsewhere.
 */

const run = promisify(execFile)
const ROOT = fileURLToPath(new URL('..', import.meta.url))

interface Schema {
  $ref?: string
  type?: string | string[]
  enum?: unknown[]
  default?: unknown
  properties?: Record<string, Schema>
  items?: Schema
  anyOf?: Schema[]
}
interface Response {
  description: string
  headers?: Record<string, { $ref: string }>
  content?: Record<string, { schema: Schema }>
}
interface Operation {
  operationId?: string
  summary?: string
  parameters?: { name: string; in: string; schema: Schema }[]
  requestBody?: { content: Record<string, { schema: Schema; example?: unknown }> }
  responses: Record<string, Response>
  'x-codeSamples'?: { lang: string; label: string; source: string }[]
  'x-scalar-ignore'?: boolean
}
interface Document {
  openapi: string
  info: { version: string; description: string }
  servers: { url: string }[]
  paths: Record<string, Record<string, Operation>>
  components: { schemas: Record<string, Schema>; headers: Record<string, unknown> }
}

let upstream: FakeUpstream
let site: LocalSite
let trawl: Trawl
let key: string
let doc: Document
let docText: string

beforeAll(async () => {
  upstream = await fakeUpstream(serpRouter([{ host: 'www.google.com', path: '/search', body: fixture('serp/google/web-desktop/zlurad-coffee.html') }]))
  site = await startLocalSite()
  trawl = await startTrawl({ TRAWL_UPSTREAM_HOSTS: `*=${upstream.url}`, TRAWL_ALLOW_PRIVATE_NETWORK: 'true' })
  // The samples run one after another faster than a free key's 5 requests a second allow.
  key = (await trawl.account({ credits: 100, rate_limit_rps: 1000 })).key
  docText = await (await fetch(`${trawl.base}/v1/openapi.json`)).text()
  doc = JSON.parse(docText)
})
afterAll(async () => {
  await trawl?.close()
  await upstream?.close()
  await site?.close()
})

const operations = () =>
  Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, op]) => ({ path, method, op, name: `${method.toUpperCase()} ${path}` })),
  )
const op = (method: string, path: string) => doc.paths[path]![method]!
const json = (r: Response | undefined) => r?.content?.['application/json']?.schema
const bodyOf = (o: Operation) => o.requestBody?.content['application/json']?.schema
const component = (s: Schema | undefined) => s?.$ref?.replace('#/components/schemas/', '')

describe('the document', () => {
  test('OpenAPI 3.1.0, interface version 1.0.2, with the getting-started guide as its description', () => {
    expect(doc.openapi).toBe('3.1.0')
    expect(doc.info.version).toBe('1.0.2')
    expect(doc.info.description).toContain('## Getting started')
    expect(doc.info.description).toContain(`${doc.servers[0]!.url}/v1/search?q=`)
  })

  test("Redocly's recommended rules find no error; the warnings left are the ones docs/api-reference.md lists", async () => {
    const config = await createConfig({ extends: ['recommended'] })
    const problems = await lintFromString({ source: docText, absoluteRef: join(tmpdir(), 'openapi.json'), config })
    const errors = problems.filter((p) => p.severity === 'error').map((p) => `${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`)
    expect(errors).toEqual([])
    const warnings = problems.filter((p) => p.severity === 'warn').map((p) => `${p.ruleId} ${p.location[0]?.pointer}`)
    // The monitor.results callback answers the receiver's 2xx only: any other answer is retried.
    expect(warnings).toEqual(['operation-4xx-response #/paths/~1v1~1monitors/post/callbacks/monitor.results/{$request.body#~1webhook_url}/post/responses'])
  })

  test('every operation has a unique camelCase operationId, a summary, and the error envelope on 4XX and 5XX', () => {
    const ids = operations().map(({ op }) => op.operationId)
    expect(new Set(ids).size).toBe(ids.length)
    for (const { name, op } of operations()) {
      expect(op.operationId, name).toMatch(/^[a-z][a-zA-Z0-9]*$/)
      expect(op.summary, name).toBeTruthy()
      for (const status of ['4XX', '5XX']) expect(component(json(op.responses[status])), `${name} ${status}`).toBe('ErrorEnvelope')
    }
    expect(op('post', '/v1/search').operationId).toBe('search')
    expect(op('get', '/v1/search').operationId).toBe('searchGet')
    expect(op('get', '/v1/batches/{id}').operationId).toBe('getBatch')
  })

  test('every JSON answer is a named component, and the shapes inside it are named too', () => {
    for (const { name, op } of operations()) {
      for (const [status, response] of Object.entries(op.responses)) {
        const schema = json(response)
        if (schema) expect(component(schema), `${name} ${status}`).toBeTruthy()
      }
    }
    expect(component(json(op('get', '/v1/search').responses['200']))).toBe('SearchResponse')
    expect(component(json(op('post', '/v1/news').responses['200']))).toBe('NewsResponse')
    expect(component(json(op('post', '/v1/webpage').responses['200']))).toBe('WebpageResponse')
    expect(component(json(op('get', '/v1/account').responses['200']))).toBe('AccountResponse')
    const search = doc.components.schemas.SearchResponse!
    expect(component(search.properties!.results!.items)).toBe('OrganicResult')
    expect(component(search.properties!.meta)).toBe('SearchMeta')
    expect(component(doc.components.schemas.NewsResponse!.properties!.results!.items)).toBe('NewsResult')
    // zod's input copies of the named shapes are dropped when nothing refers to them.
    expect(Object.keys(doc.components.schemas).filter((n) => n.endsWith('Input'))).toEqual([])
  })

  test('the error code is an enum of every code in errors.ts', () => {
    const codes = doc.components.schemas.ErrorEnvelope!.properties!.error!.properties!.code!.enum
    const all: Record<ErrorCode, true> = {
      invalid_request: true,
      unauthorized: true,
      insufficient_credits: true,
      key_limit_reached: true,
      spend_cap_reached: true,
      forbidden: true,
      not_found: true,
      rate_limited: true,
      daily_limit_reached: true,
      internal: true,
      not_configured: true,
      upstream_error: true,
      upstream_blocked: true,
      upstream_timeout: true,
      unavailable: true,
    }
    expect([...(codes ?? [])].sort()).toEqual(Object.keys(all).sort())
  })

  test('billed answers document the billing headers; every answer X-Request-Id; errors Retry-After', () => {
    const billing = ['X-Credits-Used', 'X-Credits-Remaining', 'X-Cost-USD', 'X-Cache', 'X-Latency-Ms', 'X-Tokens-Estimate', 'X-Request-Id']
    const headers = (o: Operation, status: string) => Object.keys(o.responses[status]?.headers ?? {})
    for (const [method, path, status] of [
      ['get', '/v1/search', '200'],
      ['post', '/v1/reviews', '200'],
      ['post', '/v1/webpage', '200'],
      ['post', '/v1/extract', '200'],
      ['get', '/customsearch/v1', '200'],
      ['post', '/v1/rank', '200'],
      ['post', '/v1/map', '200'],
      ['post', '/v1/crawl', '202'],
      ['post', '/v1/batches', '202'],
    ] as const) {
      expect(headers(op(method, path), status), `${method} ${path}`).toEqual(expect.arrayContaining(billing))
      expect(headers(op(method, path), '4XX'), `${method} ${path}`).toEqual(expect.arrayContaining(['X-Credits-Used', 'Retry-After', 'X-Request-Id']))
    }
    expect(headers(op('get', '/v1/account'), '200')).toEqual(['X-Request-Id'])
    expect(headers(op('get', '/v1/batches/{id}'), '200')).toEqual(['X-Request-Id'])
    expect(Object.keys(doc.components.headers).sort()).toEqual([...billing, 'Retry-After'].sort())
  })

  test('the billing headers documented are the ones a billed answer carries', async () => {
    const res = await fetch(`${trawl.base}/v1/search?q=coffee`, { headers: { authorization: `Bearer ${key}` } })
    expect(res.status).toBe(200)
    for (const name of Object.keys(op('get', '/v1/search').responses['200']!.headers!)) expect(res.headers.get(name), name).not.toBeNull()
  })

  test('text/markdown is documented where format=markdown exists, and only there', () => {
    const markdown = (method: string, path: string) => Object.keys(op(method, path).responses['200']?.content ?? {}).includes('text/markdown')
    for (const vertical of ['search', 'news', 'images', 'videos', 'maps', 'places', 'shopping', 'scholar', 'patents', 'reviews']) {
      expect(markdown('get', `/v1/${vertical}`), vertical).toBe(true)
      expect(markdown('post', `/v1/${vertical}`), vertical).toBe(true)
    }
    for (const [method, path] of [
      ['post', '/v1/autocomplete'],
      ['post', '/v1/lens'],
      ['post', '/v1/webpage'],
      ['post', '/v1/extract'],
      ['get', '/v1/account'],
    ]) {
      expect(markdown(method!, path!), path).toBe(false)
    }
  })

  test('the 202 answers are described', () => {
    expect(op('post', '/v1/crawl').responses['202']!.description).toMatch(/^Accepted: the crawl is queued/)
    expect(component(json(op('post', '/v1/crawl').responses['202']))).toBe('CrawlTask')
    expect(op('post', '/v1/batches').responses['202']!.description).toMatch(/^Accepted: one entry per request/)
    expect(component(json(op('post', '/v1/batches').responses['202']))).toBe('BatchCreated')
    expect(op('post', '/v1/monitors/{id}/run').responses['202']!.description).toMatch(/^Accepted: the run is due at once/)
  })

  test('parameter defaults are documented, and are what the server fills in', async () => {
    const defaults = (o: Operation) =>
      Object.fromEntries(Object.entries(bodyOf(o)?.properties ?? {}).flatMap(([name, s]) => (s.default === undefined ? [] : [[name, s.default]]))) as Record<
        string,
        unknown
      >
    const search = defaults(op('post', '/v1/search'))
    expect(search).toEqual({ country: 'us', language: 'en', num: 10, page: 1, safe: 'off', device: 'desktop', format: 'json', engine: 'google' })
    const get = Object.fromEntries(
      (op('get', '/v1/search').parameters ?? []).flatMap((p) => (p.schema.default === undefined ? [] : [[p.name, p.schema.default]])),
    )
    expect(get).toEqual(search)
    // `request` echoes the normalised request, defaults filled in.
    const echoed = await (
      await fetch(`${trawl.base}/v1/search`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ q: 'coffee' }),
      })
    ).json()
    for (const [name, value] of Object.entries(search)) if (name in echoed.request) expect(echoed.request[name], name).toEqual(value)
    const extract = defaults(op('post', '/v1/extract'))
    const read = await (
      await fetch(`${trawl.base}/v1/extract`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ urls: [`${site.url}/article/ars`] }),
      })
    ).json()
    expect(Object.keys(extract).length).toBeGreaterThan(0)
    for (const [name, value] of Object.entries(extract)) expect(read.request[name], name).toEqual(value)
    expect(defaults(op('post', '/v1/crawl'))).toMatchObject({ limit: 25, max_depth: 2 })
    expect(defaults(op('post', '/v1/rank'))).toMatchObject({ num: 100 })
    // PATCH: an absent field is unchanged, not defaulted.
    expect(defaults(op('patch', '/v1/monitors/{id}'))).toEqual({})
  })

  test('a parameter with a few allowed numbers lists them, and the query string still carries it as a number', async () => {
    const values = [10, 20, 30, 50, 100]
    expect(bodyOf(op('post', '/v1/search'))?.properties?.num).toMatchObject({ enum: values })
    expect((op('get', '/v1/search').parameters ?? []).find((p) => p.name === 'num')?.schema).toMatchObject({ enum: values })
    const get = (query: string) => fetch(`${trawl.base}/v1/search?q=coffee&${query}`, { headers: { authorization: `Bearer ${key}` } })
    const twenty = await get('num=20')
    expect(twenty.status).toBe(200)
    expect((await twenty.json()).request.num).toBe(20)
    const refused = await get('num=15')
    expect(refused.status).toBe(400)
    expect((await refused.json()).error.message).toBe('num must be one of 10, 20, 30, 50, 100')
  })
})

describe('examples', () => {
  test('every operation has curl, JavaScript and Python samples; request bodies have an example', () => {
    for (const { name, op, method } of operations()) {
      expect(
        op['x-codeSamples']?.map((s) => s.label),
        name,
      ).toEqual(['curl', 'JavaScript', 'Python'])
      if (method === 'post' && bodyOf(op)) expect(op.requestBody!.content['application/json']!.example, name).toBeTruthy()
    }
  })

  /** A sample's source, pointed at the test server. */
  const sample = (o: Operation, label: string) => o['x-codeSamples']!.find((s) => s.label === label)!.source.replaceAll(doc.servers[0]!.url, trawl.base)

  test('the JavaScript samples run', async () => {
    for (const [method, path] of [
      ['post', '/v1/search'],
      ['get', '/v1/search'],
      ['get', '/v1/account'],
    ] as const) {
      const logged: unknown[][] = []
      const AsyncFunction = Object.getPrototypeOf(async () => {}).constructor as new (...args: string[]) => (...a: unknown[]) => Promise<unknown>
      const program = new AsyncFunction('process', 'console', 'fetch', `${sample(op(method, path), 'JavaScript')}\nreturn res.status`)
      const status = await program({ env: { TRAWL_API_KEY: key } }, { log: (...a: unknown[]) => logged.push(a) }, fetch)
      expect(status, `${method} ${path}`).toBe(200)
      expect(logged).toHaveLength(1)
    }
  })

  test('the Python and curl samples run, where python3 with requests and curl are installed', async () => {
    const env = { ...process.env, TRAWL_API_KEY: key }
    const hasRequests = await run('python3', ['-c', 'import requests'], { env }).then(
      () => true,
      () => false,
    )
    if (hasRequests) {
      const { stdout } = await run('python3', ['-c', sample(op('post', '/v1/search'), 'Python')], { env })
      expect(stdout).toMatch(/^1 \{/)
    }
    const hasCurl = await run('curl', ['--version']).then(
      () => true,
      () => false,
    )
    if (hasCurl) {
      const { stdout } = await run('sh', ['-c', sample(op('post', '/v1/search'), 'curl')], { env })
      expect(JSON.parse(stdout).results.length).toBeGreaterThan(0)
    }
  })
})

describe('a client generated from the document', () => {
  let dir: string
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'trawl-openapi-client-'))
  })
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  test('openapi-typescript types + openapi-fetch: type-checks strictly and calls search, webpage and account', async () => {
    writeFileSync(join(dir, 'schema.ts'), await openapiTS(JSON.parse(docText)))
    // Types only: the runtime client comes from this test (the temp dir has no node_modules).
    writeFileSync(
      join(dir, 'client.ts'),
      `import type createClient from 'openapi-fetch'
import type { components, paths } from './schema.ts'

type Client = ReturnType<typeof createClient<paths, 'application/json'>>
type Schemas = components['schemas']

export async function callTrawl(client: Client, page: string) {
  const search = await client.POST('/v1/search', { body: { q: 'coffee', num: 10 } })
  const first: Schemas['OrganicResult'] | undefined = search.data?.results[0]
  const searchGet = await client.GET('/v1/search', { params: { query: { q: 'coffee', device: 'mobile' } } })
  const webpage = await client.POST('/v1/webpage', { body: { url: page, format: 'markdown' } })
  const markdown: string | undefined = webpage.data?.markdown
  const account = await client.GET('/v1/account')
  const balance: number | undefined = account.data?.balance
  const refused = await client.GET('/v1/account', { headers: { authorization: 'Bearer trawl_live_nope' } })
  const code: Schemas['ErrorEnvelope']['error']['code'] | undefined = refused.error?.error.code
  return { first, searchGet: searchGet.data, markdown, balance, code, used: search.response.headers.get('x-credits-used') }
}

// Never called: the generated types must refuse these.
export function refusedByTheTypes(client: Client) {
  // @ts-expect-error q is required
  void client.POST('/v1/search', { body: { num: 10 } })
  // @ts-expect-error url is a string
  void client.POST('/v1/webpage', { body: { url: 42 } })
  // @ts-expect-error device is desktop or mobile
  void client.GET('/v1/search', { params: { query: { q: 'x', device: 'tablet' } } })
  // @ts-expect-error no such path
  void client.GET('/v1/nothing')
}
`,
    )
    writeFileSync(
      join(dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          noEmit: true,
          target: 'ES2022',
          module: 'ESNext',
          moduleResolution: 'Bundler',
          allowImportingTsExtensions: true,
          skipLibCheck: true,
          types: [],
          paths: { 'openapi-fetch': [join(ROOT, 'node_modules/openapi-fetch/dist/index.d.mts')] },
        },
        files: ['client.ts'],
      }),
    )
    const tsc = join(ROOT, 'node_modules/.bin/tsc')
    const checked = await run(tsc, ['-p', join(dir, 'tsconfig.json')]).then(
      () => '',
      (e: { stdout: string }) => e.stdout,
    )
    expect(checked).toBe('')

    const { callTrawl } = (await import(pathToFileURL(join(dir, 'client.ts')).href)) as {
      callTrawl: (client: unknown, page: string) => Promise<Record<string, unknown>>
    }
    const client = createClient({ baseUrl: trawl.base, headers: { authorization: `Bearer ${key}` } })
    const got = await callTrawl(client, `${site.url}/article/ars`)
    expect(got.first).toMatchObject({ position: 1, link: expect.stringMatching(/^https?:/) })
    expect(got.searchGet).toMatchObject({ request: { device: 'mobile' } })
    expect(got.markdown).toEqual(expect.any(String))
    expect(got.balance).toEqual(expect.any(Number))
    expect(got.code).toBe('unauthorized')
    expect(got.used).toBe('1')
  })
})

describe('/docs', () => {
  test('/ points to /docs, which serves the reference with nothing from another origin', async () => {
    const root = await fetch(`${trawl.base}/`, { redirect: 'manual' })
    expect(root.status).toBe(302)
    expect(root.headers.get('location')).toBe('/docs')
    const page = await fetch(`${trawl.base}/docs`)
    expect(page.status).toBe(200)
    expect(page.headers.get('content-type')).toMatch(/^text\/html/)
    const html = await page.text()
    const refs = [...html.matchAll(/\b(?:src|href)\s*=\s*["']([^"']+)["']/g)].map((m) => m[1]!)
    expect(refs.length).toBeGreaterThan(0)
    for (const ref of refs) expect(ref, ref).not.toMatch(/^(?:[a-z]+:)?\/\//i)
    expect(html).not.toMatch(/https?:\/\//)
    // The configuration turns off what would call out: fonts, telemetry, the hosted client and AI agent.
    expect(html).toMatch(/"withDefaultFonts":\s*false/)
    expect(html).toMatch(/"telemetry":\s*false/)
    expect(html).toMatch(/"url":\s*"\/v1\/openapi.json"/)
    // The browser is told to load nothing from elsewhere; requests sent from the page may go to the API's server.
    const csp = page.headers.get('content-security-policy') ?? ''
    expect(csp).toContain("default-src 'self'")
    expect(csp).toContain("script-src 'self' 'unsafe-inline'")
    expect(csp).toContain(`connect-src 'self' ${new URL(doc.servers[0]!.url).origin}`)
    for (const ref of refs) {
      const asset = await fetch(new URL(ref, page.url))
      expect(asset.status, ref).toBe(200)
      expect(asset.headers.get('content-type'), ref).toMatch(/javascript/)
      expect((await asset.text()).length).toBeGreaterThan(100_000)
    }
  })

  test('web search and each vertical are in the document as GET and POST; the page lists only the POST (x-scalar-ignore on the GET twin)', () => {
    const twins = Object.entries(doc.paths).filter(([, item]) => item.get && item.post?.operationId && item.get.operationId === `${item.post.operationId}Get`)
    expect(twins.map(([path]) => path)).toEqual(expect.arrayContaining(['/v1/search', '/v1/news', '/v1/images', '/v1/places', '/v1/autocomplete']))
    for (const [path, item] of twins) {
      expect(item.get?.['x-scalar-ignore'], path).toBe(true)
      expect(item.post?.['x-scalar-ignore'], path).toBeUndefined()
    }
    // Nothing else is hidden.
    const hidden = Object.values(doc.paths).flatMap((item) => Object.values(item).filter((op) => op['x-scalar-ignore']))
    expect(hidden.length).toBe(twins.length)
  })

  test('/favicon.ico and /favicon.svg: the dashboard icon, as an ICO and as SVG', async () => {
    const ico = await fetch(`${trawl.base}/favicon.ico`)
    expect(ico.status).toBe(200)
    expect(ico.headers.get('content-type')).toBe('image/x-icon')
    const bytes = Buffer.from(await ico.arrayBuffer())
    expect([...bytes.subarray(0, 4)]).toEqual([0, 0, 1, 0]) // ICONDIR: reserved, type 1 (icon)
    expect(bytes.readUInt16LE(4)).toBeGreaterThan(0)
    const svg = await fetch(`${trawl.base}/favicon.svg`)
    expect(svg.headers.get('content-type')).toMatch(/^image\/svg\+xml/)
    expect(await svg.text()).toMatch(/^<svg /)
    expect(await (await fetch(`${trawl.base}/docs`)).text()).toMatch(/"favicon":\s*"\/favicon.svg"/)
  })

  test('with the dashboard mounted at the root of its own host, / stays the dashboard and /docs the reference', async () => {
    const rooted = await startTrawl({ TRAWL_APP_URL: 'http://app.localhost:8081' })
    try {
      const root = await fetch(`${rooted.base}/`, { headers: { accept: 'text/html' }, redirect: 'manual' })
      expect(root.status).toBe(200)
      expect(await root.text()).not.toContain('/v1/openapi.json')
      expect(await (await fetch(`${rooted.base}/docs`)).text()).toContain('/v1/openapi.json')
    } finally {
      await rooted.close()
    }
  })

  test.skipIf(skipWithoutChromium)('renders in Chromium with every request to this server', async () => {
    const browser = await launchChromium()
    try {
      const page = await browser.newPage()
      const elsewhere: string[] = []
      const errors: string[] = []
      page.on('request', (r) => {
        if (!r.url().startsWith(trawl.base) && !/^(data|blob):/.test(r.url())) elsewhere.push(r.url())
      })
      page.on('pageerror', (e) => errors.push(e.message))
      await page.goto(`${trawl.base}/`, { waitUntil: 'networkidle' })
      await page.getByRole('heading', { name: 'Getting started' }).waitFor()
      expect(await page.getByText('Web search', { exact: true }).count()).toBeGreaterThan(0)
      // No code block is wider than its box (Scalar hides the sideways scrollbar: it looked cut off).
      const overflowing = () =>
        page.evaluate(() =>
          [...document.querySelectorAll('.markdown pre code, .scalar-code-block .custom-scroll')]
            .filter((e) => e.clientWidth > 0 && e.scrollWidth > e.clientWidth + 1)
            .map((e) => e.textContent?.slice(0, 60)),
        )
      expect(await overflowing()).toEqual([])
      // One entry per vertical in the sidebar (the GET twin is hidden), and its code sample fits too.
      await page.getByText('News', { exact: true }).first().click()
      await page.getByText("'Content-Type: application/json'").first().waitFor()
      expect(await page.locator('aside').getByText('News', { exact: true }).count()).toBe(1)
      expect(await overflowing()).toEqual([])
      expect(elsewhere).toEqual([])
      expect(errors).toEqual([])
    } finally {
      await browser.close()
    }
  })
})
