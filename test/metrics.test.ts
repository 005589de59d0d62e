import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { type CrawlSite, startCrawlSite } from './support/crawl-site.ts'
import { type FakeUpstream, fakeUpstream, fixture, htmlPage } from './support/fake-upstream.ts'
import { createTestDatabase } from './support/postgres.ts'
import { skipWithoutPostgres } from './support/servers.ts'
import { ADMIN_TOKEN, startTrawl, type Trawl } from './support/start-trawl.ts'
import { startReceiver } from './support/webhook-receiver.ts'

/**
 * GET /metrics through the real server: the counters move by what a search, a refunded call, a
 * crawl and its webhook did, with the right labels; the queue gauges read the database; the route
 * is the operator's. And the log: every line of a request carries its id, a job's lines carry the
 * job and the request that created it.
 */

const RESULTS_PAGE = fixture('serp/google/web-desktop/zlurad-coffee.html')

// ---- the text format ----------------------------------------------------------------------------

type Sample = { name: string; labels: Record<string, string>; value: number }

function parse(text: string): Sample[] {
  const samples: Sample[] = []
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line)
    if (!m) continue
    const labels: Record<string, string> = {}
    for (const l of (m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[l[1]!] = l[2]!
    samples.push({ name: m[1]!, labels, value: Number(m[3]) })
  }
  return samples
}

/** The sum of `name` over the samples whose labels include `labels`. */
const sum = (samples: Sample[], name: string, labels: Record<string, string> = {}) =>
  samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v)).reduce((a, s) => a + s.value, 0)

async function scrape(t: Trawl): Promise<Sample[]> {
  const res = await fetch(`${t.base}/metrics`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })
  expect(res.status).toBe(200)
  return parse(await res.text())
}

/** How much each asked-for series moved during `action`. */
async function moved(t: Trawl, action: () => Promise<unknown>) {
  const before = await scrape(t)
  await action()
  const after = await scrape(t)
  return (name: string, labels: Record<string, string> = {}) => Math.round((sum(after, name, labels) - sum(before, name, labels)) * 1000) / 1000
}

const until = async (what: () => boolean | Promise<boolean>, ms = 20_000) => {
  const end = Date.now() + ms
  while (!(await what())) {
    if (Date.now() > end) throw new Error('timed out')
    await new Promise((r) => setTimeout(r, 50))
  }
}

// ---- the server ---------------------------------------------------------------------------------

let trawl: Trawl
let upstream: FakeUpstream
let site: CrawlSite
const lines: Record<string, unknown>[] = []

beforeAll(async () => {
  upstream = await fakeUpstream(htmlPage(RESULTS_PAGE))
  site = await startCrawlSite()
  trawl = await startTrawl(
    {
      TRAWL_UPSTREAM_HOSTS: `*=${upstream.url}`,
      TRAWL_ALLOW_PRIVATE_NETWORK: 'true',
      TRAWL_SCHEDULER_POLL_MS: '200',
      TRAWL_WEBHOOK_RETRY_BASE_MS: '50',
      TRAWL_LOG_LEVEL: 'debug',
    },
    { workers: true, logStream: { write: (line: string) => lines.push(JSON.parse(line)) } },
  )
})
afterAll(async () => {
  await trawl?.close()
  await upstream?.close()
  await site?.close()
})

const call = (key: string, method: string, path: string, body?: unknown) =>
  fetch(`${trawl.base}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  })

describe('GET /metrics', () => {
  test('a search counts its request by route pattern, its latency, its upstream attempt and its debit', async () => {
    const { key } = await trawl.account({ plan: 'enterprise', rate_limit_rps: 1000, credits: 10 })
    upstream.handle(htmlPage(RESULTS_PAGE))
    const delta = await moved(trawl, async () => expect((await call(key, 'GET', '/v1/search?q=coffee')).status).toBe(200))
    expect(delta('trawl_http_requests_total', { method: 'GET', route: '/v1/search', status: '200' })).toBe(1)
    expect(delta('trawl_http_request_duration_seconds_count', { method: 'GET', route: '/v1/search', status: '200' })).toBe(1)
    expect(delta('trawl_http_request_duration_seconds_bucket', { route: '/v1/search', le: '+Inf' })).toBe(1)
    expect(delta('trawl_upstream_attempts_total', { engine: 'google', outcome: 'ok', pool: 'direct' })).toBe(1)
    expect(delta('trawl_upstream_attempt_duration_seconds_count', { engine: 'google', outcome: 'ok' })).toBe(1)
    expect(delta('trawl_credits_debited_total', { endpoint: '/v1/search' })).toBe(1)
    expect(delta('trawl_credits_refunded_total')).toBe(0)
  })

  test('a failed call counts its 503, the failed attempt and the refund of its whole hold', async () => {
    const { key } = await trawl.account({ plan: 'enterprise', rate_limit_rps: 1000, credits: 10 })
    upstream.handle((_req, res) => res.writeHead(500).end('oops'))
    const delta = await moved(trawl, async () => expect((await call(key, 'GET', '/v1/search?q=fail')).status).toBe(503))
    upstream.handle(htmlPage(RESULTS_PAGE))
    expect(delta('trawl_http_requests_total', { route: '/v1/search', status: '503' })).toBe(1)
    // One failed attempt per Google web-search route the call walked (wml, web, and browser where
    // this machine has one).
    const engines = (await (await call(key, 'GET', '/v1/engines')).json()) as { engines: { name: string; routes: { available: boolean }[] }[] }
    const routes = engines.engines.find((e) => e.name === 'google')?.routes.filter((r) => r.available).length
    expect(delta('trawl_upstream_attempts_total', { engine: 'google', outcome: 'error' })).toBe(routes)
    expect(delta('trawl_credits_debited_total', { endpoint: '/v1/search' })).toBe(1)
    expect(delta('trawl_credits_refunded_total', { endpoint: '/v1/search' })).toBe(1)
  })

  test('routes are patterns, never raw URLs: ids and unknown paths do not become labels', async () => {
    const { key } = await trawl.account({ plan: 'enterprise', rate_limit_rps: 1000, credits: 10 })
    const delta = await moved(trawl, async () => {
      expect((await call(key, 'GET', '/v1/crawl/11111111-1111-4111-8111-111111111111')).status).toBe(404)
      expect((await call(key, 'GET', '/no/such/secret-path')).status).toBe(404)
    })
    expect(delta('trawl_http_requests_total', { route: '/v1/crawl/:id', status: '404' })).toBe(1)
    expect(delta('trawl_http_requests_total', { route: 'unmatched', status: '404' })).toBe(1)
    const text = await (await fetch(`${trawl.base}/metrics`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).text()
    expect(text).not.toContain('secret-path')
    expect(text).not.toContain('11111111-1111')
  })

  test('a crawl counts its debit and the refund of its unread pages; its webhook counts a retry, then the delivery', async () => {
    const receiver = await startReceiver((n, res) => res.writeHead(n === 0 ? 500 : 200).end())
    const { key } = await trawl.account({ plan: 'pro', credits: 100 })
    let id = ''
    const delta = await moved(trawl, async () => {
      const res = await call(key, 'POST', '/v1/crawl', { url: `${site.url}/`, limit: 20, max_depth: 3, webhook_url: receiver.url })
      expect(res.status).toBe(202)
      id = ((await res.json()) as { id: string }).id
      await until(async () => ((await (await call(key, 'GET', `/v1/crawl/${id}`)).json()) as { webhook_status?: string }).webhook_status === 'delivered')
    })
    const task = (await (await call(key, 'GET', `/v1/crawl/${id}`)).json()) as { status: string; credits_used: number }
    expect(task.status).toBe('completed')
    expect(delta('trawl_http_requests_total', { method: 'POST', route: '/v1/crawl', status: '202' })).toBe(1)
    expect(delta('trawl_credits_debited_total', { endpoint: '/v1/crawl' })).toBe(20)
    expect(delta('trawl_credits_refunded_total', { endpoint: '/v1/crawl' })).toBe(20 - task.credits_used)
    expect(delta('trawl_webhook_attempts_total', { event: 'crawl.completed', outcome: 'retry' })).toBe(1)
    expect(delta('trawl_webhook_attempts_total', { event: 'crawl.completed', outcome: 'delivered' })).toBe(1)
    expect(receiver.hits).toHaveLength(2)
    await receiver.close()

    // Its worker lines name the crawl, its kind and the request that created it; so do its webhook's.
    const created = lines.find((l) => l.msg === 'request completed' && String((l.req as { url?: string })?.url) === '/v1/crawl')
    const reqId = created?.reqId as string
    expect(reqId).toMatch(/^req_/)
    const jobLines = lines.filter((l) => l.job_id === id)
    expect(jobLines.map((l) => l.msg)).toEqual(expect.arrayContaining(['crawl started', 'crawl ended']))
    for (const l of jobLines) expect(l).toMatchObject({ job_kind: 'crawl', reqId })
    const hookLines = lines.filter((l) => l.job_kind === 'webhook' && l.job_id)
    expect(hookLines.map((l) => l.msg)).toEqual(expect.arrayContaining(['webhook attempt failed; retrying', 'webhook delivered']))
    for (const l of hookLines) expect(l.reqId).toBe(reqId)
  })

  // PostgreSQL only where one answers on 127.0.0.1:5432 (test/support/servers.ts).
  test.each([['SQLite', false], ...(skipWithoutPostgres ? [] : [['PostgreSQL', true] as [string, boolean]])])(
    'the queue gauges read the database (%s): a crawl queued on an API-only server waits there',
    async (_name, postgres) => {
      const db = postgres ? await createTestDatabase() : null
      const api = await startTrawl({ TRAWL_ALLOW_PRIVATE_NETWORK: 'true', ...(db ? { TRAWL_DATABASE_URL: db.url } : {}) }) // no workers: it stays queued
      try {
        const { key } = await api.account({ plan: 'pro', credits: 100 })
        const res = await fetch(`${api.base}/v1/crawl`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ url: `${site.url}/`, limit: 5 }),
        })
        expect(res.status).toBe(202)
        const samples = await scrape(api)
        expect(sum(samples, 'trawl_jobs_queued', { kind: 'crawl' })).toBe(1)
        expect(sum(samples, 'trawl_jobs_running', { kind: 'crawl' })).toBe(0)
        expect(sum(samples, 'trawl_jobs_oldest_queued_age_seconds', { kind: 'crawl' })).toBeGreaterThanOrEqual(0)
        // Every kind is reported, waiting or not.
        for (const kind of ['batch', 'monitor', 'webhook']) {
          expect(samples.find((s) => s.name === 'trawl_jobs_queued' && s.labels.kind === kind)?.value).toBe(0)
        }
      } finally {
        await api.close()
        await db?.drop()
      }
    },
  )

  test('process memory and the Node.js runtime are reported', async () => {
    const samples = await scrape(trawl)
    expect(sum(samples, 'process_resident_memory_bytes')).toBeGreaterThan(0)
    expect(sum(samples, 'nodejs_heap_size_used_bytes')).toBeGreaterThan(0)
  })
})

describe('`trawl worker` with TRAWL_METRICS_PORT', () => {
  test('serves its own counters: a crawl queued through the API, run and delivered by the worker process', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'trawl-metrics-'))
    const api = await startTrawl({ TRAWL_ALLOW_PRIVATE_NETWORK: 'true' }, { databaseDir: dir }) // API only
    const receiver = await startReceiver()
    let worker: ChildProcess | undefined
    try {
      const env = {
        ...process.env,
        TRAWL_DATABASE_URL: `sqlite:${join(dir, 'trawl.db')}`,
        TRAWL_ADMIN_TOKEN: ADMIN_TOKEN,
        TRAWL_HOST: '127.0.0.1',
        TRAWL_METRICS_PORT: '0',
        TRAWL_ALLOW_PRIVATE_NETWORK: 'true',
        TRAWL_SCHEDULER_POLL_MS: '200',
        TRAWL_LOG_LEVEL: 'info',
      }
      const child = spawn(process.execPath, [new URL('../bin/trawl.mjs', import.meta.url).pathname, 'worker'], { env, stdio: ['ignore', 'pipe', 'pipe'] })
      worker = child
      let out = ''
      child.stdout?.on('data', (d: Buffer) => (out += d.toString()))
      await until(() => /worker metrics on (http:\/\/\S+)\/metrics/.test(out))
      const metricsUrl = `${/worker metrics on (http:\/\/\S+)\/metrics/.exec(out)?.[1]}/metrics`
      const read = async () => parse(await (await fetch(metricsUrl, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).text())
      expect((await fetch(metricsUrl)).status).toBe(401)

      const { key } = await api.account({ plan: 'pro', credits: 100 })
      const res = await fetch(`${api.base}/v1/crawl`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ url: `${site.url}/`, limit: 5, max_depth: 0, webhook_url: receiver.url }), // one page read: 4 refunded
      })
      expect(res.status).toBe(202)
      await until(async () => sum(await read(), 'trawl_webhook_attempts_total', { event: 'crawl.completed', outcome: 'delivered' }) === 1)
      const samples = await read()
      expect(sum(samples, 'trawl_credits_refunded_total', { endpoint: '/v1/crawl' })).toBe(4)
      expect(sum(samples, 'trawl_credits_debited_total', { endpoint: '/v1/crawl' })).toBe(0) // debited by the API process
      expect(sum(samples, 'trawl_jobs_queued', { kind: 'crawl' })).toBe(0)
      // Its log lines are JSON with the job and the request that queued it.
      const started = out
        .split('\n')
        .filter((l) => l.includes('"crawl started"'))
        .map((l) => JSON.parse(l) as Record<string, unknown>)
      expect(started).toHaveLength(1)
      expect(started[0]).toMatchObject({ job_kind: 'crawl', reqId: expect.stringMatching(/^req_/), job_id: expect.any(String) })
    } finally {
      if (worker && worker.exitCode === null) {
        const exited = new Promise((r) => worker?.once('exit', r))
        worker.kill('SIGTERM')
        await exited
      }
      await receiver.close()
      await api.close()
      rmSync(dir, { recursive: true, force: true })
    }
  }, 60_000)
})

describe('who may read /metrics', () => {
  test('the operator token: none or a wrong one is 401, an unknown parameter 400, all with the error envelope', async () => {
    const res = await fetch(`${trawl.base}/metrics`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/)
    for (const headers of [{}, { authorization: 'Bearer wrong-token-0123456789' }] as Record<string, string>[]) {
      const refused = await fetch(`${trawl.base}/metrics`, { headers })
      expect(refused.status).toBe(401)
      expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('unauthorized')
    }
    const bad = await fetch(`${trawl.base}/metrics?name=x`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })
    expect(bad.status).toBe(400)
    expect(((await bad.json()) as { error: { code: string; request_id: string } }).error).toMatchObject({
      code: 'invalid_request',
      request_id: expect.any(String),
    })
  })

  test('without an operator token configured it does not exist; TRAWL_METRICS_PUBLIC=true opens it', async () => {
    const closed = await startTrawl({ TRAWL_ADMIN_TOKEN: '' })
    const open = await startTrawl({ TRAWL_METRICS_PUBLIC: 'true' })
    try {
      expect((await fetch(`${closed.base}/metrics`)).status).toBe(404)
      const res = await fetch(`${open.base}/metrics`)
      expect(res.status).toBe(200)
      expect(await res.text()).toContain('# TYPE trawl_http_requests_total counter')
    } finally {
      await closed.close()
      await open.close()
    }
  })

  test('/metrics is not in the OpenAPI document', async () => {
    const doc = (await (await fetch(`${trawl.base}/v1/openapi.json`)).json()) as { paths: Record<string, unknown> }
    expect(doc.paths['/metrics']).toBeUndefined()
  })
})

describe('structured logs', () => {
  test('every line written while serving a request carries its id, the services’ app-wide logger included', async () => {
    const { key } = await trawl.account({ plan: 'enterprise', rate_limit_rps: 1000, credits: 10 })
    upstream.handle((_req, res) => res.writeHead(500).end('oops'))
    // SearXNG's shape answers an empty page when no engine answered, logging that with the app's logger.
    const res = await call(key, 'GET', '/compat/searxng/search?q=coffee&format=json')
    upstream.handle(htmlPage(RESULTS_PAGE))
    expect(res.status).toBe(200)
    const reqId = res.headers.get('x-request-id')
    const warned = lines.find((l) => String(l.msg).startsWith('searxng: no provider answered') && l.reqId === reqId)
    expect(warned).toBeDefined()
    // From arrival to answer, every line of this request names it, and only once.
    const first = lines.findIndex((l) => l.reqId === reqId && l.msg === 'incoming request')
    const last = lines.findIndex((l) => l.reqId === reqId && l.msg === 'request completed')
    expect(first).toBeGreaterThanOrEqual(0)
    expect(last).toBeGreaterThan(first)
    const during = lines.slice(first, last + 1).filter((l) => !l.job_kind)
    for (const l of during) expect(l.reqId).toBe(reqId)
  })

  test('at info a request is one line, and a line logged through req.log does not repeat the request id', async () => {
    const raw: string[] = []
    const t = await startTrawl({ TRAWL_LOG_LEVEL: 'info' }, { logStream: { write: (line: string) => raw.push(line) } })
    try {
      expect((await fetch(`${t.base}/v1/search?q=x`)).status).toBe(401)
      const completed = raw.find((l) => l.includes('"request completed"'))
      expect(completed?.match(/"reqId"/g)).toHaveLength(1)
      // At info, one line a request: the completed line names the request and its answer.
      expect(JSON.parse(completed!)).toMatchObject({ req: { method: 'GET', url: '/v1/search?q=x' }, res: { statusCode: 401 } })
      expect(raw.filter((l) => l.includes('"incoming request"'))).toEqual([])
    } finally {
      await t.close()
    }
  })
})
