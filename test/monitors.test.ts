import { once } from 'node:events'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest'
import { z } from 'zod'
import { MonitorList, MonitorResponse, MonitorResultsEvent, MonitorRun, MonitorRuns } from '../src/features/monitors/monitors.response.ts'
import { pruneExpiredMonitorRuns } from '../src/features/monitors/monitors.store.ts'
import { siteKey } from '../src/site/urls/url.canonical.ts'
import { readWebhookSecret } from '../src/webhooks/webhooks.service.ts'
import { errorOf, expectBooksBalanced } from './support/books.ts'
import { type FakeUpstream, fakeUpstream, fixture, htmlPage } from './support/fake-upstream.ts'
import { fetchOpenApi } from './support/openapi-doc.ts'
import { createTestDatabase } from './support/postgres.ts'
import { skipWithoutPostgres } from './support/servers.ts'
import { startTrawl, type Trawl } from './support/start-trawl.ts'
import { startReceiver, verifyStandardSignature, verifyTrawlSignature, waitFor } from './support/webhook-receiver.ts'

const serp = (name: string) => fixture(`serp/google/web-desktop/${name}.html`)
// Nine results, two of them the same canonical link (google.com): eight distinct links.
const GOOGLE = serp('zlurad-google')
// The same query 100 deep: its top 12 are those nine and three more.
const GOOGLE_100 = serp('zlurad-google-100')
const NO_RESULTS = serp('zlurad-no-results')
const failing = (_req: IncomingMessage, res: ServerResponse) => res.writeHead(500, { 'content-type': 'text/plain' }).end('upstream broke')

const env = () => ({
  TRAWL_UPSTREAM_HOSTS: `*=${upstream.url}`,
  TRAWL_UPSTREAM_TIMEOUT_MS: '3000',
  TRAWL_ALLOW_PRIVATE_NETWORK: 'true',
  TRAWL_SCHEDULER_POLL_MS: '100',
  TRAWL_WEBHOOK_RETRY_BASE_MS: '10',
})

let upstream: FakeUpstream
let trawl: Trawl
let site: { url: string; body: string; close(): Promise<void> }

beforeAll(async () => {
  upstream = await fakeUpstream(htmlPage(GOOGLE))
  trawl = await startTrawl(env(), { workers: true })
  site = await startPageSite()
})
afterAll(async () => {
  await trawl.close()
  await upstream.close()
  await site.close()
})
beforeEach(() => {
  upstream.handle(htmlPage(GOOGLE))
})

/** A watched page whose body the test changes between runs. */
async function startPageSite() {
  const state = { url: '', body: '', close: async () => {} }
  const server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(state.body))
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  state.close = () => new Promise<void>((resolve) => server.close(() => resolve()))
  return state
}

const article = (title: string, sentence: string) =>
  `<html><head><title>${title}</title></head><body><nav>Home | About</nav><article><h1>${title}</h1>${`<p>${sentence} `.repeat(3)}${'More words about it so the reader keeps it. '.repeat(12)}</p></article></body></html>`

const call = (key: string, method: string, path: string, body?: unknown) =>
  fetch(`${trawl.base}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  })

const db = () => trawl.services.store.db

/** The schema with unknown keys refused at the top level. */
const strict = (schema: z.ZodObject) => z.strictObject(schema.shape)

async function newAccount(credits = 100, extra: Record<string, unknown> = {}) {
  return trawl.account({ plan: 'enterprise', rate_limit_rps: 1000, credits, ...extra })
}

async function create(key: string, body: Record<string, unknown>) {
  const res = await call(key, 'POST', '/v1/monitors', body)
  expect(res.status, await res.clone().text()).toBe(200)
  return res.json()
}

const monitor = async (key: string, id: string) => (await call(key, 'GET', `/v1/monitors/${id}`)).json()

async function history(key: string, id: string, query = '') {
  const res = await call(key, 'GET', `/v1/monitors/${id}/runs${query}`)
  expect(res.status).toBe(200)
  return res.json()
}

/** Waits until the monitor has `n` runs recorded and returns them, newest first. */
const runsAfter = (key: string, id: string, n: number) =>
  waitFor(async () => {
    const { runs } = await history(key, id)
    return runs.length >= n ? runs : null
  }, 20_000)

/** Time passes: the next run is due now (the runner polls every 100 ms). */
async function makeDue(id: string) {
  await db().updateTable('monitors').set({ run_at: Date.now() }).where('id', '=', id).where('status', '=', 'queued').execute()
}

/** The next run, made due and waited for. */
async function nextRun(key: string, id: string) {
  const before = (await history(key, id)).runs.length
  await makeDue(id)
  const runs = await runsAfter(key, id, before + 1)
  return runs[0]
}

const links = (results: { link: string }[]) => results.map((r) => r.link)

async function loginAs(email: string, password: string) {
  const res = await fetch(`${trawl.base}/app/api/v1/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password }),
  })
  expect(res.status).toBe(200)
  const cookie = (res.headers.get('set-cookie') ?? '').split(';')[0] ?? ''
  return (method: string, path: string, body?: unknown) =>
    fetch(`${trawl.base}/app/api${path}`, {
      method,
      headers: { cookie, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
}

/** An account with a dashboard session, for second keys, revocation and the account webhook. */
async function dashboardAccount(credits = 100) {
  const email = `${crypto.randomUUID()}@example.test`
  const account = await newAccount(credits, { email, password: 'owner-password' })
  const dashboard = await loginAs(email, 'owner-password')
  const newKey = async (body: Record<string, unknown> = { name: 'monitors' }) =>
    (await (await dashboard('POST', '/v1/keys', body)).json()) as { id: string; secret: string }
  return { ...account, dashboard, newKey }
}

const keyIdOf = async (accountId: string) =>
  (await db().selectFrom('api_keys').select('id').where('account_id', '=', accountId).orderBy('created_at').executeTakeFirstOrThrow()).id

const charges = (accountId: string) =>
  db().selectFrom('ledger').selectAll().where('account_id', '=', accountId).where('kind', '=', 'charge').orderBy('id').execute()

const webhookSecret = async (accountId: string) => (await readWebhookSecret(trawl.services.store, accountId))!

describe('monitors: create, read, list, update, delete', () => {
  test('a monitor has every documented field with defaults filled in; PATCH changes settings; DELETE removes it; other accounts get 404', async () => {
    const { key } = await newAccount()
    const created = await create(key, { q: 'google', active: false, metadata: { team: 'seo', ids: [1, 2] } })
    expect(created).toEqual({
      id: expect.any(String),
      name: 'google',
      endpoint: 'search',
      request: { engine: 'google', q: 'google', country: 'us', language: 'en', num: 10, safe: 'off', device: 'desktop' },
      metadata: { team: 'seo', ids: [1, 2] },
      interval_seconds: 86_400,
      webhook_url: null,
      active: false,
      next_run_at: null,
      last_run_at: null,
      last_status: 'paused',
      last_error: null,
      last_new_results: 0,
      runs: 0,
      consecutive_failures: 0,
      credits_used: 0,
      created_at: expect.any(String),
    })
    expect(Date.parse(created.created_at)).toBeGreaterThan(Date.now() - 60_000)
    expect(await monitor(key, created.id)).toEqual(created)

    const news = await create(key, {
      q: 'ai regulation',
      endpoint: 'news',
      interval: 'hourly',
      num: 25,
      time: 'week',
      location: 'Munich,Bavaria,Germany',
      include_domains: ['www.Example.com'],
      name: 'AI news',
      active: false,
    })
    expect(news).toMatchObject({
      name: 'AI news',
      endpoint: 'news',
      interval_seconds: 3600,
      request: {
        engine: 'google',
        q: 'ai regulation',
        country: 'de',
        language: 'en',
        num: 25,
        location: 'Munich,Bavaria,Germany',
        time: 'week',
        include_domains: ['example.com'],
      },
    })
    expect(news.request).not.toHaveProperty('device')
    const page = await create(key, { endpoint: 'webpage', url: `${site.url}/watched#top`, interval: 'weekly', interval_seconds: 7200, active: false })
    expect(page).toMatchObject({ endpoint: 'webpage', request: { url: `${site.url}/watched` }, name: `${site.url}/watched`, interval_seconds: 7200 })
    expect((await create(key, { q: 'weekly', interval: 'weekly', active: false })).interval_seconds).toBe(604_800)

    const list = await (await call(key, 'GET', '/v1/monitors')).json()
    expect(list.monitors).toHaveLength(4)
    expect(list.monitors.map((m: { id: string }) => m.id)).toEqual(expect.arrayContaining([created.id, news.id, page.id]))

    const patched = await (
      await call(key, 'PATCH', `/v1/monitors/${created.id}`, {
        name: 'Brand',
        interval_seconds: 10_800,
        webhook_url: 'https://hooks.example.test/m',
        metadata: null,
      })
    ).json()
    expect(patched).toMatchObject({ name: 'Brand', interval_seconds: 10_800, webhook_url: 'https://hooks.example.test/m', metadata: null, active: false })
    const cleared = await (await call(key, 'PATCH', `/v1/monitors/${created.id}`, { name: null, webhook_url: null, interval: 'hourly' })).json()
    expect(cleared).toMatchObject({ name: 'google', webhook_url: null, interval_seconds: 3600 })
    // null puts an option back to its default; a location then sets the country, as on /v1/search.
    const moved = await (await call(key, 'PATCH', `/v1/monitors/${created.id}`, { location: 'Paris, France', country: null, num: 30 })).json()
    expect(moved.request).toEqual({
      engine: 'google',
      q: 'google',
      country: 'fr',
      language: 'en',
      num: 30,
      safe: 'off',
      device: 'desktop',
      location: 'Paris, France',
    })

    const other = await newAccount()
    for (const [method, path] of [
      ['GET', `/v1/monitors/${created.id}`],
      ['PATCH', `/v1/monitors/${created.id}`],
      ['DELETE', `/v1/monitors/${created.id}`],
      ['POST', `/v1/monitors/${created.id}/run`],
      ['GET', `/v1/monitors/${created.id}/runs`],
    ] as const) {
      const res = await call(other.key, method, path, method === 'PATCH' ? { name: 'mine' } : undefined)
      expect((await errorOf(res)).code, `${method} ${path}`).toBe('not_found')
      expect(res.status).toBe(404)
    }
    expect((await (await call(other.key, 'GET', '/v1/monitors')).json()).monitors).toEqual([])
    expect((await monitor(key, created.id)).name).toBe('google') // the other account's PATCH changed nothing

    const deleted = await call(key, 'DELETE', `/v1/monitors/${created.id}`)
    expect(await deleted.json()).toEqual({ id: created.id, deleted: true })
    expect((await call(key, 'GET', `/v1/monitors/${created.id}`)).status).toBe(404)
    expect((await call(key, 'DELETE', `/v1/monitors/${created.id}`)).status).toBe(404)
  })

  test('every documented bound and every field a monitor does not take is a 400 naming it; nothing is created or billed', async () => {
    const { id: accountId, key } = await newAccount()
    const cases: [Record<string, unknown>, string][] = [
      [{}, 'q'],
      [{ q: 'x', tbs: 'qdr:d' }, 'tbs'],
      [{ q: 'x', include_content: 3 }, 'include_content'],
      [{ q: 'x', start_date: '2024-01-01' }, 'start_date'],
      [{ q: 'x', page: 2 }, 'page'],
      [{ q: 'x', format: 'json' }, 'format'],
      [{ q: 'x', fields: 'results.link' }, 'fields'],
      [{ q: 'x', max_age: 60 }, 'max_age'],
      [{ q: 'x', uule: 'w+CAIQICIGUGFyaXM' }, 'uule'],
      [{ q: 'x', ads: true }, 'ads'],
      [{ q: 'x', autocorrect: false }, 'autocorrect'],
      [{ q: 'x', api_key: 'k' }, 'api_key'],
      [{ query: 'x' }, 'unknown parameter query: use q'],
      [{ q: '' }, 'q'],
      [{ q: 'x'.repeat(2049) }, 'q'],
      [{ q: 'x', endpoint: 'images' }, 'endpoint'],
      [{ q: 'x', interval: 'monthly' }, 'interval'],
      [{ q: 'x', interval_seconds: 3599 }, 'interval_seconds'],
      [{ q: 'x', interval_seconds: 2_592_001 }, 'interval_seconds'],
      [{ q: 'x', interval_seconds: 3600.5 }, 'interval_seconds'],
      [{ q: 'x', interval_seconds: '3600' }, 'interval_seconds'],
      [{ q: 'x', name: 'n'.repeat(201) }, 'name'],
      [{ q: 'x', name: '' }, 'name'],
      [{ q: 'x', metadata: 'tag' }, 'metadata'],
      [{ q: 'x', metadata: [1, 2] }, 'metadata'],
      [{ q: 'x', metadata: { blob: 'b'.repeat(2040) } }, 'metadata'],
      [{ q: 'x', num: 0 }, 'num'],
      [{ q: 'x', num: 101 }, 'num'],
      [{ q: 'x', num: 2.5 }, 'num'],
      [{ q: 'x', country: 'xx' }, 'country'],
      [{ q: 'x', language: 'english' }, 'language'],
      [{ q: 'x', time: 'decade' }, 'time'],
      [{ q: 'x', device: 'tablet' }, 'device'],
      [{ q: 'x', safe: 'on' }, 'safe'],
      [{ q: 'x', include_domains: Array.from({ length: 21 }, (_, i) => `d${i}.com`) }, 'include_domains'],
      [{ q: 'x', exclude_domains: ['not a domain'] }, 'exclude_domains'],
      [{ q: 'x', engine: 'altavista' }, 'engine'],
      [{ q: 'x', endpoint: 'news', engine: 'consensus' }, 'engine consensus'],
      [{ q: 'x', endpoint: 'news', engine: 'mojeek' }, 'engine mojeek'],
      [{ q: 'x', engine: 'mojeek', device: 'mobile' }, 'device'],
      [{ q: 'x', endpoint: 'news', device: 'mobile' }, 'device'],
      [{ q: 'x', endpoint: 'news', safe: 'active' }, 'safe'],
      [{ q: 'x', location: 'Paris', uule: 'w+CAIQICIGUGFyaXM' }, 'uule'],
      [{ q: 'x', webhook_url: 'ftp://hooks.example.test' }, 'webhook_url'],
      [{ q: 'x', active: 'yes' }, 'active'],
      [{ q: 'x', url: 'https://example.com/' }, 'url'],
      [{ endpoint: 'webpage' }, 'url'],
      [{ endpoint: 'webpage', url: 'ftp://example.com/a' }, 'url'],
      [{ endpoint: 'webpage', url: 'not a url' }, 'url'],
      [{ endpoint: 'webpage', url: 'https://example.com/', q: 'x' }, 'q'],
      [{ endpoint: 'webpage', url: 'https://example.com/', country: 'de' }, 'country'],
      [{ endpoint: 'webpage', url: 'https://example.com/', num: 5 }, 'num'],
    ]
    for (const [body, named] of cases) {
      const res = await call(key, 'POST', '/v1/monitors', body)
      const error = await errorOf(res)
      expect(res.status, JSON.stringify(body)).toBe(400)
      expect(error.code).toBe('invalid_request')
      expect(error.message, JSON.stringify(body)).toContain(named)
    }
    const array = await call(key, 'POST', '/v1/monitors', [{ q: 'x' }])
    expect(array.status).toBe(400)
    expect((await (await call(key, 'GET', '/v1/monitors')).json()).monitors).toEqual([])
    expect(await expectBooksBalanced(trawl, accountId)).toBe(100)

    // PATCH: the same rules, and the saved search is validated as a whole.
    const { id } = await create(key, { q: 'x', active: false })
    for (const [body, named] of [
      [{ tbs: 'qdr:d' }, 'tbs'],
      [{ q: null }, 'q'],
      [{ url: 'https://example.com/' }, 'url'],
      [{ endpoint: 'webpage' }, 'url'],
      [{ endpoint: 'news', q: 'x', device: 'mobile' }, 'device'],
      [{ endpoint: 'news' }, 'q'],
      [{ interval_seconds: 60 }, 'interval_seconds'],
      [{ active: null }, 'active'],
    ] as [Record<string, unknown>, string][]) {
      const res = await call(key, 'PATCH', `/v1/monitors/${id}`, body)
      expect(res.status, JSON.stringify(body)).toBe(400)
      expect((await errorOf(res)).message, JSON.stringify(body)).toContain(named)
    }
    expect((await monitor(key, id)).request.q).toBe('x')

    const runsQuery = await call(key, 'GET', `/v1/monitors/${id}/runs?limit=0`)
    expect(runsQuery.status).toBe(400)
    expect((await errorOf(runsQuery)).message).toContain('limit')
  })

  test('webpage monitors watch public pages only (unless private networks are allowed)', async () => {
    const strict = await startTrawl()
    try {
      const { key } = await strict.account({ credits: 10 })
      for (const url of ['http://127.0.0.1:8080/admin', 'http://localhost/', 'http://[::1]/', 'http://10.0.0.7/x', 'http://169.254.169.254/latest']) {
        const res = await fetch(`${strict.base}/v1/monitors`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ endpoint: 'webpage', url }),
        })
        expect(res.status, url).toBe(400)
        expect((await res.json()).error.message).toContain('private')
      }
    } finally {
      await strict.close()
    }
  })

  test('at most 100 monitors per account: the 101st is 403 forbidden', async () => {
    const { key } = await newAccount()
    const ids: string[] = []
    for (let i = 0; i < 10; i++) {
      const batch = await Promise.all(Array.from({ length: 10 }, (_, j) => create(key, { q: `query ${i * 10 + j}`, active: false })))
      ids.push(...batch.map((m) => m.id))
    }
    const over = await call(key, 'POST', '/v1/monitors', { q: 'one too many', active: false })
    expect(over.status).toBe(403)
    expect(await errorOf(over)).toMatchObject({ code: 'forbidden', message: expect.stringContaining('100 monitors') })
    expect((await (await call(key, 'GET', '/v1/monitors')).json()).monitors).toHaveLength(100)
    await call(key, 'DELETE', `/v1/monitors/${ids[0]}`)
    expect((await call(key, 'POST', '/v1/monitors', { q: 'fits again', active: false })).status).toBe(200)
  })
})

describe('monitor runs', () => {
  test('the first run reports everything; later runs only new links; nothing new is billed, empty and failed runs are free; webhooks echo metadata', async () => {
    const receiver = await startReceiver()
    const { id: accountId, key } = await newAccount()
    const metadata = { project: 'brand-watch', owner: { team: 7 } }
    upstream.handle(htmlPage(GOOGLE))
    const created = await create(key, { q: 'google', num: 12, name: 'Brand', webhook_url: receiver.url, metadata })
    expect(created).toMatchObject({ active: true, last_status: null, request: { num: 12 } })
    expect(Date.parse(created.next_run_at)).toBeLessThanOrEqual(Date.now()) // the first run is due at once

    const [first] = await runsAfter(key, created.id, 1)
    // Nine results of the depth asked for (20 covers num=12: two Google pages of 10, the same page
    // here); google.com twice is one link.
    const pages = upstream.seen.slice(-2).map((s) => new URL(s.url, 'https://www.google.com').searchParams)
    expect(pages.map((p) => p.get('start') ?? '0').sort()).toEqual(['0', '10'])
    for (const p of pages) expect(p.has('num')).toBe(false)
    expect(first).toMatchObject({ status: 'ok', first_run: true, new_results: 8, credits_used: 1, error: null, results_expired: false })
    expect(first.id).toBe(`${created.id}:${Date.parse(created.next_run_at)}`)
    const firstKeys = new Set(links(first.results).map((l) => siteKey(l)))
    expect(firstKeys.size).toBe(8)
    expect(first.results[0]).toMatchObject({ position: 1, title: expect.any(String), link: expect.any(String) })
    // Items as /v1/search sends them: every item field, null when the page did not show it.
    expect(first.results[0]).toHaveProperty('date')

    const afterFirst = await monitor(key, created.id)
    expect(afterFirst).toMatchObject({ runs: 1, last_status: 'ok', last_new_results: 8, credits_used: 1, consecutive_failures: 0, active: true })
    expect(Date.parse(afterFirst.next_run_at) - Date.parse(afterFirst.last_run_at)).toBe(86_400_000)

    // The webhook: signed both ways, the run id as delivery id, metadata echoed.
    const secret = await webhookSecret(accountId)
    const hit = await waitFor(() => receiver.hits[0])
    expect(verifyTrawlSignature(secret, hit)).toBe(true)
    expect(verifyStandardSignature(secret, hit)).toBe(true)
    expect(hit.headers['x-trawl-event']).toBe('monitor.results')
    expect(hit.headers['x-trawl-delivery']).toBe(first.id)
    expect(JSON.parse(hit.body)).toEqual({
      event: 'monitor.results',
      id: first.id,
      monitor_id: created.id,
      name: 'Brand',
      endpoint: 'search',
      request: created.request,
      metadata,
      first_run: true,
      new_results: 8,
      results: first.results,
      credits_used: 1,
      due_at: first.due_at,
      created_at: first.completed_at,
      runs_url: expect.stringMatching(new RegExp(`^http://127\\.0\\.0\\.1:\\d+/v1/monitors/${created.id}/runs$`)),
    })

    // A different page: only the links not reported before are new; 20 results delivered cost 2.
    upstream.handle(htmlPage(GOOGLE_100))
    const second = await nextRun(key, created.id)
    expect(second).toMatchObject({ status: 'ok', first_run: false, new_results: 3, credits_used: 2 })
    const secondKeys = links(second.results).map((l) => siteKey(l))
    expect(secondKeys.every((k) => !firstKeys.has(k))).toBe(true)
    expect(secondKeys).toEqual(['edu.google.com/workspace-for-education/classroom', 'google.com/drive', 'google.com/videohp?hl=en'])
    const hit2 = await waitFor(() => receiver.hits[1])
    expect(verifyStandardSignature(secret, hit2)).toBe(true)
    expect(JSON.parse(hit2.body)).toMatchObject({ id: second.id, first_run: false, new_results: 3, metadata, results: second.results })

    // Nothing new: still billed (the search was made), no webhook.
    const third = await nextRun(key, created.id)
    expect(third).toMatchObject({ status: 'ok', new_results: 0, results: [], credits_used: 2, webhook_status: null })

    // No results at all: an empty run, free.
    upstream.handle(htmlPage(NO_RESULTS))
    const empty = await nextRun(key, created.id)
    expect(empty).toMatchObject({ status: 'ok', new_results: 0, credits_used: 0 })

    // The engine fails: a failed run, free, counted.
    upstream.handle(failing)
    const failed = await nextRun(key, created.id)
    expect(failed).toMatchObject({ status: 'error', new_results: 0, results: null, credits_used: 0, error: { code: expect.stringMatching(/^upstream_/) } })
    expect(await monitor(key, created.id)).toMatchObject({ last_status: 'error', consecutive_failures: 1, last_error: expect.stringMatching(/^upstream_/) })

    upstream.handle(htmlPage(GOOGLE_100))
    await nextRun(key, created.id)
    const now = await monitor(key, created.id)
    expect(now).toMatchObject({ runs: 6, last_status: 'ok', consecutive_failures: 0, last_error: null, credits_used: 7 })

    // The ledger: one charge per billed run, keyed by the run id, and the books balance.
    const billed = await charges(accountId)
    expect(billed.map((c) => [c.request_id, c.amount_mc, c.endpoint])).toEqual([
      [first.id, -1000, '/v1/monitors'],
      [second.id, -2000, '/v1/monitors'],
      [third.id, -2000, '/v1/monitors'],
      [expect.any(String), -2000, '/v1/monitors'],
    ])
    expect(await expectBooksBalanced(trawl, accountId)).toBe(93)
    const { runs } = await history(key, created.id)
    expect(runs.map((r: { new_results: number }) => r.new_results)).toEqual([0, 0, 0, 0, 3, 8])
    expect(runs[5].webhook_status).toBe('delivered')
    expect(receiver.hits).toHaveLength(2)
    // Every body is exactly what the OpenAPI document publishes: no key more, none missing.
    strict(MonitorResponse).parse(now)
    strict(MonitorList).parse(await (await call(key, 'GET', '/v1/monitors')).json())
    strict(MonitorRuns).parse({ ...(await history(key, created.id)), runs: [] })
    for (const run of runs) strict(MonitorRun).parse(run)
    for (const hit of receiver.hits) strict(MonitorResultsEvent).parse(JSON.parse(hit.body))
    await receiver.close()
  })

  test('a PATCH that changes the saved search starts a new baseline: the next run reports everything with first_run true', async () => {
    const { key } = await newAccount()
    const { id } = await create(key, { q: 'google', num: 5 })
    const [first] = await runsAfter(key, id, 1)
    expect(first).toMatchObject({ first_run: true, new_results: 4 })

    // Settings only, or a saved search that normalises to the same: the baseline stays.
    await call(key, 'PATCH', `/v1/monitors/${id}`, { name: 'renamed', country: 'us', metadata: { a: 1 } })
    expect(await nextRun(key, id)).toMatchObject({ first_run: false, new_results: 0 })

    const patched = await (await call(key, 'PATCH', `/v1/monitors/${id}`, { q: 'google search' })).json()
    expect(patched.request.q).toBe('google search')
    expect(patched.name).toBe('renamed')
    const again = await nextRun(key, id)
    expect(again).toMatchObject({ first_run: true, new_results: 4 })
    expect(links(again.results)).toEqual(links(first.results))
    // Hashes of the old baseline are gone: only the reported links of the current one are kept.
    const seen = await db().selectFrom('monitor_seen').select(['baseline', 'link_hash']).where('monitor_id', '=', id).execute()
    expect(new Set(seen.map((s) => s.baseline)).size).toBe(1)
    expect(seen).toHaveLength(4)
    expect(seen.every((s) => /^[0-9a-f]{64}$/.test(s.link_hash))).toBe(true)
  })

  test('run now: due at once on an active monitor (202), 409 invalid_request on a paused one; the key that asks becomes the billing key', async () => {
    const owner = await dashboardAccount()
    const { id } = await create(owner.key, { q: 'google', num: 5 })
    await runsAfter(owner.key, id, 1)
    const second = await owner.newKey({ name: 'second' })

    const res = await call(second.secret, 'POST', `/v1/monitors/${id}/run`)
    expect(res.status).toBe(202)
    const queued = await res.json()
    expect(queued).toMatchObject({ id, active: true })
    expect(Date.parse(queued.next_run_at)).toBeLessThanOrEqual(Date.now())
    const [ran] = await runsAfter(owner.key, id, 2)
    expect(ran).toMatchObject({ status: 'ok', credits_used: 1 })
    const billed = await charges(owner.id)
    expect(billed.map((c) => c.key_id)).toEqual([await keyIdOf(owner.id), second.id])

    expect((await call(owner.key, 'PATCH', `/v1/monitors/${id}`, { active: false })).status).toBe(200)
    const paused = await call(owner.key, 'POST', `/v1/monitors/${id}/run`)
    expect(paused.status).toBe(409)
    expect(await errorOf(paused)).toMatchObject({ code: 'invalid_request', message: expect.stringContaining('paused') })
    expect((await history(owner.key, id)).runs).toHaveLength(2)
    await expectBooksBalanced(trawl, owner.id)
  })

  test('10 failed runs in a row pause the monitor (free); PATCH active=true clears the count and runs it at once', async () => {
    const { id: accountId, key } = await newAccount()
    upstream.handle(failing)
    const { id } = await create(key, { q: 'google', num: 5 })
    await runsAfter(key, id, 1)
    for (let n = 2; n <= 10; n++) {
      expect((await monitor(key, id)).active, `after ${n - 1} failures`).toBe(true)
      await nextRun(key, id)
    }
    const paused = await monitor(key, id)
    expect(paused).toMatchObject({
      active: false,
      next_run_at: null,
      last_status: 'paused',
      consecutive_failures: 10,
      runs: 10,
      credits_used: 0,
      last_error: expect.stringMatching(/^upstream_/),
    })
    const { runs } = await history(key, id)
    expect(runs.every((r: { status: string; credits_used: number }) => r.status === 'error' && r.credits_used === 0)).toBe(true)
    expect((await call(key, 'POST', `/v1/monitors/${id}/run`)).status).toBe(409)
    expect(await expectBooksBalanced(trawl, accountId)).toBe(100)

    upstream.handle(htmlPage(GOOGLE))
    const resumed = await (await call(key, 'PATCH', `/v1/monitors/${id}`, { active: true })).json()
    expect(resumed).toMatchObject({ active: true, consecutive_failures: 0 })
    const [ok] = await runsAfter(key, id, 11)
    expect(ok).toMatchObject({ status: 'ok', first_run: true, new_results: 4 })
    expect(await monitor(key, id)).toMatchObject({ last_status: 'ok', consecutive_failures: 0, runs: 11 })
  })

  test('revoking its key pauses a monitor (dashboard revocation at once, or found revoked at run time); PATCH with a live key resumes it on that key', async () => {
    const owner = await dashboardAccount()
    const doomed = await owner.newKey({ name: 'doomed' })
    const { id } = await create(doomed.secret, { q: 'google', num: 5 })
    await runsAfter(owner.key, id, 1)
    const rotated = (await (await owner.dashboard('POST', `/v1/keys/${doomed.id}/rotate`)).json()) as { secret: string }
    expect((await monitor(owner.key, id)).active).toBe(true) // rotation keeps the key id: the monitor keeps running
    expect((await call(rotated.secret, 'POST', `/v1/monitors/${id}/run`)).status).toBe(202)
    await runsAfter(owner.key, id, 2)

    expect((await owner.dashboard('DELETE', `/v1/keys/${doomed.id}`)).status).toBeLessThan(300)
    expect(await monitor(owner.key, id)).toMatchObject({ active: false, last_status: 'paused', last_error: expect.stringContaining('revoked') })
    await makeDue(id)
    expect((await history(owner.key, id)).runs).toHaveLength(2)

    const resumed = await (await call(owner.key, 'PATCH', `/v1/monitors/${id}`, { active: true })).json()
    expect(resumed.active).toBe(true)
    await runsAfter(owner.key, id, 3)
    const billed = await charges(owner.id)
    expect(billed.map((c) => c.key_id)).toEqual([doomed.id, doomed.id, await keyIdOf(owner.id)])

    // Revoked some other way (no dashboard hook): the run finds out, pauses it, and bills nothing.
    const other = await owner.newKey({ name: 'other' })
    const second = await create(other.secret, { q: 'google', num: 5 })
    await runsAfter(owner.key, second.id, 1)
    await db().updateTable('api_keys').set({ revoked_at: Date.now() }).where('id', '=', other.id).execute()
    await makeDue(second.id)
    const found = await waitFor(async () => {
      const m = await monitor(owner.key, second.id)
      return m.active ? null : m
    })
    expect(found).toMatchObject({ last_status: 'paused', last_error: expect.stringContaining('revoked') })
    expect((await history(owner.key, second.id)).runs).toHaveLength(1)
    expect(await charges(owner.id)).toHaveLength(4)
    await expectBooksBalanced(trawl, owner.id)
  })

  test("runs are billed under the key's monthly limit and the account's spend cap: a refused charge is a failed, free run", async () => {
    const owner = await dashboardAccount()
    const limited = await owner.newKey({ name: 'limited', credit_limit: 1 })
    upstream.handle(htmlPage(GOOGLE_100))
    const { id } = await create(limited.secret, { q: 'google', num: 12 }) // 20 results delivered: 2 credits
    const [run] = await runsAfter(owner.key, id, 1)
    expect(run).toMatchObject({ status: 'error', credits_used: 0, error: { code: 'key_limit_reached' } })
    expect(await monitor(owner.key, id)).toMatchObject({
      last_status: 'error',
      consecutive_failures: 1,
      last_error: expect.stringContaining('key_limit_reached'),
    })
    expect(await charges(owner.id)).toEqual([])

    await db().updateTable('accounts').set({ monthly_spend_cap_mc: 1000 }).where('id', '=', owner.id).execute()
    const capped = await create(owner.key, { q: 'google', num: 12 })
    const [refused] = await runsAfter(owner.key, capped.id, 1)
    expect(refused).toMatchObject({ status: 'error', credits_used: 0, error: { code: 'spend_cap_reached' } })
    expect(await expectBooksBalanced(trawl, owner.id)).toBe(100)
  })

  test('webpage monitors report the page when its Markdown changes (new, then changed); the same page is billed, an empty one is free', async () => {
    const { id: accountId, key } = await newAccount()
    site.body = article('Release notes', 'Version one ships the first feature.')
    const { id } = await create(key, { endpoint: 'webpage', url: `${site.url}/notes` })
    const [first] = await runsAfter(key, id, 1)
    expect(first).toMatchObject({ status: 'ok', first_run: true, new_results: 1, credits_used: 1 })
    expect(first.results).toEqual([{ change: 'new', url: `${site.url}/notes`, title: 'Release notes', markdown: expect.stringContaining('Version one ships') }])

    expect(await nextRun(key, id)).toMatchObject({ status: 'ok', first_run: false, new_results: 0, results: [], credits_used: 1 })

    site.body = article('Release notes', 'Version two adds a second feature.')
    const changed = await nextRun(key, id)
    expect(changed).toMatchObject({ first_run: false, new_results: 1, credits_used: 1 })
    expect(changed.results[0]).toMatchObject({ change: 'changed', title: 'Release notes' })
    expect(changed.results[0].markdown).toContain('Version two adds')
    expect(changed.results[0].markdown).not.toContain('Version one')

    site.body = '<html><head><title>blank</title></head><body></body></html>'
    expect(await nextRun(key, id)).toMatchObject({ status: 'ok', new_results: 0, credits_used: 0 })
    expect(await monitor(key, id)).toMatchObject({ runs: 4, credits_used: 3, last_new_results: 0 })
    expect(await expectBooksBalanced(trawl, accountId)).toBe(97)

    // A new url is a new baseline: reported as new again.
    site.body = article('Release notes', 'Version two adds a second feature.')
    await call(key, 'PATCH', `/v1/monitors/${id}`, { url: `${site.url}/notes-v2` })
    const moved = await nextRun(key, id)
    expect(moved).toMatchObject({ first_run: true, new_results: 1 })
    expect(moved.results[0]).toMatchObject({ change: 'new', url: `${site.url}/notes-v2` })
  })

  test('run history: newest first, paged with before; results kept 24 hours, then null with the counts kept', async () => {
    const { key } = await newAccount()
    const { id } = await create(key, { q: 'google', num: 5 })
    await runsAfter(key, id, 1)
    await nextRun(key, id)
    await nextRun(key, id)
    const all = await history(key, id)
    expect(all.monitor_id).toBe(id)
    expect(all.runs).toHaveLength(3)
    expect(all.next_before).toBeNull()
    const dues = all.runs.map((r: { due_at: string }) => Date.parse(r.due_at))
    expect([...dues].sort((a, b) => b - a)).toEqual(dues)

    const page1 = await history(key, id, '?limit=2')
    expect(page1.runs.map((r: { id: string }) => r.id)).toEqual(all.runs.slice(0, 2).map((r: { id: string }) => r.id))
    const page2 = await history(key, id, `?limit=2&before=${encodeURIComponent(page1.next_before)}`)
    expect(page2.runs.map((r: { id: string }) => r.id)).toEqual([all.runs[2].id])

    // 24 hours later: results gone from the response at once, and from the database at the next prune.
    const oldest = all.runs[2]
    await db()
      .updateTable('monitor_runs')
      .set({ expires_at: Date.now() - 1 })
      .where('id', '=', oldest.id)
      .execute()
    const expired = (await history(key, id)).runs[2]
    expect(expired).toMatchObject({ id: oldest.id, results: null, results_expired: true, new_results: 4, status: 'ok', first_run: true, credits_used: 1 })
    expect(await pruneExpiredMonitorRuns(db(), Date.now())).toBeGreaterThanOrEqual(1)
    const row = await db().selectFrom('monitor_runs').selectAll().where('id', '=', oldest.id).executeTakeFirstOrThrow()
    expect(row).toMatchObject({ results: null, new_count: 4 })
    // After 30 days the run row itself goes.
    await db()
      .updateTable('monitor_runs')
      .set({ completed_at: Date.now() - 31 * 86_400_000 })
      .where('id', '=', oldest.id)
      .execute()
    expect(await pruneExpiredMonitorRuns(db(), Date.now())).toBe(1)
    expect((await history(key, id)).runs).toHaveLength(2)
  })

  test('the account webhook URL is the default; a delivery that fails all 8 attempts shows as last_status webhook_failed', async () => {
    const receiver = await startReceiver((_n, res) => res.writeHead(500).end('no'))
    const owner = await dashboardAccount()
    expect((await owner.dashboard('PUT', '/v1/webhook', { url: receiver.url })).status).toBe(200)
    const { id } = await create(owner.key, { q: 'google', num: 5, metadata: { via: 'account' } })
    const [run] = await runsAfter(owner.key, id, 1)
    const hit = await waitFor(() => receiver.hits[0])
    expect(JSON.parse(hit.body)).toMatchObject({ event: 'monitor.results', id: run.id, metadata: { via: 'account' } })
    expect(verifyStandardSignature(await webhookSecret(owner.id), hit)).toBe(true)
    const failed = await waitFor(async () => {
      const m = await monitor(owner.key, id)
      return m.last_status === 'webhook_failed' ? m : null
    }, 20_000)
    expect(failed).toMatchObject({ active: true, last_error: null })
    expect(receiver.hits).toHaveLength(8)
    expect(new Set(receiver.hits.map((h) => h.headers['x-trawl-delivery']))).toEqual(new Set([run.id]))
    expect((await history(owner.key, id)).runs[0].webhook_status).toBe('failed')
    await receiver.close()
  })
})

describe('the scheduler: leases and deterministic run ids', () => {
  test("a dead worker's claim is taken over: its due run runs once, under the same id, billed once", async () => {
    const { id: accountId, key } = await newAccount()
    const { id } = await create(key, { q: 'google', num: 5, active: false })
    const dueAt = Date.now() - 5000
    // What a worker killed mid-run leaves behind: a running row whose lease has expired.
    await db()
      .updateTable('monitors')
      .set({ status: 'running', run_at: dueAt, lease_owner: 'monitor-dead-worker', lease_expires_at: Date.now() - 1, attempts: 1 })
      .where('id', '=', id)
      .execute()
    const [run] = await runsAfter(key, id, 1)
    expect(run.id).toBe(`${id}:${dueAt}`)
    expect(run.due_at).toBe(new Date(dueAt).toISOString())
    const row = await db().selectFrom('monitors').selectAll().where('id', '=', id).executeTakeFirstOrThrow()
    expect(row).toMatchObject({ status: 'queued', lease_owner: null, attempts: 2 })
    expect((await charges(accountId)).map((c) => c.request_id)).toEqual([run.id])
    await expectBooksBalanced(trawl, accountId)
  })

  test('a worker that lost its lease mid-run records and bills nothing; the run is done once by the lease holder', async () => {
    const { id: accountId, key } = await newAccount()
    let release: () => void = () => {}
    const gate = new Promise<void>((resolve) => {
      release = resolve
    })
    let held = 0
    upstream.handle((req, res) => {
      held++
      void gate.then(() => htmlPage(GOOGLE)(req, res))
    })
    const { id } = await create(key, { q: 'google', num: 5 })
    await waitFor(() => held > 0)
    // Another worker took the lease over while this one waited for the engine.
    await db()
      .updateTable('monitors')
      .set({ lease_owner: 'monitor-other-worker', lease_expires_at: Date.now() + 60_000 })
      .where('id', '=', id)
      .execute()
    release()
    await waitFor(
      async () => (await db().selectFrom('monitors').select('lease_owner').where('id', '=', id).executeTakeFirst())?.lease_owner === 'monitor-other-worker',
    )
    // Give the stale worker's final transaction every chance to (wrongly) commit.
    await new Promise((r) => setTimeout(r, 300))
    expect((await history(key, id)).runs).toEqual([])
    expect(await charges(accountId)).toEqual([])

    // The holder's lease expires: the same due run is taken over and done once.
    upstream.handle(htmlPage(GOOGLE))
    await db()
      .updateTable('monitors')
      .set({ lease_expires_at: Date.now() - 1 })
      .where('id', '=', id)
      .execute()
    const [run] = await runsAfter(key, id, 1)
    expect(run).toMatchObject({ status: 'ok', new_results: 4, credits_used: 1 })
    expect((await charges(accountId)).map((c) => c.request_id)).toEqual([run.id])
    await expectBooksBalanced(trawl, accountId)
  })

  test('a change during a run wins: a changed saved search drops the run (unbilled) and runs the new one at once; pausing drops it too', async () => {
    const { id: accountId, key } = await newAccount()
    let release: () => void = () => {}
    let gate = new Promise<void>((resolve) => {
      release = resolve
    })
    const asked: string[] = []
    upstream.handle((req, res) => {
      asked.push(new URL(req.url ?? '/', 'http://x').searchParams.get('q') ?? '')
      void gate.then(() => htmlPage(GOOGLE)(req, res))
    })
    const { id } = await create(key, { q: 'old query', num: 5 })
    await waitFor(() => asked.length > 0)
    expect((await call(key, 'PATCH', `/v1/monitors/${id}`, { q: 'new query' })).status).toBe(200)
    release()
    const [run] = await runsAfter(key, id, 1)
    expect(asked).toEqual(['old query', 'new query'])
    expect(run).toMatchObject({ status: 'ok', first_run: true, new_results: 4, credits_used: 1 })
    expect(await charges(accountId)).toHaveLength(1)

    gate = new Promise<void>((resolve) => {
      release = resolve
    })
    await makeDue(id)
    await waitFor(() => asked.length > 2)
    expect((await call(key, 'PATCH', `/v1/monitors/${id}`, { active: false })).status).toBe(200)
    release()
    await waitFor(async () => (await db().selectFrom('monitors').select('status').where('id', '=', id).executeTakeFirst())?.status === 'paused')
    await new Promise((r) => setTimeout(r, 300)) // the dropped run's worker has long finished
    expect((await history(key, id)).runs).toHaveLength(1)
    expect(await charges(accountId)).toHaveLength(1)
    await expectBooksBalanced(trawl, accountId)
  })

  test('a monitor overdue by many intervals runs once, and its next run is one interval after that run', async () => {
    const { key } = await newAccount()
    const { id } = await create(key, { q: 'google', num: 5, interval: 'hourly' })
    await runsAfter(key, id, 1)
    await db()
      .updateTable('monitors')
      .set({ run_at: Date.now() - 50 * 3600_000 })
      .where('id', '=', id)
      .execute()
    await runsAfter(key, id, 2)
    await new Promise((r) => setTimeout(r, 500)) // several polls: none finds it due again
    expect((await history(key, id)).runs).toHaveLength(2)
    const m = await monitor(key, id)
    expect(Date.parse(m.next_run_at) - Date.parse(m.last_run_at)).toBe(3600_000)
  })
})

describe.skipIf(skipWithoutPostgres)('monitors on PostgreSQL', () => {
  test('two worker processes share the schedule: every due run runs once, under its one id, billed once', async () => {
    const database = await createTestDatabase()
    const a = await startTrawl({ ...env(), TRAWL_DATABASE_URL: database.url }, { workers: true })
    const b = await startTrawl({ ...env(), TRAWL_DATABASE_URL: database.url }, { workers: true })
    const on = (t: Trawl, key: string, method: string, path: string, body?: unknown) =>
      fetch(`${t.base}${path}`, {
        method,
        headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      })
    try {
      const { id: accountId, key } = await a.account({ plan: 'enterprise', rate_limit_rps: 1000, credits: 100 })
      const ids: string[] = []
      for (const [i, t] of [a, b, a, b, a, b].entries()) ids.push((await (await on(t, key, 'POST', '/v1/monitors', { q: `google ${i}`, num: 5 })).json()).id)
      const runCount = async (id: string) => (await (await on(a, key, 'GET', `/v1/monitors/${id}/runs`)).json()).runs.length as number
      const allHave = (n: number) => waitFor(async () => (await Promise.all(ids.map(runCount))).every((c) => c >= n), 20_000)
      await allHave(1)
      for (let round = 2; round <= 3; round++) {
        await a.services.store.db.updateTable('monitors').set({ run_at: Date.now() }).where('account_id', '=', accountId).execute()
        await allHave(round)
      }
      await new Promise((r) => setTimeout(r, 300)) // any duplicate would have landed by now
      for (const id of ids) expect(await runCount(id)).toBe(3)
      const ledger = await a.services.store.db.selectFrom('ledger').selectAll().where('account_id', '=', accountId).where('kind', '=', 'charge').execute()
      expect(ledger).toHaveLength(18)
      expect(new Set(ledger.map((c) => c.request_id)).size).toBe(18)
      expect(await expectBooksBalanced(a, accountId)).toBe(82)
    } finally {
      await a.close()
      await b.close()
      await database.drop()
    }
  })
})

describe('OpenAPI', () => {
  test('documents the monitor endpoints, the run-history body and the monitor.results webhook', async () => {
    const doc = await fetchOpenApi(trawl.base)
    for (const [path, method] of [
      ['/v1/monitors', 'post'],
      ['/v1/monitors', 'get'],
      ['/v1/monitors/{id}', 'get'],
      ['/v1/monitors/{id}', 'patch'],
      ['/v1/monitors/{id}', 'delete'],
      ['/v1/monitors/{id}/run', 'post'],
      ['/v1/monitors/{id}/runs', 'get'],
    ] as const) {
      expect(doc.paths[path]?.[method], `${method} ${path}`).toBeTruthy()
    }
    const create = doc.paths['/v1/monitors'].post
    expect(Object.keys(create.requestBody.content['application/json'].schema.properties)).toEqual(
      expect.arrayContaining(['q', 'url', 'endpoint', 'interval', 'interval_seconds', 'webhook_url', 'name', 'active', 'metadata', 'num', 'engine']),
    )
    expect(create.responses['200'].content['application/json'].schema.properties.last_status).toBeTruthy()
    const callback = create.callbacks['monitor.results']['{$request.body#/webhook_url}'].post
    expect(Object.keys(callback.requestBody.content['application/json'].schema.properties)).toEqual(
      expect.arrayContaining(['event', 'id', 'monitor_id', 'metadata', 'first_run', 'new_results', 'results']),
    )
    const runs = doc.paths['/v1/monitors/{id}/runs'].get.responses['200'].content['application/json'].schema
    expect(Object.keys(runs.properties.runs.items.properties)).toEqual(
      expect.arrayContaining(['id', 'status', 'first_run', 'new_results', 'results', 'webhook_status']),
    )
    expect(doc.paths['/v1/monitors/{id}/run'].post.responses['202']).toBeTruthy()
  })
})
