import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { isArrowFunction, isFunctionDeclaration, isFunctionExpression, isMethodDeclaration, type Node } from 'typescript/unstable/ast'
import { API } from 'typescript/unstable/sync'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { Tables } from '../src/store/schema.ts'
import { errorOf } from './support/books.ts'
import { type FakeUpstream, fakeUpstream, fixture, htmlPage } from './support/fake-upstream.ts'
import { startTrawl, type Trawl } from './support/start-trawl.ts'

let trawl: Trawl
let upstream: FakeUpstream
let key: string
beforeAll(async () => {
  upstream = await fakeUpstream(htmlPage(fixture('serp/google/web-desktop/zlurad-coffee.html')))
  trawl = await startTrawl({ TRAWL_UPSTREAM_HOSTS: `*=${upstream.url}`, TRAWL_BODY_LIMIT_BYTES: '65536' })
  key = (await trawl.account({ plan: 'enterprise', rate_limit_rps: 1000, credits: 1000 })).key
})
afterAll(async () => {
  await trawl.close()
  await upstream.close()
})

const auth = () => ({ authorization: `Bearer ${key}` })
const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${trawl.base}${path}`, {
    method: 'POST',
    headers: { ...auth(), 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  })
const get = (path: string) => fetch(`${trawl.base}${path}`, { headers: auth() })

describe('request handling', () => {
  test('GET query and POST body give identical results', async () => {
    const viaGet = await (await get('/v1/search?q=coffee&num=20&device=mobile&include_domains=example.com,wikipedia.org&autocorrect=false')).json()
    const viaPost = await (
      await post('/v1/search', { q: 'coffee', num: 20, device: 'mobile', include_domains: ['example.com', 'wikipedia.org'], autocorrect: false })
    ).json()
    expect(viaGet.request).toEqual(viaPost.request)
    expect(viaGet.results).toEqual(viaPost.results)
    expect(viaGet.request).toMatchObject({
      endpoint: 'search',
      engine: 'google',
      q: 'coffee',
      country: 'us',
      language: 'en',
      num: 20,
      page: 1,
      device: 'mobile',
      autocorrect: false,
    })
  })

  test.each([
    ['gl', 'country'],
    ['hl', 'language'],
    ['start', 'page'],
    ['tbm', 'the vertical endpoint'],
    ['count', 'num'],
    ['max_results', 'num'],
    ['search_depth', 'num'],
    ['query', 'q'],
  ])('unknown parameter %s names its replacement', async (name, replacement) => {
    const viaGet = await errorOf(await get(`/v1/search?q=x&${name}=1`))
    expect(viaGet).toMatchObject({ status: 400, code: 'invalid_request' })
    expect(viaGet.message.startsWith(`unknown parameter ${name}: use ${replacement}`)).toBe(true)
    const viaPost = await errorOf(await post('/v1/search', { q: 'x', [name]: 1 }))
    expect(viaPost.message).toBe(viaGet.message)
  })

  test.each([
    [{ q: 'x', page: 11 }, 'page must be between 1 and 10'],
    [{ q: 'x', num: 20, page: 2 }, 'num > 10 (depth) requires page=1'],
    [{ q: 'x', num: 15 }, 'num must be one of 10, 20, 30, 50, 100'],
    [{ q: 'x', country: 'zz' }, 'country must be a two-letter ISO code such as us or de'],
    [{ q: 'x', location: 'Paris, France', uule: 'w+CAIQICIGUGFyaXM' }, 'uule: send location or uule, not both'],
    [{ q: '' }, 'q must not be empty'],
    [{}, 'q is required'],
    [{ q: 5 }, 'q must be a string'],
    [{ q: 'x', num: 'ten' }, 'num must be one of 10, 20, 30, 50, 100'],
    [{ q: 'x', include_domains: 'example.com' }, 'include_domains must be a list of domains'],
    [{ q: 'x'.repeat(2049) }, 'q must be at most 2,048 characters'],
    [
      { q: 'x', engine: 'altavista' },
      'engine altavista is not known; use one of google, bing, duckduckgo, brave, mojeek, startpage, wikipedia, searxng, serper, auto, consensus, or a list of providers',
    ],
    [{ q: 'x', format: 'markdown', fields: 'results.title' }, 'fields cannot be combined with format=markdown; use format=json or format=compact with fields'],
  ])('bad input %j is a 400 naming the parameter and is not billed', async (body, message) => {
    const res = await post('/v1/search', body)
    expect(await errorOf(res)).toMatchObject({ status: 400, code: 'invalid_request', message })
    expect(res.headers.get('x-credits-used')).toBe('0')
  })

  test('a JSON array body, broken JSON and an oversized body are clean 4xx errors', async () => {
    expect(await errorOf(await post('/v1/search', [{ q: 'a' }, { q: 'b' }]))).toMatchObject({
      status: 400,
      code: 'invalid_request',
      message: expect.stringMatching(/not an array.*\/v1\/batches/),
    })
    expect(await errorOf(await post('/v1/search', '{"q":'))).toMatchObject({ status: 400, code: 'invalid_request', message: 'body is not valid JSON' })
    expect(await errorOf(await post('/v1/search', { q: 'x'.repeat(70_000) }))).toMatchObject({ status: 413, code: 'invalid_request' })
  })

  test('every billed response carries the billing headers', async () => {
    const res = await get('/v1/search?q=coffee')
    expect(res.status).toBe(200)
    for (const h of ['x-credits-used', 'x-credits-remaining', 'x-cost-usd', 'x-cache', 'x-latency-ms', 'x-tokens-estimate', 'x-request-id']) {
      expect(res.headers.get(h), h).toBeTruthy()
    }
    const body = await res.json()
    expect(body.meta.request_id).toBe(res.headers.get('x-request-id'))
    expect(Number(res.headers.get('x-tokens-estimate'))).toBeGreaterThan(100)
    expect(res.headers.get('x-cache')).toBe('MISS')
  })

  test('CORS allows any origin without credentials and exposes the billing headers', async () => {
    const preflight = await fetch(`${trawl.base}/v1/search`, {
      method: 'OPTIONS',
      headers: { origin: 'https://app.example.test', 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization,content-type' },
    })
    expect(preflight.headers.get('access-control-allow-origin')).toBe('*')
    expect(preflight.headers.get('access-control-allow-credentials')).toBeNull()
    const res = await fetch(`${trawl.base}/v1/search?q=coffee`, { headers: { ...auth(), origin: 'https://app.example.test' } })
    const exposed = res.headers.get('access-control-expose-headers') ?? ''
    for (const h of ['X-Credits-Used', 'X-Credits-Remaining', 'X-Cost-USD', 'X-Cache', 'X-Latency-Ms', 'X-Tokens-Estimate', 'X-Request-Id', 'Retry-After'])
      expect(exposed).toContain(h)
  })

  test('unknown routes are 404 not_found in the envelope', async () => {
    expect(await errorOf(await get('/v1/nothing-here'))).toMatchObject({ status: 404, code: 'not_found' })
  })

  test('rate limits per key: 429 rate_limited with Retry-After beyond the plan rate', async () => {
    const free = (await trawl.account({ plan: 'free', credits: 100 })).key
    const burst = await Promise.all(
      Array.from({ length: 30 }, () => fetch(`${trawl.base}/v1/search?q=coffee`, { headers: { authorization: `Bearer ${free}` } })),
    )
    const limited = burst.filter((r) => r.status === 429)
    // 5 per second: a burst of 30 is mostly refused (how many pass depends on how many seconds it spans).
    expect(burst.filter((r) => r.status === 200).length).toBeGreaterThanOrEqual(5)
    expect(limited.length).toBeGreaterThanOrEqual(15)
    expect(limited.every((r) => r.headers.get('retry-after') === '1')).toBe(true)
    expect(limited.every((r) => r.headers.get('x-credits-used') === '0')).toBe(true)
    expect((await limited[0]!.json()).error.code).toBe('rate_limited')
    // GET /v1/account is authenticated but free of the rate limit.
    const account = await Promise.all(Array.from({ length: 10 }, () => fetch(`${trawl.base}/v1/account`, { headers: { authorization: `Bearer ${free}` } })))
    expect(account.every((r) => r.status === 200)).toBe(true)
  })
})

describe('health and documents', () => {
  test('/livez and /healthz answer without a key', async () => {
    expect((await fetch(`${trawl.base}/livez`)).status).toBe(200)
    const health = await fetch(`${trawl.base}/healthz`)
    expect(health.status).toBe(200)
    expect(await health.json()).toMatchObject({ status: 'ok', checks: { database: 'ok' } })
  })

  test('/v1/openapi.json is OpenAPI 3.1.0, version 1.0.2, generated from the request schemas; /docs renders it', async () => {
    const doc = await (await fetch(`${trawl.base}/v1/openapi.json`)).json()
    expect(doc.openapi).toBe('3.1.0')
    expect(doc.info.version).toBe('1.0.2')
    // Response shapes are named components (test/openapi.test.ts): follow the $refs.
    const deref = (s: { $ref?: string }) => (s.$ref ? doc.components.schemas[s.$ref.replace('#/components/schemas/', '')] : s)
    const answer = (method: string, path: string, status = '200') => deref(doc.paths[path][method].responses[status].content['application/json'].schema)
    const postSearch = doc.paths['/v1/search'].post
    expect(postSearch.requestBody.content['application/json'].schema.properties.num).toBeTruthy()
    expect(postSearch.requestBody.content['application/json'].schema.required).toEqual(['q'])
    expect(doc.paths['/v1/search'].get.parameters.map((p: { name: string }) => p.name)).toContain('max_age')
    const ok = answer('get', '/v1/search')
    expect(deref(ok.properties.results.items).properties.link.type).toBe('string')
    expect(answer('get', '/v1/search', '4XX').properties.error.properties.code.type).toBe('string')
    expect(answer('get', '/v1/account').properties.balance.type).toBe('number')
    expect(answer('post', '/v1/crawl', '202').properties.progress).toBeTruthy()
    expect(doc.paths['/v1/crawl/{id}'].delete).toBeTruthy()
    expect(answer('post', '/v1/map').properties.results.items.properties.source.enum).toEqual(['sitemap', 'page'])
    for (const vertical of ['news', 'images', 'videos', 'maps', 'places', 'shopping', 'scholar', 'patents', 'autocomplete', 'lens', 'reviews']) {
      expect(doc.paths[`/v1/${vertical}`].get, vertical).toBeTruthy()
      expect(answer('post', `/v1/${vertical}`).properties.results.type, vertical).toBe('array')
    }
    expect(answer('post', '/v1/reviews').properties.next_page_token).toBeTruthy()
    expect(answer('post', '/v1/rank').properties.matches).toBeTruthy()
    expect(doc.paths['/customsearch/v1'].get.parameters.map((p: { name: string }) => p.name)).toEqual(expect.arrayContaining(['q', 'cx', 'num', 'start']))
    // /docs renders the document in the browser (Scalar, served from node_modules): the page loads it.
    const page = await fetch(`${trawl.base}/docs`)
    expect(page.headers.get('content-type')).toMatch(/text\/html/)
    const html = await page.text()
    expect(html).toContain('/v1/openapi.json')
  })
})

describe('failures', () => {
  test('/healthz is 503 and calls are 500 internal (no internals leaked) when the database is gone', async () => {
    const broken = await startTrawl()
    const { key: k } = await broken.account()
    await broken.services.store.close()
    const health = await fetch(`${broken.base}/healthz`)
    expect(health.status).toBe(503)
    expect((await health.json()).checks.database).toMatch(/^down/)
    broken.services.keys.invalidateAccount('*')
    const res = await fetch(`${broken.base}/v1/account`, { headers: { authorization: `Bearer ${k}` } })
    // The key is cached, so the failure happens reading the account: a clean 500.
    expect(res.status).toBe(500)
    const body = await res.json()
    expect(body.error.code).toBe('internal')
    expect(body.error.message).not.toMatch(/sqlite|database|kysely|stack|at /i)
    await broken.app.close().catch(() => {})
  })
})

test('searches fail over across proxy pools; /healthz reports the dead proxy without failing readiness', async () => {
  const { createServer, request } = await import('node:http')
  // A real forward proxy on loopback: absolute-form request in, same request out to the target.
  const proxied: string[] = []
  const proxy = createServer((req, res) => {
    proxied.push(req.url ?? '')
    const target = new URL(req.url ?? '')
    const out = request({ host: target.hostname, port: target.port, path: target.pathname + target.search, method: req.method, headers: req.headers }, (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers)
      up.pipe(res)
    })
    req.pipe(out)
  })
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve))
  const proxyPort = (proxy.address() as { port: number }).port
  // Pool "dead" points at a port nothing listens on; pool "live" at the proxy above.
  const t = await startTrawl({ TRAWL_UPSTREAM_HOSTS: `*=${upstream.url}`, TRAWL_PROXY_POOLS: `dead=http://127.0.0.1:9;live=http://127.0.0.1:${proxyPort}` })
  try {
    const k = (await t.account({ plan: 'pro' })).key
    const res = await fetch(`${t.base}/v1/search?q=coffee`, { headers: { authorization: `Bearer ${k}` } })
    expect(res.status).toBe(200)
    const body = await res.json()
    expect(body.meta.route.map((a: { pool: string; outcome: string }) => `${a.pool}:${a.outcome}`)).toEqual(['dead:error', 'live:ok'])
    expect(JSON.stringify(body.meta.route)).not.toContain(upstream.url) // the test address never leaks
    expect(proxied[0]).toMatch(/\/search\?q=coffee/)
    const health = await fetch(`${t.base}/healthz`)
    expect(health.status).toBe(200)
    expect(await health.json()).toMatchObject({ status: 'ok', proxies: { healthy: 1, total: 2 } })
  } finally {
    await t.close()
    proxy.closeAllConnections()
    proxy.close()
  }
})

describe('source layout', () => {
  const root = join(import.meta.dirname, '..')
  // SQL lives in *.store.ts files (docs/ARCHITECTURE.md). The only other homes are the storage
  // infrastructure itself: the database port (connections, the ping, its statement cache) and the
  // schema migrations. Tests (*.test.ts) may build their fixture tables and rows directly.
  const SQL_ALLOWED = ['src/store/database.ts', 'src/store/migrations.ts', 'src/store/migrations/']
  const SQL_CALLS: [string, RegExp][] = [
    ['a Kysely query builder', /\.(selectFrom|insertInto|updateTable|deleteFrom|replaceInto|mergeInto|selectNoFrom)\s*\(/],
    ['an sql`…` template', /\bsql\s*(<[^>]*>)?\s*`/],
    ['an sql helper', /\bsql\.(raw|table|ref|lit|id|join|val)\s*\(/],
    ['a schema change', /\.schema\s*\.\s*(create|alter|drop)\w*\s*\(/],
    ['a raw prepared statement', /\.prepare\s*\(\s*['"`]/],
    ['a query run', /\.executeTakeFirst(OrThrow)?\s*\(|\.execute\s*\(\s*\)/],
  ]
  const sources = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []))

  test('SQL only in *.store.ts files (and the database port and migrations)', () => {
    const offences: string[] = []
    for (const file of sources(join(root, 'src'))) {
      const path = relative(root, file).split('\\').join('/')
      if (path.endsWith('.store.ts') || path.endsWith('.test.ts') || SQL_ALLOWED.some((allowed) => path === allowed || path.startsWith(allowed))) continue
      readFileSync(file, 'utf8')
        .split('\n')
        .forEach((line, i) => {
          for (const [what, pattern] of SQL_CALLS) if (pattern.test(line)) offences.push(`${path}:${i + 1}: ${what}: ${line.trim()}`)
        })
    }
    expect(offences, "move these statements into the owner's *.store.ts").toEqual([])
  })

  // Each table is read and written only by its owner's *.store.ts files (the owner: the feature that
  // creates and writes its rows); everyone else calls the owner's named functions. Typed by the
  // schema, so a new table needs an owner here. The accounts row is shared by column: billing moves
  // balance_mc with the ledger in one transaction, and webhooks/ keeps the webhook URL and secret
  // (a lower floor, which may not import the accounts feature). jobs/jobs.store.ts leases rows of
  // whichever table a JobKind names, so it names none itself.
  const OWNERS: Record<keyof Tables, readonly string[]> = {
    accounts: ['src/features/accounts/', 'src/billing/', 'src/webhooks/'],
    users: ['src/features/accounts/'],
    api_keys: ['src/features/accounts/'],
    usage_counters: ['src/billing/'],
    ledger: ['src/billing/'],
    reservations: ['src/billing/'],
    cache_entries: ['src/cache/'],
    sessions: ['src/features/dashboard/'],
    login_attempts: ['src/features/dashboard/'],
    signup_pending: ['src/features/dashboard/'],
    webhook_deliveries: ['src/webhooks/'],
    crawls: ['src/features/crawl/'],
    crawl_pages: ['src/features/crawl/'],
    batch_jobs: ['src/features/batches/'],
    monitors: ['src/features/monitors/'],
    monitor_runs: ['src/features/monitors/'],
    monitor_seen: ['src/features/monitors/'],
    research_jobs: ['src/features/context/research/'],
    server_secrets: ['src/store/'],
    engine_passes: ['src/engines/gates/'],
  }
  const TABLE_NAMED = [
    /\.(?:selectFrom|insertInto|updateTable|deleteFrom|replaceInto|mergeInto|innerJoin|leftJoin|rightJoin|fullJoin)\(\s*['"`](\w+)/g,
    /\b(?:from|join|into|update)\s+(\w+)/gi,
  ]

  test("each table is named only in its owner's *.store.ts files", () => {
    const offences: string[] = []
    for (const file of sources(join(root, 'src'))) {
      const path = relative(root, file).split('\\').join('/')
      if (!path.endsWith('.store.ts')) continue
      const code = readFileSync(file, 'utf8')
        .replace(/\/\*[\s\S]*?\*\//g, '')
        .replace(/^\s*\/\/.*$/gm, '')
      const named = new Set(TABLE_NAMED.flatMap((pattern) => [...code.matchAll(pattern)].map((m) => m[1]!)))
      for (const [table, owners] of Object.entries(OWNERS)) {
        if (named.has(table) && !owners.some((owner) => path.startsWith(owner))) offences.push(`${path}: ${table} (owned by ${owners.join(', ')})`)
      }
    }
    expect(offences, "call a named function of the owner's store instead").toEqual([])
  })

  // No function is longer than 120 lines (docs/ARCHITECTURE.md): a longer one is split into named
  // steps. Measured on the compiler's syntax tree, from the function's first token to its last line.
  const MAX_FUNCTION_LINES = 120

  test(`no function in src is longer than ${MAX_FUNCTION_LINES} lines`, () => {
    const api = new API({ cwd: root })
    try {
      const program = api.updateSnapshot({ openProjects: [join(root, 'tsconfig.json')] }).getProjects()[0]!.program
      const offences: string[] = []
      for (const file of sources(join(root, 'src'))) {
        const path = relative(root, file).split('\\').join('/')
        if (path.endsWith('.test.ts') || path.endsWith('.fixture.ts')) continue
        const source = program.getSourceFile(file)
        if (!source) throw new Error(`${path} is not in tsconfig.json's program`)
        const visit = (node: Node): void => {
          if (isFunctionDeclaration(node) || isMethodDeclaration(node) || isArrowFunction(node) || isFunctionExpression(node)) {
            const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line
            const lines = source.getLineAndCharacterOfPosition(node.end).line - first + 1
            if (lines > MAX_FUNCTION_LINES) offences.push(`${path}:${first + 1}: ${lines} lines`)
          }
          node.forEachChild(visit)
        }
        source.forEachChild(visit)
      }
      expect(offences, 'split these into named steps a reader can follow top-down').toEqual([])
    } finally {
      api.close()
    }
  })
})

describe('citations', () => {
  // Code and docs cite only the repository's own documents (docs/*.md, README.md, the OpenAPI
  // document at /v1/openapi.json): a reader of the public repository cannot open an outside
  // specification, contract or issue tracker, so a rule is stated where it is cited.
  const CITATION = /\bSPEC\b|SPEC\.md|\bCONTRACT\b|CONTRACT\.md|\b[Ii]ssue #?\d+|\.\.\/shared\b/
  const TEXT = /\.(ts|mts|cts|js|mjs|cjs|json|ya?ml|md|html|css)$/
  // Captured pages and their parsed goldens quote third-party text; only their READMEs are ours.
  const isCapture = (path: string) => /(^|\/)(fixtures|testdata)\//.test(path) || path.includes('.golden.')

  test('src, test, bench, docs, packages and README.md cite no outside spec, contract or issue number', () => {
    const root = join(import.meta.dirname, '..')
    const files = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
        if (e.isDirectory()) return e.name === 'node_modules' || e.name === 'dist' ? [] : files(join(dir, e.name))
        return TEXT.test(e.name) ? [join(dir, e.name)] : []
      })
    const offences: string[] = []
    for (const file of [...['src', 'test', 'bench', 'docs', 'packages'].flatMap((d) => files(join(root, d))), join(root, 'README.md')]) {
      const path = relative(root, file).split('\\').join('/')
      if (isCapture(path) && !path.endsWith('.md')) continue
      readFileSync(file, 'utf8')
        .split('\n')
        .forEach((line, i) => {
          const ownPattern = path === 'test/conventions.test.ts' && line.includes('const CITATION =')
          if (CITATION.test(line) && !ownPattern) offences.push(`${path}:${i + 1}: ${line.trim()}`)
        })
    }
    expect(offences, 'state the rule, or cite docs/*.md, README.md or the OpenAPI document').toEqual([])
  })
})
