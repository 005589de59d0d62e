import { randomUUID } from 'node:crypto'
import { readFileSync } from 'node:fs'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest'
import { batchJobKind } from '../src/features/batches/batches.worker.ts'
import { claimDue } from '../src/jobs/jobs.store.ts'
import { appDeps, startWorkers } from '../src/services.ts'
import type { BatchJobRow } from '../src/store/schema.ts'
import { readWebhookSecret } from '../src/webhooks/webhooks.service.ts'
import { errorOf, expectBooksBalanced } from './support/books.ts'
import { article, type CrawlSite, startCrawlSite } from './support/crawl-site.ts'
import { type FakeUpstream, fakeUpstream, fixture } from './support/fake-upstream.ts'
import { createTestDatabase } from './support/postgres.ts'
import { serpRouter } from './support/serp-router.ts'
import { skipWithoutPostgres } from './support/servers.ts'
import { startTrawl, type Trawl } from './support/start-trawl.ts'
import { type ReceivedWebhook, startReceiver, verifyStandardSignature, verifyTrawlSignature, waitFor } from './support/webhook-receiver.ts'

const COFFEE = fixture('serp/google/web-desktop/zlurad-coffee.html')
const NO_RESULTS = fixture('serp/google/web-desktop/zlurad-no-results.html')
const constructed = (path: string) => readFileSync(new URL(`fixtures/google/${path}`, import.meta.url))

/**
 * Google's web search answers by query: `fail` always 500s, `flaky` 500s on its first request only,
 * `slow` answers after 400 ms, `nothing` is a no-results page, anything else the coffee page.
 */
let flakyHits = 0
const verticals = serpRouter([
  {
    host: 'news.google.com',
    path: '/rss/search',
    body: constructed('news/news-rss-ai-regulation.constructed.xml'),
    type: 'application/rss+xml; charset=utf-8',
  },
  {
    host: 'www.google.com',
    path: '/complete/search',
    body: constructed('autocomplete/autocomplete-firefox-cafe-fr.constructed.json'),
    type: 'text/javascript; charset=UTF-8',
  },
])
function engines(req: IncomingMessage, res: ServerResponse) {
  const url = new URL(req.url ?? '/', 'http://x')
  const host = req.headers['x-forwarded-host']
  if (host !== 'www.google.com' || url.pathname !== '/search') return verticals(req, res)
  const q = url.searchParams.get('q') ?? ''
  const html = (body: Buffer | string, status = 200) => res.writeHead(status, { 'content-type': 'text/html; charset=utf-8' }).end(body)
  if (q.includes('fail')) return html('upstream down', 500)
  if (q.includes('flaky') && flakyHits++ === 0) return html('upstream down', 500)
  if (q.includes('slow')) return void setTimeout(() => html(q.includes('nothing') ? NO_RESULTS : COFFEE), 400)
  if (q.includes('nothing')) return html(NO_RESULTS)
  return html(COFFEE)
}

const ENV = {
  // The slow page (400 ms) fits in the first route's share of the deadline (half of it while other routes wait).
  TRAWL_UPSTREAM_TIMEOUT_MS: '2000',
  TRAWL_ALLOW_PRIVATE_NETWORK: 'true',
  TRAWL_SCHEDULER_POLL_MS: '100',
  TRAWL_WEBHOOK_RETRY_BASE_MS: '10',
}

let upstream: FakeUpstream
let site: CrawlSite
beforeAll(async () => {
  upstream = await fakeUpstream(engines)
  site = await startCrawlSite()
  site.set('/article', { status: 200, type: 'text/html', body: article('Batch reading') })
})
afterAll(async () => {
  await upstream.close()
  await site.close()
})

const cleanups: (() => Promise<unknown> | unknown)[] = []
afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn()
})

const call = (t: Trawl, key: string, method: string, path: string, body?: unknown) =>
  fetch(`${t.base}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    body: body !== undefined ? JSON.stringify(body) : undefined,
  })

interface JobView {
  id: string
  status: string
  endpoint: string
  created_at: string
  completed_at: string | null
  credits_used: number
  poll_url: string
  webhook_url: string | null
  webhook_status: string | null
  error: { code: string; message: string } | null
  result: any
}
type Entry = JobView | { error: { code: string; message: string; request_id: string } }
const isJob = (e: Entry): e is JobView => 'id' in e

async function postBatch(t: Trawl, key: string, body: unknown) {
  const res = await call(t, key, 'POST', '/v1/batches', body)
  const text = await res.text()
  expect(res.status, text.slice(0, 300)).toBe(202)
  return { res, batches: (JSON.parse(text) as { batches: Entry[] }).batches }
}

/** Polls GET /v1/batches/{id} until the job has ended. */
async function finished(t: Trawl, key: string, id: string, timeoutMs = 20_000): Promise<JobView> {
  return waitFor(async () => {
    const job = (await (await call(t, key, 'GET', `/v1/batches/${id}`)).json()) as JobView
    return job.status === 'done' || job.status === 'failed' ? job : null
  }, timeoutMs)
}

const withoutMeta = ({ meta: _meta, ...body }: Record<string, unknown>) => body
const activeRows = (t: Trawl, accountId: string) => t.services.store.db.selectFrom('batch_jobs').selectAll().where('account_id', '=', accountId).execute()
const secretOf = async (t: Trawl, accountId: string) => (await readWebhookSecret(t.services.store, accountId))!

async function withWebhook(t: Trawl, accountId: string, url: string) {
  expect((await t.admin('PATCH', `/admin/v1/accounts/${accountId}`, { webhook_url: url })).status).toBe(200)
  return secretOf(t, accountId)
}

async function receiver(answer?: Parameters<typeof startReceiver>[0]) {
  const r = await startReceiver(answer)
  cleanups.push(() => r.close())
  return r
}

function expectSigned(secret: string, hit: ReceivedWebhook, jobId: string) {
  expect(hit.headers).toMatchObject({
    'content-type': 'application/json',
    'x-trawl-event': 'batch.completed',
    'x-trawl-delivery': jobId,
    'webhook-id': jobId,
  })
  expect(verifyTrawlSignature(secret, hit)).toBe(true)
  expect(verifyStandardSignature(secret, hit)).toBe(true)
}

describe('batches run by the workers', () => {
  let trawl: Trawl
  beforeAll(async () => {
    trawl = await startTrawl({ ...ENV, TRAWL_UPSTREAM_HOSTS: `*=${upstream.url}` }, { workers: true })
  })
  afterAll(() => trawl.close())

  test('mixed entries: invalid ones are the realtime error in place, valid ones run at half price with the realtime body as result', async () => {
    const hooks = await receiver()
    const { id: accountId, key } = await trawl.account({ plan: 'pro', credits: 100 })
    const secret = await withWebhook(trawl, accountId, hooks.url)
    const realtime = (await trawl.account({ plan: 'enterprise', rate_limit_rps: 1000, credits: 1000 })).key

    const requests: unknown[] = [
      { q: 'coffee' },
      { q: 'coffee', page: 11 },
      { q: 'coffee', num: 100 },
      'coffee',
      { q: 'coffee', tbm: 'isch' },
      { q: 'coffee', format: 'markdown' },
      { q: 'coffee', format: 'markdown', fields: 'results.title' },
      { q: 'coffee', engine: 'altavista' },
      { q: 'coffee', fields: 'results.title,results.link' },
      { q: 'nothing at all' },
      { q: 'coffee', webhook_url: hooks.url },
      { q: 'coffee', format: 'compact', api_key: 'ignored as on the realtime endpoint' },
    ]
    const { res, batches } = await postBatch(trawl, key, { endpoint: 'search', requests })
    expect(batches).toHaveLength(requests.length)
    // 0.5 + 3.5 (the num=100 bundle) + 0.5 + 0.5 + 0.5 + 0.5
    expect(res.headers.get('x-credits-used')).toBe('6')
    expect(res.headers.get('x-credits-remaining')).toBe('94')
    const requestId = res.headers.get('x-request-id')

    const invalid = [1, 3, 4, 6, 7, 10]
    for (const [i, entry] of batches.entries()) {
      if (!invalid.includes(i)) {
        expect(isJob(entry), `entry ${i}`).toBe(true)
        continue
      }
      expect(entry).toEqual({ error: { code: 'invalid_request', message: expect.any(String), request_id: requestId } })
      const request = requests[i]
      if (typeof request !== 'object' || i === 10) continue
      // Exactly what the realtime endpoint answers for the same body.
      const live = await errorOf(await call(trawl, realtime, 'POST', '/v1/search', request))
      expect(live.status).toBe(400)
      expect((entry as { error: { message: string } }).error.message).toBe(live.message)
    }
    expect((batches[3] as { error: { message: string } }).error.message).toMatch(/JSON object/)
    expect((batches[10] as { error: { message: string } }).error.message).toMatch(/webhook_url is set once for the whole batch/)

    const jobs = batches.filter(isJob)
    for (const job of jobs) {
      expect(job).toMatchObject({
        status: 'queued',
        endpoint: '/v1/search',
        completed_at: null,
        poll_url: `${trawl.services.config.baseUrl}/v1/batches/${job.id}`,
        webhook_url: null,
        webhook_status: null,
        error: null,
        result: null,
      })
      expect(job.id).toMatch(/^[0-9a-f-]{36}$/)
    }
    expect(jobs.map((j) => j.credits_used)).toEqual([0.5, 3.5, 0.5, 0.5, 0.5, 0.5])

    const done = await Promise.all(jobs.map((j) => finished(trawl, key, j.id)))
    expect(done.map((j) => j.status)).toEqual(['done', 'done', 'done', 'done', 'done', 'done'])
    // Charged half the realtime price of what came back; the empty search is free.
    expect(done.map((j) => j.credits_used)).toEqual([0.5, 3.5, 0.5, 0.5, 0, 0.5])
    const [plain, deep, markdown, fields, empty, compact] = done as [JobView, JobView, JobView, JobView, JobView, JobView]

    const live = await (await call(trawl, realtime, 'POST', '/v1/search', { q: 'coffee' })).json()
    expect(withoutMeta(plain.result)).toEqual(withoutMeta(live))
    expect(plain.result.meta).toMatchObject({ engine: 'google', parse_quality: 'ok', credits_used: 0.5, cached: false })
    expect(plain.result.meta.request_id).toMatch(new RegExp(`^${requestId}_0$`))
    expect(deep.result.results).toHaveLength(95)
    expect(deep.result.meta.credits_used).toBe(3.5)
    const liveMarkdown = await (await call(trawl, realtime, 'POST', '/v1/search', { q: 'coffee', format: 'markdown' })).text()
    expect(typeof markdown.result).toBe('string')
    expect(markdown.result.split('\n').slice(0, 5)).toEqual(liveMarkdown.split('\n').slice(0, 5))
    const liveFields = await (await call(trawl, realtime, 'POST', '/v1/search', { q: 'coffee', fields: 'results.title,results.link' })).json()
    expect(withoutMeta(fields.result)).toEqual(withoutMeta(liveFields))
    expect(Object.keys(fields.result.results[0])).toEqual(['title', 'link'])
    expect(empty.result.results).toEqual([])
    expect(empty.result.meta).toMatchObject({ parse_quality: 'empty', credits_used: 0 })
    const liveCompact = await (await call(trawl, realtime, 'POST', '/v1/search', { q: 'coffee', format: 'compact' })).json()
    expect(withoutMeta(compact.result)).toEqual(withoutMeta(liveCompact))
    for (const job of done) expect(new Date(job.completed_at!).getTime()).toBeGreaterThanOrEqual(new Date(job.created_at).getTime())

    // 100 - 6 charged + 0.5 refunded for the empty search
    expect(await expectBooksBalanced(trawl, accountId)).toBe(94.5)

    // One signed batch.completed per job, to the account webhook, then webhook_status delivered.
    await waitFor(() => hooks.hits.length >= jobs.length)
    expect(hooks.hits).toHaveLength(jobs.length)
    for (const job of done) {
      const hit = hooks.hits.find((h) => h.headers['x-trawl-delivery'] === job.id)!
      expectSigned(secret, hit, job.id)
      const body = JSON.parse(hit.body)
      expect(Object.keys(body).sort()).toEqual(['completed_at', 'created_at', 'credits_used', 'endpoint', 'event', 'id', 'result', 'status'])
      expect(body).toEqual({
        event: 'batch.completed',
        id: job.id,
        status: 'done',
        endpoint: '/v1/search',
        created_at: job.created_at,
        completed_at: job.completed_at,
        credits_used: job.credits_used,
        result: job.result,
      })
    }
    await waitFor(async () => (await finished(trawl, key, plain.id)).webhook_status === 'delivered')
  })

  test('news, autocomplete and webpage batches: each endpoint’s own rules, prices and bodies', async () => {
    const { id: accountId, key } = await trawl.account({ plan: 'pro', credits: 10 })
    const news = await postBatch(trawl, key, {
      endpoint: 'news',
      requests: [{ q: 'ai regulation', include_content: 1 }, { q: 'ai regulation' }, { q: 'ai regulation', engine: 'consensus' }],
    })
    expect(news.batches[0]).toMatchObject({ error: { code: 'invalid_request', message: 'include_content is only supported on /v1/search' } })
    expect(news.batches[2]).toMatchObject({ error: { code: 'invalid_request', message: 'engine consensus is only supported on /v1/search' } })
    expect(news.res.headers.get('x-credits-used')).toBe('0.5')

    const auto = await postBatch(trawl, key, {
      endpoint: 'autocomplete',
      requests: [
        { q: 'caf', country: 'fr', language: 'fr' },
        { q: 'caf', fields: 'results.value' },
      ],
    })
    const realtime = await errorOf(await call(trawl, key, 'POST', '/v1/autocomplete', { q: 'caf', fields: 'results.value' }))
    expect(auto.batches[1]).toMatchObject({ error: { code: 'invalid_request', message: realtime.message } })
    expect(realtime.message).toMatch(/^unknown parameter fields/)
    expect(auto.res.headers.get('x-credits-used')).toBe('0.25')

    const pages = await postBatch(trawl, key, {
      endpoint: 'webpage',
      requests: [{ url: `${site.url}/article` }, { urls: [`${site.url}/article`] }, { url: 'not a url' }, { url: `${site.url}/article`, country: 'de' }],
    })
    expect(pages.batches.map((e) => ('id' in e ? 'job' : e.error.code))).toEqual(['job', 'invalid_request', 'invalid_request', 'invalid_request'])
    expect((pages.batches[1] as { error: { message: string } }).error.message).toMatch(/^unknown parameter urls: use url/)
    expect(pages.res.headers.get('x-credits-used')).toBe('0.5')

    const newsJob = await finished(trawl, key, (news.batches[1] as JobView).id)
    expect(newsJob).toMatchObject({ status: 'done', endpoint: '/v1/news', credits_used: 0.5 })
    expect(newsJob.result.request).toMatchObject({ endpoint: 'news', q: 'ai regulation' })
    expect(newsJob.result.results.length).toBeGreaterThan(0)
    const autoJob = await finished(trawl, key, (auto.batches[0] as JobView).id)
    expect(autoJob).toMatchObject({ status: 'done', endpoint: '/v1/autocomplete', credits_used: 0.25 })
    expect(autoJob.result.results[0]).toHaveProperty('value')
    const pageJob = await finished(trawl, key, (pages.batches[0] as JobView).id)
    expect(pageJob).toMatchObject({ status: 'done', endpoint: '/v1/webpage', credits_used: 0.5, webhook_status: null })
    expect(pageJob.result.markdown).toContain('Batch reading paragraph 1')
    expect(pageJob.result.meta).toMatchObject({ credits_used: 0.5 })
    expect(await expectBooksBalanced(trawl, accountId)).toBe(8.75)
  })

  test('webhook_status: pending while the receiver has not answered, then delivered; the batch webhook_url wins over the account one', async () => {
    let release: () => void = () => {}
    const held = new Promise<void>((r) => {
      release = r
    })
    const own = await receiver(async (_n, res) => {
      await held
      res.writeHead(200).end('ok')
    })
    const account = await receiver()
    const { id: accountId, key } = await trawl.account({ plan: 'pro', credits: 10 })
    const secret = await withWebhook(trawl, accountId, account.url)
    const { batches } = await postBatch(trawl, key, { endpoint: 'search', requests: [{ q: 'coffee' }], webhook_url: own.url })
    const job = batches[0] as JobView
    expect(job.webhook_url).toBe(own.url)
    const pending = await waitFor(async () => {
      const view = await finished(trawl, key, job.id)
      return view.webhook_status === 'pending' && own.hits.length === 1 ? view : null
    })
    expect(pending.status).toBe('done')
    release()
    await waitFor(async () => (await finished(trawl, key, job.id)).webhook_status === 'delivered')
    expect(own.hits).toHaveLength(1)
    expectSigned(secret, own.hits[0]!, job.id)
    expect(account.hits).toHaveLength(0)
  })

  test('webhook_status becomes failed after 8 attempts; the result stays available by polling', async () => {
    const down = await receiver((_n, res) => res.writeHead(500).end('down'))
    const { id: accountId, key } = await trawl.account({ plan: 'pro', credits: 10 })
    const secret = await withWebhook(trawl, accountId, down.url)
    const { batches } = await postBatch(trawl, key, { endpoint: 'search', requests: [{ q: 'coffee' }] })
    const id = (batches[0] as JobView).id
    const view = await waitFor(async () => {
      const v = await finished(trawl, key, id)
      return v.webhook_status === 'failed' ? v : null
    }, 20_000)
    expect(down.hits).toHaveLength(8)
    for (const hit of down.hits) expectSigned(secret, hit, id)
    expect(view).toMatchObject({ status: 'done', credits_used: 0.5 })
    expect(view.result.results).toHaveLength(10)
  })

  test('a batch whose every job was refunded whole is no request in GET /v1/account; one that used credits is one request', async () => {
    const { id: accountId, key } = await trawl.account({ plan: 'pro', credits: 10 })
    const month = async () => ((await (await call(trawl, key, 'GET', '/v1/account')).json()) as { month: unknown }).month
    // No-results pages cost nothing: each job is refunded its whole half-price charge.
    const empty = await postBatch(trawl, key, { endpoint: 'search', requests: [{ q: 'nothing a' }, { q: 'nothing b' }, { q: 'nothing c' }] })
    for (const job of empty.batches as JobView[]) expect(await finished(trawl, key, job.id)).toMatchObject({ status: 'done', credits_used: 0 })
    expect(await month()).toEqual({ credits: 0, requests: 0 })
    const mixed = await postBatch(trawl, key, { endpoint: 'search', requests: [{ q: 'nothing d' }, { q: 'coffee' }] })
    for (const job of mixed.batches as JobView[]) await finished(trawl, key, job.id)
    expect(await month()).toEqual({ credits: 0.5, requests: 1 })
    expect(await expectBooksBalanced(trawl, accountId)).toBe(9.5)
  })

  test('an upstream failure is retried, then the job fails with its error, fully refunded, and the webhook carries the error', async () => {
    const hooks = await receiver()
    const { id: accountId, key } = await trawl.account({ plan: 'pro', credits: 10 })
    const secret = await withWebhook(trawl, accountId, hooks.url)
    flakyHits = 0
    const { batches } = await postBatch(trawl, key, { endpoint: 'search', requests: [{ q: 'fail' }, { q: 'flaky' }] })
    const [failing, flaky] = batches as [JobView, JobView]
    const db = trawl.services.store.db
    // The job's own backoff is seconds long: make retries due now instead of waiting.
    const hurry = setInterval(() => {
      void db.updateTable('batch_jobs').set({ run_at: 0 }).where('account_id', '=', accountId).where('status', '=', 'queued').execute()
    }, 50)
    try {
      const failed = await finished(trawl, key, failing.id)
      expect(failed).toMatchObject({ status: 'failed', credits_used: 0, result: null, error: { code: expect.stringMatching(/^upstream_/) } })
      const row = await db.selectFrom('batch_jobs').selectAll().where('id', '=', failing.id).executeTakeFirstOrThrow()
      expect(row.attempts).toBe(3)
      const recovered = await finished(trawl, key, flaky.id)
      expect(recovered).toMatchObject({ status: 'done', credits_used: 0.5 })
      expect(recovered.result.results).toHaveLength(10)
    } finally {
      clearInterval(hurry)
    }
    expect(await expectBooksBalanced(trawl, accountId)).toBe(9.5)
    await waitFor(() => hooks.hits.length >= 2)
    const hit = hooks.hits.find((h) => h.headers['x-trawl-delivery'] === failing.id)!
    expectSigned(secret, hit, failing.id)
    const body = JSON.parse(hit.body)
    expect(body).toMatchObject({
      event: 'batch.completed',
      id: failing.id,
      status: 'failed',
      credits_used: 0,
      error: { code: expect.stringMatching(/^upstream_/) },
    })
    expect(body).not.toHaveProperty('result')
  })
})

describe('queueing rules (no worker running: jobs stay queued)', () => {
  let api: Trawl
  beforeAll(async () => {
    api = await startTrawl({ ...ENV, TRAWL_UPSTREAM_HOSTS: `*=${upstream.url}` })
  })
  afterAll(() => api.close())

  test('whole-call errors are one error with the matching status, and queue or charge nothing', async () => {
    const { id: accountId, key } = await api.account({ plan: 'pro', credits: 100 })
    const many = Array.from({ length: 101 }, () => ({ q: 'coffee' }))
    const cases: [unknown, string][] = [
      [{ requests: [{ q: 'x' }] }, 'endpoint is required'],
      [
        { endpoint: 'rank', requests: [{ q: 'x' }] },
        'endpoint must be one of search, images, videos, news, maps, places, reviews, shopping, scholar, patents, autocomplete, lens, webpage',
      ],
      [{ endpoint: 'search' }, 'requests is required'],
      [{ endpoint: 'search', requests: { q: 'x' } }, 'requests must be an array of 1 to 100 request objects'],
      [{ endpoint: 'search', requests: [] }, 'requests must be an array of 1 to 100 request objects'],
      [{ endpoint: 'search', requests: many }, 'requests may hold at most 100 requests per batch; send more with several batches'],
      [{ endpoint: 'search', requests: [{ q: 'x' }], webhook_url: 'ftp://example.test' }, 'webhook_url must be an http(s) URL'],
      [{ endpoint: 'search', requests: [{ q: 'x' }], priority: 'high' }, expect.stringMatching(/^unknown parameter priority/) as unknown as string],
      [[{ endpoint: 'search', requests: [{ q: 'x' }] }], expect.stringMatching(/not an array/) as unknown as string],
    ]
    for (const [body, message] of cases) {
      const res = await call(api, key, 'POST', '/v1/batches', body)
      expect(await errorOf(res), JSON.stringify(body).slice(0, 80)).toMatchObject({ status: 400, code: 'invalid_request', message })
      expect(res.headers.get('x-credits-used')).toBe('0')
    }
    const unauthorized = await call(api, 'trawl_live_0000000000000000000000000000000000', 'POST', '/v1/batches', { endpoint: 'search', requests: [{ q: 'x' }] })
    expect(await errorOf(unauthorized)).toMatchObject({ status: 401, code: 'unauthorized' })
    expect(await activeRows(api, accountId)).toEqual([])
    expect(await expectBooksBalanced(api, accountId)).toBe(100)
  })

  test('each queued job is charged half its realtime hold: the num=100 bundle 3.5, include_content pages at half, consensus per provider', async () => {
    const { id: accountId, key } = await api.account({ plan: 'pro', credits: 100 })
    const { res, batches } = await postBatch(api, key, {
      endpoint: 'search',
      requests: [{ q: 'a' }, { q: 'a', num: 100 }, { q: 'a', num: 30 }, { q: 'a', include_content: 2 }, { q: 'a', engine: 'consensus' }],
    })
    const used = batches.map((b) => (b as JobView).credits_used)
    expect(used.slice(0, 4)).toEqual([0.5, 3.5, 1.5, 1.5])
    expect(used[4]! % 0.5).toBe(0)
    expect(used[4]!).toBeGreaterThanOrEqual(1)
    const total = used.reduce((a, b) => a + b, 0)
    expect(Number(res.headers.get('x-credits-used'))).toBe(total)
    expect(await expectBooksBalanced(api, accountId)).toBe(100 - total)
    // One ledger row for the call; one request counted for it.
    const ledger = await api.services.store.db.selectFrom('ledger').selectAll().where('account_id', '=', accountId).where('kind', '=', 'charge').execute()
    expect(ledger).toHaveLength(1)
    expect(ledger[0]).toMatchObject({ endpoint: '/v1/batches', request_id: res.headers.get('x-request-id'), amount_mc: -total * 1000 })
    const account = await (await call(api, key, 'GET', '/v1/account')).json()
    expect(account.month).toEqual({ credits: total, requests: 1 })
  })

  test('a batch the balance, key limit or spend cap cannot cover is refused whole: nothing queued or charged', async () => {
    const { id: accountId, key } = await api.account({ plan: 'pro', credits: 1 })
    const three = { endpoint: 'search', requests: [{ q: 'a' }, { q: 'b' }, { q: 'c' }] }
    const poor = await errorOf(await call(api, key, 'POST', '/v1/batches', three))
    expect(poor).toMatchObject({
      status: 402,
      code: 'insufficient_credits',
      message: expect.stringMatching(/costs 1.5 \(a batch of 3 jobs at half the realtime price\); nothing was queued$/),
    })
    expect(await activeRows(api, accountId)).toEqual([])
    expect(await expectBooksBalanced(api, accountId)).toBe(1)
    // Invalid entries cost nothing, so this batch fits exactly.
    const fits = await postBatch(api, key, { endpoint: 'search', requests: [{ q: 'a' }, { q: 'b', page: 0 }, { q: 'c' }] })
    expect(fits.res.headers.get('x-credits-remaining')).toBe('0')
    expect(await expectBooksBalanced(api, accountId)).toBe(0)

    const limited = await api.account({ plan: 'pro', credits: 100 })
    const keyRes = await api.admin('POST', `/admin/v1/accounts/${limited.id}/keys`, { name: 'capped', credit_limit: 1 })
    const capped = (await keyRes.json()) as { secret?: string; key?: { secret: string } }
    const cappedKey = capped.secret ?? capped.key!.secret
    expect(await errorOf(await call(api, cappedKey, 'POST', '/v1/batches', three))).toMatchObject({ status: 403, code: 'key_limit_reached' })
    const capAccount = await api.account({ plan: 'pro', credits: 100, monthly_spend_cap: 1 })
    expect(await errorOf(await call(api, capAccount.key, 'POST', '/v1/batches', three))).toMatchObject({ status: 403, code: 'spend_cap_reached' })
    for (const a of [limited, capAccount]) {
      expect(await activeRows(api, a.id)).toEqual([])
      expect(await expectBooksBalanced(api, a.id)).toBe(100)
    }
  })

  test('at most 10,000 queued or running jobs per account: beyond, 429 rate_limited with Retry-After and nothing queued', async () => {
    const { id: accountId, key } = await api.account({ plan: 'pro', credits: 1000 })
    const db = api.services.store.db
    const { batches } = await postBatch(api, key, { endpoint: 'search', requests: [{ q: 'seed' }] })
    const seed = await db
      .selectFrom('batch_jobs')
      .selectAll()
      .where('id', '=', (batches[0] as JobView).id)
      .executeTakeFirstOrThrow()
    // 9,950 more, written directly (the cap counts rows, not how they came).
    const filler: BatchJobRow[] = Array.from({ length: 9949 }, (_, i) => ({ ...seed, id: randomUUID(), status: i < 100 ? 'running' : 'queued' }))
    for (let i = 0; i < filler.length; i += 500)
      await db
        .insertInto('batch_jobs')
        .values(filler.slice(i, i + 500))
        .execute()
    const before = await expectBooksBalanced(api, accountId)

    const hundred = { endpoint: 'search', requests: Array.from({ length: 100 }, (_, i) => ({ q: `q${i}` })) }
    const over = await call(api, key, 'POST', '/v1/batches', hundred)
    expect(await errorOf(over)).toMatchObject({ status: 429, code: 'rate_limited', message: expect.stringMatching(/10,000/) })
    expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(0)
    expect(over.headers.get('x-credits-used')).toBe('0')
    expect(await expectBooksBalanced(api, accountId)).toBe(before)
    expect(await activeRows(api, accountId)).toHaveLength(9950)

    await postBatch(api, key, { endpoint: 'search', requests: Array.from({ length: 50 }, (_, i) => ({ q: `q${i}` })) })
    expect((await call(api, key, 'POST', '/v1/batches', { endpoint: 'search', requests: [{ q: 'one more' }] })).status).toBe(429)
    // Finished jobs do not count.
    await db.updateTable('batch_jobs').set({ status: 'done' }).where('id', '=', seed.id).execute()
    await postBatch(api, key, { endpoint: 'search', requests: [{ q: 'one more' }] })
    expect((await call(api, key, 'POST', '/v1/batches', { endpoint: 'search', requests: [{ q: 'and another' }] })).status).toBe(429)
    await db.deleteFrom('batch_jobs').where('account_id', '=', accountId).execute()
  })

  test('a batch counts once for the rate limit, however many requests it holds', async () => {
    const { id: accountId, key } = await api.account({ plan: 'free', credits: 1000 })
    const hundred = { endpoint: 'search', requests: Array.from({ length: 100 }, (_, i) => ({ q: `q${i}` })) }
    // Free is 5 per second: five batches of 100 are five requests, not 500.
    for (let i = 0; i < 5; i++) expect((await call(api, key, 'POST', '/v1/batches', hundred)).status).toBe(202)
    const burst = await Promise.all(Array.from({ length: 20 }, () => call(api, key, 'POST', '/v1/batches', hundred)))
    const limited = burst.filter((r) => r.status === 429)
    expect(limited.length).toBeGreaterThan(0)
    expect((await limited[0]!.json()).error.code).toBe('rate_limited')
    const accepted = 5 + burst.filter((r) => r.status === 202).length
    expect(await activeRows(api, accountId)).toHaveLength(accepted * 100)
    expect(await expectBooksBalanced(api, accountId)).toBe(1000 - accepted * 50)
    await api.services.store.db.deleteFrom('batch_jobs').where('account_id', '=', accountId).execute()
  })

  test('GET is free and 404 not_found for a missing job, another account’s, or one past its 24 hours', async () => {
    const a = await api.account({ plan: 'free', credits: 10 })
    const b = await api.account({ plan: 'free', credits: 10 })
    const { batches } = await postBatch(api, a.key, { endpoint: 'search', requests: [{ q: 'x' }, { q: 'y' }] })
    const [first, second] = batches as [JobView, JobView]
    // Free of the rate limit: far more than 5 polls a second pass.
    const polls = await Promise.all(Array.from({ length: 20 }, () => call(api, a.key, 'GET', `/v1/batches/${first.id}`)))
    expect(polls.every((r) => r.status === 200)).toBe(true)
    expect(await polls[0]!.json()).toMatchObject({ id: first.id, status: 'queued', credits_used: 0.5, result: null })
    expect(polls[0]!.headers.get('x-credits-used')).toBeNull()

    expect(await errorOf(await call(api, a.key, 'GET', `/v1/batches/${randomUUID()}`))).toMatchObject({ status: 404, code: 'not_found' })
    expect(await errorOf(await call(api, b.key, 'GET', `/v1/batches/${first.id}`))).toMatchObject({ status: 404, code: 'not_found' })
    const db = api.services.store.db
    const now = Date.now()
    await db
      .updateTable('batch_jobs')
      .set({ status: 'done', completed_at: now - 25 * 3600_000, expires_at: now - 3600_000, result: '{}' })
      .where('id', '=', second.id)
      .execute()
    expect(await errorOf(await call(api, a.key, 'GET', `/v1/batches/${second.id}`))).toMatchObject({ status: 404, code: 'not_found' })
    // The maintenance sweep removes it.
    const { pruneExpiredBatchJobs } = await import('../src/features/batches/batches.store.ts')
    expect(await pruneExpiredBatchJobs(db, Date.now())).toBeGreaterThanOrEqual(1)
    expect(await db.selectFrom('batch_jobs').select('id').where('id', '=', second.id).executeTakeFirst()).toBeUndefined()
  })

  test('the OpenAPI document describes both routes', async () => {
    const doc = await (await fetch(`${api.base}/v1/openapi.json`)).json()
    expect(doc.paths['/v1/batches'].post.responses['202']).toBeDefined()
    expect(doc.paths['/v1/batches/{id}'].get.responses['200']).toBeDefined()
    expect((await fetch(`${api.base}/docs`)).status).toBe(200)
  })
})

test('a job whose key was revoked after queueing fails with unauthorized and is refunded', async () => {
  const t = await startTrawl({ ...ENV, TRAWL_UPSTREAM_HOSTS: `*=${upstream.url}` })
  cleanups.push(() => t.close())
  const { id: accountId, key } = await t.account({ plan: 'pro', credits: 10 })
  const { batches } = await postBatch(t, key, { endpoint: 'search', requests: [{ q: 'coffee' }, { q: 'coffee', num: 100 }] })
  const db = t.services.store.db
  await db.updateTable('api_keys').set({ revoked_at: Date.now() }).where('account_id', '=', accountId).execute()
  const workers = startWorkers(t.services, t.app.log)
  cleanups.push(() => workers.stop())
  const views = await Promise.all(
    batches.map((b) =>
      waitFor(async () => {
        const row = await db
          .selectFrom('batch_jobs')
          .selectAll()
          .where('id', '=', (b as JobView).id)
          .executeTakeFirstOrThrow()
        return row.status === 'failed' ? row : null
      }),
    ),
  )
  for (const row of views) {
    expect(JSON.parse(row.error!)).toEqual({ code: 'unauthorized', message: 'the API key that queued this work was revoked' })
    expect(row.credits_used_mc).toBe(0)
  }
  expect(await expectBooksBalanced(t, accountId)).toBe(10)
})

describe('leases: a job is finished and billed once, whoever runs it', () => {
  test('a job left running by a killed worker is claimed again once its lease lapses, and billed once', async () => {
    const t = await startTrawl({ ...ENV, TRAWL_UPSTREAM_HOSTS: `*=${upstream.url}` })
    cleanups.push(() => t.close())
    const { id: accountId, key } = await t.account({ plan: 'pro', credits: 10 })
    const { batches } = await postBatch(t, key, { endpoint: 'search', requests: [{ q: 'coffee' }, { q: 'nothing' }] })
    const db = t.services.store.db
    // What a worker killed mid-job leaves: running rows with a lapsed lease.
    await db
      .updateTable('batch_jobs')
      .set({ status: 'running', lease_owner: 'killed-worker', lease_expires_at: Date.now() - 1, attempts: 1 })
      .execute()
    const workers = startWorkers(t.services, t.app.log)
    cleanups.push(() => workers.stop())
    const [found, empty] = await Promise.all(batches.map((b) => finished(t, key, (b as JobView).id)))
    expect(found).toMatchObject({ status: 'done', credits_used: 0.5 })
    expect(empty).toMatchObject({ status: 'done', credits_used: 0 })
    expect(await expectBooksBalanced(t, accountId)).toBe(9.5)
  })

  test('a worker that lost its lease mid-lookup cannot finish, refund or send the webhook; the new owner does, once', async () => {
    const hooks = await receiver()
    const t = await startTrawl({ ...ENV, TRAWL_UPSTREAM_HOSTS: `*=${upstream.url}` })
    cleanups.push(() => t.close())
    const { id: accountId, key } = await t.account({ plan: 'pro', credits: 10 })
    await withWebhook(t, accountId, hooks.url)
    const { batches } = await postBatch(t, key, { endpoint: 'search', requests: [{ q: 'slow nothing' }] })
    const id = (batches[0] as JobView).id
    const store = t.services.store
    const kind = batchJobKind(appDeps(t.services, t.app.log))
    expect(await claimDue(store, 'batch_jobs', { workerId: 'stale', leaseMs: 60_000, limit: 1 })).toEqual([id])
    const seen = upstream.seen.length
    const stale = kind.run(id, { workerId: 'stale', interrupted: () => false })
    await waitFor(() => upstream.seen.length > seen)
    // Its lease lapsed and another worker took the job while the lookup was in flight.
    await store.db
      .updateTable('batch_jobs')
      .set({ lease_owner: 'fresh', lease_expires_at: Date.now() + 60_000 })
      .where('id', '=', id)
      .execute()
    await stale
    const row = await store.db.selectFrom('batch_jobs').selectAll().where('id', '=', id).executeTakeFirstOrThrow()
    expect(row).toMatchObject({ status: 'running', lease_owner: 'fresh', credits_used_mc: 0, webhook_delivery_id: null })
    expect(await store.db.selectFrom('ledger').selectAll().where('account_id', '=', accountId).where('kind', '=', 'refund').execute()).toEqual([])

    await kind.run(id, { workerId: 'fresh', interrupted: () => false })
    expect(await finished(t, key, id)).toMatchObject({ status: 'done', credits_used: 0, webhook_status: 'pending' })
    expect(await store.db.selectFrom('ledger').selectAll().where('account_id', '=', accountId).where('kind', '=', 'refund').execute()).toHaveLength(1)
    expect(await expectBooksBalanced(t, accountId)).toBe(10)
    // A second end by the stale worker changes nothing.
    await kind.run(id, { workerId: 'stale', interrupted: () => false })
    expect(await expectBooksBalanced(t, accountId)).toBe(10)
  })
})

describe.skipIf(skipWithoutPostgres)('batches on PostgreSQL', () => {
  test('a batch whose jobs end in two processes at once and are all refunded whole is no request in GET /v1/account', async () => {
    const db = await createTestDatabase()
    cleanups.push(() => db.drop())
    const env = { ...ENV, TRAWL_UPSTREAM_HOSTS: `*=${upstream.url}`, TRAWL_DATABASE_URL: db.url }
    const a = await startTrawl(env, { workers: true })
    cleanups.push(() => a.close())
    const b = await startTrawl(env, { workers: true })
    cleanups.push(() => b.close())
    const { id: accountId, key } = await a.account({ plan: 'pro', credits: 100 })
    const month = async () => ((await (await call(b, key, 'GET', '/v1/account')).json()) as { month: unknown }).month
    for (let round = 0; round < 3; round++) {
      const { batches } = await postBatch(a, key, { endpoint: 'search', requests: Array.from({ length: 10 }, (_, i) => ({ q: `nothing ${round} ${i}` })) })
      for (const job of batches as JobView[]) expect(await finished(a, key, job.id)).toMatchObject({ status: 'done', credits_used: 0 })
    }
    const used = await postBatch(b, key, { endpoint: 'search', requests: [{ q: 'nothing used' }, { q: 'coffee used' }] })
    for (const job of used.batches as JobView[]) await finished(b, key, job.id)
    expect(await month()).toEqual({ credits: 0.5, requests: 1 })
    expect(await expectBooksBalanced(a, accountId)).toBe(99.5)
    // 32 jobs through two servers on PostgreSQL: under a second alone, far longer inside a loaded full run.
  }, 120_000)

  test('two worker processes share the queue: every job runs and is billed once, one webhook each', async () => {
    const hooks = await receiver()
    const db = await createTestDatabase()
    cleanups.push(() => db.drop())
    const env = { ...ENV, TRAWL_UPSTREAM_HOSTS: `*=${upstream.url}`, TRAWL_DATABASE_URL: db.url }
    const a = await startTrawl(env, { workers: true })
    cleanups.push(() => a.close())
    const b = await startTrawl(env, { workers: true })
    cleanups.push(() => b.close())
    const { id: accountId, key } = await a.account({ plan: 'pro', credits: 100 })
    await withWebhook(a, accountId, hooks.url)
    const posted = await Promise.all(
      [a, b, a, b].map((t, n) =>
        postBatch(t, key, { endpoint: 'search', requests: Array.from({ length: 5 }, (_, i) => ({ q: i === 0 ? `nothing ${n}` : `coffee ${n} ${i}` })) }),
      ),
    )
    const ids = posted.flatMap((p) => p.batches.map((j) => (j as JobView).id))
    expect(new Set(ids).size).toBe(20)
    // Four processes on two cores: inside a loaded full run the 20 jobs take far longer than alone (19 s).
    const views = await Promise.all(ids.map((id) => finished(a, key, id, 90_000)))
    expect(views.filter((v) => v.status === 'done')).toHaveLength(20)
    expect(views.reduce((n, v) => n + v.credits_used, 0)).toBe(8) // 16 with results at 0.5; 4 empty at 0
    expect(await expectBooksBalanced(a, accountId)).toBe(92)
    await waitFor(() => hooks.hits.length >= 20, 60_000)
    expect(new Set(hooks.hits.map((h) => h.headers['x-trawl-delivery'])).size).toBe(20)
  }, 240_000)
})
