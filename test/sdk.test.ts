import { execFile } from 'node:child_process'
import { once } from 'node:events'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { Webhook } from 'standardwebhooks'
import { afterAll, beforeAll, describe, expect, expectTypeOf, test } from 'vitest'
import {
  type BatchProgress,
  type CrawlTask,
  DailyLimitReachedError,
  InsufficientCreditsError,
  InvalidRequestError,
  isBatchJob,
  isTrawlError,
  NotFoundError,
  RateLimitedError,
  type Reduced,
  type ResponseInfo,
  ROUTES,
  type SearchResponse,
  TimeoutError,
  Trawl,
  TrawlError,
  UnauthorizedError,
  UnavailableError,
  UpstreamBlockedError,
  verifyWebhook,
  WebhookVerificationError,
} from '../packages/sdk/src/index.ts'
import { newWebhookSecret } from '../src/security/secrets.ts'
import { webhookHeaders } from '../src/webhooks/webhook.sign.ts'
import { readWebhookSecret } from '../src/webhooks/webhooks.service.ts'
import { launchChromium, skipWithoutChromium } from './support/browser.ts'
import { type CrawlSite, startCrawlSite } from './support/crawl-site.ts'
import { type FakeUpstream, fakeUpstream, fixture } from './support/fake-upstream.ts'
import { type LocalSite, startLocalSite } from './support/reading-site.ts'
import { serpRouter } from './support/serp-router.ts'
import { startTrawl, type Trawl as TrawlServer } from './support/start-trawl.ts'
import { startReceiver, waitFor } from './support/webhook-receiver.ts'

/**
 * @trawl/sdk (packages/sdk) against the real server: every call below goes through HTTP to
 * startTrawl's app with the workers on, engines answered by the fake upstream from saved pages.
 * Retry timing is checked against a tiny scripted server instead, where each answer is exact.
 */

const run = promisify(execFile)
const ROOT = fileURLToPath(new URL('..', import.meta.url))

let upstream: FakeUpstream
let site: LocalSite
let crawlSite: CrawlSite
let server: TrawlServer
let accountId: string
let key: string
let client: Trawl
const responses: ResponseInfo[] = []

beforeAll(async () => {
  upstream = await fakeUpstream(
    serpRouter([
      { host: 'www.google.com', path: '/search', body: fixture('serp/google/web-desktop/zlurad-coffee.html') },
      {
        host: 'news.google.com',
        path: '/rss/search',
        body: readFileSync(new URL('fixtures/google/news/news-rss-ai-regulation.constructed.xml', import.meta.url)),
        type: 'application/rss+xml; charset=utf-8',
      },
    ]),
  )
  site = await startLocalSite()
  crawlSite = await startCrawlSite()
  server = await startTrawl(
    {
      TRAWL_UPSTREAM_HOSTS: `*=${upstream.url}`,
      TRAWL_ALLOW_PRIVATE_NETWORK: 'true',
      TRAWL_SCHEDULER_POLL_MS: '100',
      TRAWL_WEBHOOK_RETRY_BASE_MS: '10',
    },
    { workers: true },
  )
  ;({ id: accountId, key } = await server.account({ plan: 'enterprise', rate_limit_rps: 1000, credits: 1000 }))
  client = new Trawl({ baseUrl: `${server.base}/`, apiKey: key, onResponse: (info) => responses.push(info) })
})
afterAll(async () => {
  await server?.close()
  await upstream?.close()
  await site?.close()
  await crawlSite?.close()
})

describe('types that cannot drift', () => {
  test('packages/sdk/src/types.gen.ts is what `npm run sdk:types` generates from the server now', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'trawl-sdk-types-'))
    try {
      const out = join(dir, 'types.gen.ts')
      await run(process.execPath, [join(ROOT, 'bin/run-ts.mjs'), join(ROOT, 'packages/sdk/scripts/generate-types.ts'), out], { cwd: ROOT })
      const fresh = readFileSync(out, 'utf8')
      const checkedIn = readFileSync(join(ROOT, 'packages/sdk/src/types.gen.ts'), 'utf8')
      // On failure: the server's schemas changed; run `npm run sdk:types` and commit the file.
      const [was, now] = [checkedIn.split('\n'), fresh.split('\n')]
      const line = was.findIndex((text, i) => text !== now[i])
      const where =
        line === -1 ? `the generated file has ${now.length - was.length} more lines` : `line ${line + 1}: ${was[line]?.trim()} → ${now[line]?.trim()}`
      expect(checkedIn === fresh, `packages/sdk/src/types.gen.ts is stale (${where}): run \`npm run sdk:types\``).toBe(true)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  test('the client has a method for every public operation of the live document, at its method and path', async () => {
    const doc = (await (await fetch(`${server.base}/v1/openapi.json`)).json()) as { paths: Record<string, Record<string, { operationId: string }>> }
    const live = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.entries(item).map(([method, op]) => ({ id: op.operationId, method: method.toUpperCase(), path })),
    )
    const isPublic = (id: string) => !id.endsWith('Get') && !/^(playground|tavily|firecrawl|searxng|serper)/.test(id)
    expect(live.filter((o) => isPublic(o.id)).sort((a, b) => a.id.localeCompare(b.id))).toEqual(
      Object.entries(ROUTES)
        .map(([id, [method, path]]) => ({ id, method, path }))
        .sort((a, b) => a.id.localeCompare(b.id)),
    )
    for (const id of Object.keys(ROUTES)) expect(typeof (client as unknown as Record<string, unknown>)[id], id).toBe('function')
  })

  test('answers are typed by the parameters: Markdown is a string, compact and fields are reduced', () => {
    // Never called: tsc checks these (npx tsc --noEmit covers this file); nothing is sent.
    const typed = (c: Trawl) => {
      expectTypeOf(c.search({ q: 'x' })).resolves.toEqualTypeOf<SearchResponse>()
      expectTypeOf(c.search({ q: 'x', format: 'markdown' })).resolves.toEqualTypeOf<string>()
      expectTypeOf(c.search({ q: 'x', format: 'compact' })).resolves.toEqualTypeOf<Reduced<SearchResponse> | SearchResponse>()
      expectTypeOf(c.search({ q: 'x', fields: 'results.title' })).resolves.toEqualTypeOf<Reduced<SearchResponse>>()
      // Extract's format is the page's format, not the answer's.
      expectTypeOf(c.extract({ urls: ['https://example.com/'], format: 'text' })).resolves.toHaveProperty('results')
    }
    const refused = (client: Trawl) => {
      // @ts-expect-error q is required
      void client.search({ num: 10 })
      // @ts-expect-error device is desktop or mobile
      void client.search({ q: 'x', device: 'tablet' })
      // @ts-expect-error start is not a parameter (page is)
      void client.search({ q: 'x', start: 10 })
      // @ts-expect-error nor on the other verticals
      void client.news({ q: 'x', tbm: 'nws' })
      // @ts-expect-error a batch's requests are the endpoint's bodies
      void client.createBatch({ endpoint: 'webpage', requests: [{ q: 'x' }] })
    }
    expect([typed, refused]).toHaveLength(2)
  })
})

describe('the client against the real server', () => {
  test('search: typed results, billing headers through onResponse, and Markdown as text', async () => {
    responses.length = 0
    const answer = await client.search({ q: 'coffee', num: 10 })
    expect(answer.results[0]).toMatchObject({ position: 1, link: expect.stringMatching(/^https?:/) })
    expect(answer.meta.credits_used).toBe(1)
    expect(responses).toHaveLength(1)
    expect(responses[0]).toMatchObject({ method: 'POST', status: 200, attempt: 0, requestId: answer.meta.request_id })
    expect(responses[0]!.billing).toMatchObject({ creditsUsed: 1, cache: 'MISS', creditsRemaining: expect.any(Number) })

    const markdown = await client.search({ q: 'coffee', format: 'markdown' })
    expect(typeof markdown).toBe('string')
    expect(markdown).toContain('coffee')

    const raw = await client.request('search', { body: { q: 'coffee', fields: 'results.title' } })
    expect(raw.status).toBe(200)
    expect(raw.billing.creditsUsed).toBe(1)
    expect((raw.data as { results: object[] }).results[0]).toEqual({ title: expect.any(String) })
  })

  test('a vertical, rank, the compatible endpoint, engines and the account', async () => {
    const news = await client.news({ q: 'ai regulation' })
    expect(news.results.length).toBeGreaterThan(0)
    expect(news.results[0]).toMatchObject({ title: expect.any(String), link: expect.stringMatching(/^https?:/) })

    const rank = await client.rank({ q: 'coffee', domain: 'example.com' })
    expect(rank).toMatchObject({ domain: 'example.com', checked: expect.any(Number) })

    const cse = await client.customSearch({ q: 'coffee', num: 3 })
    expect(cse.items?.length).toBe(3)

    const engines = await client.listEngines()
    expect(engines.engines.map((e) => e.name)).toContain('google')

    const account = await client.getAccount()
    expect(account.plan).toBe('enterprise')
    expect(account.balance).toBeLessThan(1000)
  })

  test('webpage, extract and map over local sites', async () => {
    const page = await client.webpage({ url: `${site.url}/article/ars`, format: 'markdown' })
    expect(page.markdown!.length).toBeGreaterThan(200)
    expect(page.meta.credits_used).toBe(1)

    const extract = await client.extract({ urls: [`${site.url}/article/bbc`, `${site.url}/missing`], format: 'text' })
    expect(extract.results).toHaveLength(1)
    expect(extract.results[0]!.text!.length).toBeGreaterThan(200)
    expect(extract.failed).toEqual([{ url: `${site.url}/missing`, error: { code: expect.any(String), message: expect.any(String) } }])

    const map = await client.map({ url: crawlSite.url, limit: 20 })
    expect(map.results.map((r) => new URL(r.url).pathname)).toContain('/blog/post-1')
  })

  test('crawl: waitForCrawl reports progress on every poll and returns the ended task; cancelCrawl refunds', async () => {
    const started = await client.startCrawl({ url: `${crawlSite.url}/`, limit: 4, max_depth: 1, exclude_paths: ['^/slow'] })
    expect(started).toMatchObject({ kind: 'crawl', status: 'queued', credits_reserved: 4 })
    const seen: CrawlTask[] = []
    const done = await client.waitForCrawl(started.id, { pollMs: 50, onProgress: (task) => seen.push(task) })
    expect(done.status).toBe('completed')
    expect(done.result!.pages.length).toBeGreaterThan(0)
    expect(seen.at(-1)).toEqual(done)
    expect(['queued', 'running']).toContain(seen[0]!.status)
    const doneCounts = seen.map((t) => t.progress.pages_done)
    expect(doneCounts).toEqual([...doneCounts].sort((a, b) => a - b))
    expect(done.progress.pages_done).toBe(done.result!.pages.length)

    // A crawl that never gets polled to the end: the waiter stops on its signal, then it is canceled.
    const other = await client.startCrawl({ url: `${crawlSite.url}/`, limit: 3, max_depth: 0 })
    const stop = new AbortController()
    stop.abort(new Error('stop waiting'))
    await expect(client.waitForCrawl(other.id, { signal: stop.signal })).rejects.toThrow('stop waiting')
    const canceling = await client.cancelCrawl(other.id)
    expect(canceling.id).toBe(other.id)
    // A running crawl stops at its next step; one that already ended stays completed.
    expect(['canceled', 'completed']).toContain((await client.waitForCrawl(other.id, { pollMs: 50 })).status)
    await expect(client.getCrawl('no-such-crawl')).rejects.toBeInstanceOf(NotFoundError)
  })

  test('batch: entries typed job or error, waitForBatchJobs with progress, and the webhook verified by verifyWebhook', async () => {
    const hooks = await startReceiver()
    try {
      expect((await server.admin('PATCH', `/admin/v1/accounts/${accountId}`, { webhook_url: hooks.url })).status).toBe(200)
      const secret = (await readWebhookSecret(server.services.store, accountId))!

      const { batches } = await client.createBatch({ endpoint: 'search', requests: [{ q: 'coffee' }, { q: 'coffee', page: 11 }, { q: 'espresso' }] })
      expect(batches.map((b) => (isBatchJob(b) ? 'job' : b.error.code))).toEqual(['job', 'invalid_request', 'job'])
      const progress: BatchProgress[] = []
      const jobs = await client.waitForBatchJobs(batches, { pollMs: 100, onProgress: (p) => progress.push(p) })
      expect(jobs.map((j) => j.status)).toEqual(['done', 'done'])
      expect(jobs.map((j) => j.id)).toEqual(batches.filter(isBatchJob).map((j) => j.id))
      expect(jobs[0]!.credits_used).toBe(0.5)
      expect((jobs[0]!.result as SearchResponse).results.length).toBeGreaterThan(0)
      expect(progress.at(-1)).toMatchObject({ total: 2, done: 2, failed: 0, queued: 0, running: 0 })
      for (const p of progress) expect(p.queued + p.running + p.done + p.failed).toBe(2)

      await waitFor(() => hooks.hits.length >= 2, 10_000)
      for (const hit of hooks.hits) {
        // Node's req.headers, as a receiver on node:http has them.
        const verified = await verifyWebhook(hit.body, hit.headers, secret)
        expect(verified).toMatchObject({ scheme: 'trawl', event: 'batch.completed', payload: { event: 'batch.completed', status: 'done' } })
        expect(jobs.map((j) => j.id)).toContain(verified.id)
        const standard = await verifyWebhook(hit.body, hit.headers, secret, { scheme: 'standard' })
        expect(standard.id).toBe(verified.id)
        await expect(verifyWebhook(hit.body.replace('done', 'fail'), hit.headers, secret)).rejects.toBeInstanceOf(WebhookVerificationError)
      }
    } finally {
      await hooks.close()
    }
  })

  test('monitors: create, list, get, update, run, runs, delete', async () => {
    const created = await client.createMonitor({ q: 'coffee', name: 'coffee watch', interval: 'daily', metadata: { team: 'sdk' } })
    expect(created).toMatchObject({ name: 'coffee watch', endpoint: 'search', active: true, metadata: { team: 'sdk' } })
    expect((await client.listMonitors()).monitors.map((m) => m.id)).toContain(created.id)
    expect(await client.getMonitor(created.id)).toMatchObject({ id: created.id })

    const runs = await waitFor(async () => {
      const r = await client.listMonitorRuns(created.id, { limit: 5 })
      return r.runs.length > 0 ? r : null
    }, 15_000)
    expect(runs).toMatchObject({ monitor_id: created.id, runs: [{ status: 'ok', first_run: true }] })
    expect(runs.runs[0]!.new_results).toBeGreaterThan(0)

    const run = await client.runMonitor(created.id)
    expect(run.id).toBe(created.id)

    const paused = await client.updateMonitor(created.id, { active: false, name: 'paused' })
    expect(paused).toMatchObject({ active: false, name: 'paused' })
    const refused = await client.runMonitor(created.id).catch((e: unknown) => e)
    expect(refused).toBeInstanceOf(InvalidRequestError)
    expect(refused).toMatchObject({ code: 'invalid_request', status: 409 })

    expect(await client.deleteMonitor(created.id)).toEqual({ id: created.id, deleted: true })
    await expect(client.getMonitor(created.id)).rejects.toBeInstanceOf(NotFoundError)
  })

  test('errors are typed classes by code, with status, request id and message', async () => {
    const bad = new Trawl({ baseUrl: server.base, apiKey: 'trawl_live_nope' })
    const unauthorized = await bad.search({ q: 'coffee' }).catch((e: unknown) => e)
    expect(unauthorized).toBeInstanceOf(UnauthorizedError)
    expect(unauthorized).toBeInstanceOf(TrawlError)
    expect(unauthorized).toMatchObject({ code: 'unauthorized', status: 401, requestId: expect.stringMatching(/^req_/), name: 'UnauthorizedError' })

    const broke = new Trawl({ baseUrl: server.base, apiKey: (await server.account({ credits: 0 })).key })
    const poor = await broke.webpage({ url: `${site.url}/article/ars` }).catch((e: unknown) => e)
    expect(poor).toBeInstanceOf(InsufficientCreditsError)
    expect(poor).toMatchObject({ code: 'insufficient_credits', status: 402 })

    const invalid = await client.search({ q: 'coffee', page: 11 }).catch((e: unknown) => e)
    expect(invalid).toBeInstanceOf(InvalidRequestError)
    expect((invalid as Error).message).toContain('page')
    expect(isTrawlError(invalid, 'invalid_request', 'not_found')).toBe(true)
    expect(isTrawlError(invalid, 'not_found')).toBe(false)

    await expect(client.getBatch('00000000-0000-4000-8000-000000000000')).rejects.toMatchObject({ code: 'not_found', status: 404 })
  })
})

/** A server that answers each request with the next scripted answer, recording when each came. */
async function scripted(answers: ((res: ServerResponse) => void)[]) {
  const hits: { at: number; method: string; url: string }[] = []
  const server = createServer((req: IncomingMessage, res) => {
    hits.push({ at: Date.now(), method: req.method ?? '', url: req.url ?? '' })
    req.resume()
    const answer = answers[Math.min(hits.length - 1, answers.length - 1)]!
    answer(res)
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return {
    base,
    hits,
    close: () => {
      server.closeAllConnections()
      return new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}

const fail =
  (status: number, code: string, retryAfter?: string) =>
  (res: ServerResponse): void => {
    const headers: Record<string, string> = { 'content-type': 'application/json', 'x-request-id': `req_${code}` }
    if (retryAfter !== undefined) headers['retry-after'] = retryAfter
    res.writeHead(status, headers).end(JSON.stringify({ error: { code, message: `${code} happened`, request_id: `req_${code}` } }))
  }
const ok = (res: ServerResponse): void => {
  res.writeHead(200, { 'content-type': 'application/json', 'x-credits-used': '1' }).end(JSON.stringify({ balance: 7 }))
}

describe('retries', () => {
  const cleanups: (() => Promise<void>)[] = []
  afterAll(async () => {
    for (const c of cleanups) await c()
  })
  async function against(answers: ((res: ServerResponse) => void)[], options: Partial<ConstructorParameters<typeof Trawl>[0]> = {}) {
    const s = await scripted(answers)
    cleanups.push(s.close)
    const attempts: number[] = []
    const c = new Trawl({ baseUrl: s.base, apiKey: 'trawl_live_x', onResponse: (i) => attempts.push(i.attempt), ...options })
    return { s, c, attempts }
  }

  test('429 rate_limited waits the Retry-After seconds, then succeeds', async () => {
    const { s, c, attempts } = await against([fail(429, 'rate_limited', '1'), ok])
    const started = Date.now()
    expect(await c.getAccount()).toEqual({ balance: 7 })
    expect(s.hits).toHaveLength(2)
    const gap = s.hits[1]!.at - s.hits[0]!.at
    expect(gap).toBeGreaterThanOrEqual(1000)
    // Retry-After plus at most 10% jitter (capped at 1 s).
    expect(gap).toBeLessThan(1000 + 100 + 250)
    expect(Date.now() - started).toBeLessThan(3000)
    expect(attempts).toEqual([0, 1])
  })

  test('503 is retried up to maxRetries times; then the last error is thrown with its retryAfter', async () => {
    const recovers = await against([fail(503, 'upstream_blocked', '0'), fail(503, 'upstream_timeout', '0'), ok])
    expect(await recovers.c.getAccount()).toEqual({ balance: 7 })
    expect(recovers.s.hits).toHaveLength(3)

    const gives = await against([fail(503, 'upstream_blocked', '0'), fail(503, 'unavailable', '0')], { maxRetries: 2 })
    const err = await gives.c.search({ q: 'x' }).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(UnavailableError)
    expect(err).toMatchObject({ code: 'unavailable', status: 503, retryAfter: 0, requestId: 'req_unavailable' })
    expect(gives.s.hits).toHaveLength(3)

    const once = await against([fail(503, 'upstream_blocked', '0'), ok], { maxRetries: 0 })
    await expect(once.c.getAccount()).rejects.toBeInstanceOf(UpstreamBlockedError)
    expect(once.s.hits).toHaveLength(1)
  })

  test('without Retry-After the wait is a jittered backoff from 250 to 500 ms', async () => {
    const { s, c } = await against([fail(503, 'unavailable'), ok])
    await c.getAccount()
    const gap = s.hits[1]!.at - s.hits[0]!.at
    expect(gap).toBeGreaterThanOrEqual(240)
    expect(gap).toBeLessThan(800)
  })

  test('429 daily_limit_reached, 4xx and 500 are not retried', async () => {
    for (const [answer, Class] of [
      [fail(429, 'daily_limit_reached', '3600'), DailyLimitReachedError],
      [fail(401, 'unauthorized'), UnauthorizedError],
      [fail(500, 'internal'), TrawlError],
    ] as const) {
      const { s, c } = await against([answer, ok])
      await expect(c.getAccount()).rejects.toBeInstanceOf(Class)
      expect(s.hits).toHaveLength(1)
    }
  })

  test('a Retry-After past the deadline or past maxRetryDelay is thrown at once, not waited for', async () => {
    const pastDeadline = await against([fail(429, 'rate_limited', '30'), ok], { timeout: 2000 })
    const started = Date.now()
    const err = await pastDeadline.c.getAccount().catch((e: unknown) => e)
    expect(err).toBeInstanceOf(RateLimitedError)
    expect(err).toMatchObject({ retryAfter: 30, status: 429 })
    expect(Date.now() - started).toBeLessThan(1000)
    expect(pastDeadline.s.hits).toHaveLength(1)

    const tooLong = await against([fail(503, 'unavailable', '120'), ok])
    await expect(tooLong.c.getAccount()).rejects.toMatchObject({ retryAfter: 120 })
    expect(tooLong.s.hits).toHaveLength(1)
  })

  test('the timeout covers the whole call; the caller’s signal stops a retry wait', async () => {
    const hangs = await against([() => {}], { timeout: 300 })
    const started = Date.now()
    const err = await hangs.c.getAccount().catch((e: unknown) => e)
    expect(err).toBeInstanceOf(TimeoutError)
    expect(err).toMatchObject({ code: 'timeout', status: 0 })
    expect(Date.now() - started).toBeLessThan(1500)

    const waiting = await against([fail(429, 'rate_limited', '5'), ok])
    const stop = new AbortController()
    setTimeout(() => stop.abort(new Error('user stopped')), 100)
    await expect(waiting.c.getAccount({ signal: stop.signal })).rejects.toThrow('user stopped')
    expect(waiting.s.hits).toHaveLength(1)
  })

  test('an answer that is not the envelope still gets a class: a gateway 502 is unavailable, not retried', async () => {
    const { s, c } = await against([(res) => res.writeHead(502, { 'content-type': 'text/html' }).end('<h1>Bad gateway</h1>'), ok])
    await expect(c.getAccount()).rejects.toMatchObject({ code: 'unavailable', status: 502 })
    expect(s.hits).toHaveLength(1)
  })
})

describe('verifyWebhook', () => {
  const body = JSON.stringify({ event: 'crawl.completed', id: 'crawl_1', status: 'completed', poll_url: 'http://127.0.0.1/v1/crawl/crawl_1' })

  test('accepts the server signer’s headers by either scheme, as Node headers or a fetch Headers', async () => {
    const secret = newWebhookSecret()
    const headers = webhookHeaders({ id: 'crawl_1', event: 'crawl.completed', secret, body })
    const trawl = await verifyWebhook(body, headers, secret)
    expect(trawl).toMatchObject({ scheme: 'trawl', id: 'crawl_1', event: 'crawl.completed', payload: { status: 'completed' } })
    expect(trawl.timestamp).toBe(Number(headers['x-trawl-timestamp']))
    const standard = await verifyWebhook(new TextEncoder().encode(body), new Headers(headers), secret, { scheme: 'standard' })
    expect(standard).toMatchObject({ scheme: 'standard', id: 'crawl_1' })

    // Only the Standard Webhooks headers: auto picks that scheme.
    const { 'webhook-id': id, 'webhook-timestamp': ts, 'webhook-signature': sig } = headers
    expect(await verifyWebhook(body, { 'Webhook-Id': id, 'Webhook-Timestamp': ts, 'Webhook-Signature': sig }, secret)).toMatchObject({
      scheme: 'standard',
    })
  })

  test('refuses a changed body, another secret, a stale or future timestamp and missing headers', async () => {
    const secret = newWebhookSecret()
    const now = Date.now()
    const headers = webhookHeaders({ id: 'job_1', event: 'batch.completed', secret, body, now })
    const refuses = async (...args: Parameters<typeof verifyWebhook>) => {
      await expect(verifyWebhook(...args)).rejects.toBeInstanceOf(WebhookVerificationError)
    }
    await refuses(`${body} `, headers, secret)
    await refuses(body, headers, newWebhookSecret())
    await refuses(`${body} `, headers, secret, { scheme: 'standard' })
    await refuses(body, headers, newWebhookSecret(), { scheme: 'standard' })
    await refuses(body, headers, secret, { now: now + 301_000 })
    await refuses(body, headers, secret, { now: now - 301_000, scheme: 'standard' })
    expect(await verifyWebhook(body, headers, secret, { now: now + 290_000 })).toMatchObject({ id: 'job_1' })
    await refuses(body, headers, secret, { now: now + 60_000, toleranceSeconds: 30 })
    await refuses(body, { 'content-type': 'application/json' }, secret)
    await refuses(body, { ...headers, 'x-trawl-signature': 'v1=zz' }, secret)
  })

  test('verifies what the standardwebhooks library signs, including a list of signatures during key rotation', async () => {
    const secret = newWebhookSecret()
    const old = newWebhookSecret()
    const at = new Date()
    const signature = new Webhook(secret).sign('msg_1', at, body)
    const headers = { 'webhook-id': 'msg_1', 'webhook-timestamp': String(Math.floor(at.getTime() / 1000)), 'webhook-signature': signature }
    expect(await verifyWebhook(body, headers, secret)).toMatchObject({ scheme: 'standard', id: 'msg_1', payload: { id: 'crawl_1' } })
    const rotated = { ...headers, 'webhook-signature': `${new Webhook(old).sign('msg_1', at, body)} ${signature}` }
    expect(await verifyWebhook(body, rotated, secret)).toMatchObject({ id: 'msg_1' })
    await expect(verifyWebhook(body, { ...headers, 'webhook-id': 'msg_2' }, secret)).rejects.toBeInstanceOf(WebhookVerificationError)
    // And the library accepts what the server signs, with the same secret string.
    const server = webhookHeaders({ id: 'msg_3', event: 'monitor.results', secret, body })
    expect(new Webhook(secret).verify(body, server)).toMatchObject({ id: 'crawl_1' })
  })
})

interface BrowserResult {
  first: string
  billing: unknown
  refused: unknown
  verified: unknown[]
  forged: string
}

/** What the page runs: the SDK imported from another origin than the API's. */
const BROWSER_SCRIPT = `
import * as sdk from '/sdk/index.js'
window.runSdk = async ({ base, key, secret, body, headers }) => {
  const billing = []
  const client = new sdk.Trawl({ baseUrl: base, apiKey: key, onResponse: (i) => billing.push(i.billing) })
  const search = await client.search({ q: 'coffee' })
  const refused = await new sdk.Trawl({ baseUrl: base, apiKey: 'trawl_live_nope' }).getAccount().catch((e) => e)
  const verified = await sdk.verifyWebhook(body, new Headers(headers), secret)
  const standard = await sdk.verifyWebhook(body, headers, secret, { scheme: 'standard' })
  const forged = await sdk.verifyWebhook(body.replace('evt_1', 'evt_2'), headers, secret).catch((e) => e.name)
  return {
    first: search.results[0].link,
    billing: billing[0],
    refused: { unauthorized: refused instanceof sdk.UnauthorizedError, base: refused instanceof sdk.TrawlError, code: refused.code, status: refused.status },
    verified: [verified.scheme, verified.id, standard.scheme],
    forged,
  }
}
`

describe('in a browser', () => {
  test.skipIf(skipWithoutChromium)('the built package runs in Chromium: a cross-origin search, a typed error and a webhook check', async () => {
    // The package as `npm run build` emits it, served from another origin than the API (CORS).
    const dist = mkdtempSync(join(tmpdir(), 'trawl-sdk-dist-'))
    const tsc = join(ROOT, 'node_modules/.bin/tsc')
    await run(tsc, ['-p', join(ROOT, 'packages/sdk/tsconfig.build.json'), '--outDir', dist, '--declaration', 'false', '--sourceMap', 'false'])
    const files = createServer(async (req, res) => {
      const name = (req.url ?? '/').replace(/^\/sdk\//, '')
      if (req.url === '/') return void res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>sdk</title>')
      if (!/^[a-z.]+\.js$/.test(name)) return void res.writeHead(404).end()
      res.writeHead(200, { 'content-type': 'text/javascript' }).end(await readFile(join(dist, name)))
    })
    files.listen(0, '127.0.0.1')
    await once(files, 'listening')
    const origin = `http://127.0.0.1:${(files.address() as AddressInfo).port}`
    const browser = await launchChromium()
    try {
      const page = await browser.newPage()
      const errors: string[] = []
      page.on('pageerror', (e) => errors.push(e.message))
      await page.goto(`${origin}/`)
      const secret = newWebhookSecret()
      const body = JSON.stringify({ event: 'webhook.test', id: 'evt_1' })
      const headers = webhookHeaders({ id: 'evt_1', event: 'webhook.test', secret, body })
      // A module script of the page (a string: vitest would rewrite the import in a function).
      await page.addScriptTag({ type: 'module', content: BROWSER_SCRIPT })
      await page.waitForFunction(() => 'runSdk' in window)
      const got = await page.evaluate((args) => (window as unknown as { runSdk: (a: unknown) => Promise<BrowserResult> }).runSdk(args), {
        base: server.base,
        key,
        secret,
        body,
        headers,
      })
      expect(got.first).toMatch(/^https?:/)
      // The billing headers are exposed to browsers by the server's CORS settings.
      expect(got.billing).toMatchObject({ creditsUsed: 1, cache: 'MISS' })
      expect(got.refused).toEqual({ unauthorized: true, base: true, code: 'unauthorized', status: 401 })
      expect(got.verified).toEqual(['trawl', 'evt_1', 'standard'])
      expect(got.forged).toBe('WebhookVerificationError')
      expect(errors).toEqual([])
    } finally {
      await browser.close()
      files.closeAllConnections()
      await new Promise<void>((resolve) => files.close(() => resolve()))
      rmSync(dist, { recursive: true, force: true })
    }
  })
})
