import { randomUUID } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pino from 'pino'
import { afterEach, describe, expect, test } from 'vitest'
import { loadConfig } from '../src/config.ts'
import { createAccount, patchAccount } from '../src/features/accounts/accounts.service.ts'
import { claimDue } from '../src/jobs/jobs.store.ts'
import { memorySignals } from '../src/signals/signals.ts'
import { openStore, type Store } from '../src/store/database.ts'
import { REFUSED_ADDRESS_ERROR } from '../src/webhooks/webhook.deliver.ts'
import { enqueueWebhook, getWebhookDelivery, readWebhookSecret, webhookDeliveryStatus } from '../src/webhooks/webhooks.service.ts'
import { retryDelayMs, startWebhookWorker, type WebhookWorker, type WebhookWorkerOptions } from '../src/webhooks/webhooks.worker.ts'
import { fakeUpstream, fixture, htmlPage } from './support/fake-upstream.ts'
import { createTestDatabase } from './support/postgres.ts'
import { skipWithoutPostgres } from './support/servers.ts'
import { startTrawl, type Trawl } from './support/start-trawl.ts'
import { startReceiver, verifyStandardSignature, verifyTrawlSignature, waitFor } from './support/webhook-receiver.ts'

const silent = pino({ level: 'silent' })
const COFFEE = fixture('serp/google/web-desktop/zlurad-coffee.html')
const cleanups: (() => Promise<unknown> | unknown)[] = []
afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn()
})

/** A fresh server (own SQLite file) per test, so no test's leftover deliveries reach another's worker. */
async function fresh(env: Record<string, string> = {}) {
  const trawl = await startTrawl({ TRAWL_ALLOW_PRIVATE_NETWORK: 'true', TRAWL_WEBHOOK_RETRY_BASE_MS: '50', ...env })
  cleanups.push(() => trawl.close())
  return trawl
}

/** An account whose webhook URL is `url`; returns its id and the signing secret. */
async function accountWithWebhook(trawl: Trawl, url: string) {
  const { id } = await trawl.account()
  expect((await trawl.admin('PATCH', `/admin/v1/accounts/${id}`, { webhook_url: url })).status).toBe(200)
  return { accountId: id, secret: (await readWebhookSecret(trawl.services.store, id))! }
}

function worker(services: Pick<Trawl['services'], 'config' | 'store' | 'signals'>, opts: WebhookWorkerOptions = {}): WebhookWorker {
  const w = startWebhookWorker(services, silent, { pollMs: 50, ...opts })
  cleanups.push(() => w.stop())
  return w
}

async function receiver(answer?: Parameters<typeof startReceiver>[0]) {
  const r = await startReceiver(answer)
  cleanups.push(() => r.close())
  return r
}

const finished = (store: Store, id: string) =>
  waitFor(async () => ((await webhookDeliveryStatus(store, id)) !== 'pending' ? getWebhookDelivery(store, id) : null))
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

describe('enqueueWebhook', () => {
  test('defaults to the account URL, is null without one, and is idempotent on the delivery id', async () => {
    const trawl = await fresh()
    const { store } = trawl.services
    const bare = await trawl.account()
    expect(await enqueueWebhook(trawl.services, { accountId: bare.id, event: 'crawl.completed', payload: {} })).toBeNull()
    // A job's own webhook_url works without an account URL and creates the account's secret.
    const own = await enqueueWebhook(trawl.services, { accountId: bare.id, event: 'crawl.completed', url: 'https://example.test/own', payload: { a: 1 } })
    expect(await getWebhookDelivery(store, own!.id)).toMatchObject({ url: 'https://example.test/own', status: 'queued', attempts: 0, payload: '{"a":1}' })
    expect(await readWebhookSecret(store, bare.id)).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/)

    const { accountId } = await accountWithWebhook(trawl, 'https://example.test/account')
    const first = await enqueueWebhook(trawl.services, { accountId, event: 'batch.completed', payload: { n: 1 }, id: 'job-1' })
    const again = await enqueueWebhook(trawl.services, { accountId, event: 'batch.completed', payload: { n: 2 }, id: 'job-1' })
    expect(first).toEqual({ id: 'job-1' })
    expect(again).toEqual({ id: 'job-1' })
    expect(await getWebhookDelivery(store, 'job-1')).toMatchObject({ url: 'https://example.test/account', payload: '{"n":1}' })
    expect(await webhookDeliveryStatus(store, 'job-1')).toBe('pending')
    expect(await webhookDeliveryStatus(store, 'nope')).toBeNull()
  })
})

describe('delivery', () => {
  test('the default schedule: 1, 2, 4 … minutes apart, capped at an hour, 7 retries after the first attempt', () => {
    const base = loadConfig({}).webhookRetryBaseMs
    expect([1, 2, 3, 4, 5, 6, 7].map((attempt) => retryDelayMs(attempt, base) / 60_000)).toEqual([1, 2, 4, 8, 16, 32, 60])
  })

  test('retries with doubling backoff until a 2xx; one delivery id, every attempt signed at its own time', async () => {
    const trawl = await fresh()
    const r = await receiver((n, res) => {
      if (n === 0) res.writeHead(503).end('busy')
      else if (n === 1)
        res.destroy() // a connection error
      else res.writeHead(204).end()
    })
    const { accountId, secret } = await accountWithWebhook(trawl, r.url)
    const payload = { event: 'crawl.completed', id: 'crawl-1', status: 'completed', note: 'ünïcode ✓' }
    worker(trawl.services)
    const { id } = (await enqueueWebhook(trawl.services, { accountId, event: 'crawl.completed', payload }))!
    const row = await finished(trawl.services.store, id)

    expect(row).toMatchObject({ status: 'delivered', attempts: 3, last_status_code: 204, last_error: null })
    expect(row!.delivered_at).toBeGreaterThan(0)
    expect(await webhookDeliveryStatus(trawl.services.store, id)).toBe('delivered')
    expect(r.hits).toHaveLength(3)
    for (const hit of r.hits) {
      expect(hit.path).toBe('/hooks')
      expect(hit.body).toBe(JSON.stringify(payload))
      expect(hit.headers).toMatchObject({
        'content-type': 'application/json',
        'user-agent': 'Trawl-Webhooks/1.0',
        'x-trawl-event': 'crawl.completed',
        'x-trawl-delivery': id,
        'webhook-id': id,
      })
      expect(hit.headers['x-trawl-signature']).toMatch(/^v1=[0-9a-f]{64}$/)
      expect(hit.headers['webhook-timestamp']).toBe(hit.headers['x-trawl-timestamp'])
      expect(Math.abs(Number(hit.headers['x-trawl-timestamp']) - Math.floor(hit.at / 1000))).toBeLessThanOrEqual(1)
      expect(verifyTrawlSignature(secret, hit)).toBe(true)
      expect(verifyStandardSignature(secret, hit)).toBe(true)
      expect(verifyTrawlSignature(`${secret}x`, hit)).toBe(false)
    }
    const gaps = [r.hits[1]!.at - r.hits[0]!.at, r.hits[2]!.at - r.hits[1]!.at]
    expect(gaps[0]).toBeGreaterThanOrEqual(50)
    expect(gaps[1]).toBeGreaterThanOrEqual(100)
  })

  test('8 failed attempts in total, then failed; nothing after', async () => {
    const trawl = await fresh()
    const r = await receiver((_n, res) => res.writeHead(500).end('boom'))
    const { accountId } = await accountWithWebhook(trawl, r.url)
    worker(trawl.services, { retryBaseMs: 5, pollMs: 20 })
    const { id } = (await enqueueWebhook(trawl.services, { accountId, event: 'monitor.results', payload: { x: 1 } }))!
    const row = await finished(trawl.services.store, id)
    expect(row).toMatchObject({ status: 'failed', attempts: 8, last_status_code: 500, last_error: 'HTTP 500: boom', delivered_at: null })
    expect(await webhookDeliveryStatus(trawl.services.store, id)).toBe('failed')
    await sleep(300)
    expect(r.hits).toHaveLength(8)
    expect(new Set(r.hits.map((h) => h.headers['x-trawl-delivery']))).toEqual(new Set([id]))
  })

  test('a 3xx is a failed attempt and is not followed', async () => {
    const trawl = await fresh()
    const r = await receiver((_n, res, hit) => {
      if (hit.path === '/hooks') res.writeHead(302, { location: '/elsewhere' }).end()
      else res.writeHead(200).end()
    })
    const { accountId } = await accountWithWebhook(trawl, r.url)
    worker(trawl.services, { maxAttempts: 1 })
    const { id } = (await enqueueWebhook(trawl.services, { accountId, event: 'crawl.completed', payload: {} }))!
    expect(await finished(trawl.services.store, id)).toMatchObject({ status: 'failed', attempts: 1, last_status_code: 302 })
    expect(r.hits.map((h) => h.path)).toEqual(['/hooks'])
  })

  test('a receiver slower than the attempt timeout is a failed attempt', async () => {
    const trawl = await fresh()
    const r = await receiver(async (_n, res) => {
      await sleep(1500)
      if (!res.destroyed) res.writeHead(200).end()
    })
    const { accountId } = await accountWithWebhook(trawl, r.url)
    worker(trawl.services, { attemptTimeoutMs: 300, maxAttempts: 1 })
    const started = Date.now()
    const { id } = (await enqueueWebhook(trawl.services, { accountId, event: 'crawl.completed', payload: {} }))!
    expect(await finished(trawl.services.store, id)).toMatchObject({ status: 'failed', last_status_code: null, last_error: 'no answer within 300 ms' })
    expect(Date.now() - started).toBeLessThan(1500)
    expect(r.hits).toHaveLength(1)
  })

  test('private addresses are refused unless TRAWL_ALLOW_PRIVATE_NETWORK=true: failed at the first attempt, the receiver sees nothing', async () => {
    const trawl = await fresh({ TRAWL_ALLOW_PRIVATE_NETWORK: 'false', TRAWL_WEBHOOK_RETRY_BASE_MS: '10' })
    const r = await receiver()
    const { accountId } = await accountWithWebhook(trawl, r.url)
    worker(trawl.services)
    const { store } = trawl.services
    const byIp = (await enqueueWebhook(trawl.services, { accountId, event: 'crawl.completed', payload: {} }))!
    const byName = (await enqueueWebhook(trawl.services, { accountId, event: 'crawl.completed', url: r.url.replace('127.0.0.1', 'localhost'), payload: {} }))!
    for (const { id } of [byIp, byName]) {
      // No retry: every later attempt would be refused the same way.
      expect(await finished(store, id)).toMatchObject({
        status: 'failed',
        attempts: 1,
        last_status_code: null,
        last_error: REFUSED_ADDRESS_ERROR,
        lease_owner: null,
      })
    }
    await sleep(200)
    expect((await getWebhookDelivery(store, byIp.id))?.attempts).toBe(1)
    expect(r.hits).toHaveLength(0)
  })

  test('through the API: a batch.completed to a refused address fails at once, and the dashboard deliveries say why', async () => {
    const up = await fakeUpstream(htmlPage(COFFEE))
    cleanups.push(() => up.close())
    const trawl = await startTrawl(
      { TRAWL_ALLOW_PRIVATE_NETWORK: 'false', TRAWL_WEBHOOK_RETRY_BASE_MS: '10', TRAWL_SCHEDULER_POLL_MS: '50', TRAWL_UPSTREAM_HOSTS: `*=${up.url}` },
      { workers: true },
    )
    cleanups.push(() => trawl.close())
    const r = await receiver()
    const email = `${randomUUID()}@example.test`
    const { key } = await trawl.account({ email, password: 'owner-password', plan: 'enterprise', rate_limit_rps: 100, credits: 10 })
    const login = await fetch(`${trawl.base}/app/api/v1/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: trawl.base },
      body: JSON.stringify({ email, password: 'owner-password' }),
    })
    expect(login.status).toBe(200)
    const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0]!
    const dashboard = (method: string, path: string, body?: unknown) =>
      fetch(`${trawl.base}/app/api${path}`, {
        method,
        headers: { cookie, origin: trawl.base, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      })
    expect((await dashboard('PUT', '/v1/webhook', { url: r.url })).status).toBe(200)

    const api = (method: string, path: string, body?: unknown) =>
      fetch(`${trawl.base}${path}`, {
        method,
        headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      })
    const queued = await api('POST', '/v1/batches', { endpoint: 'search', requests: [{ q: 'coffee' }] })
    expect(queued.status).toBe(202)
    const id = (await queued.json()).batches[0].id as string
    const job = await waitFor(async () => {
      const view = await (await api('GET', `/v1/batches/${id}`)).json()
      return view.webhook_status && view.webhook_status !== 'pending' ? view : null
    })
    expect(job).toMatchObject({ status: 'done', webhook_status: 'failed' })

    const { deliveries } = await (await dashboard('GET', '/v1/webhook/deliveries')).json()
    expect(deliveries).toEqual([
      expect.objectContaining({
        event: 'batch.completed',
        url: r.url,
        status: 'failed',
        attempts: 1,
        response_code: null,
        error: REFUSED_ADDRESS_ERROR,
        delivered_at: null,
        next_attempt_at: null,
      }),
    ])
    expect(r.hits).toHaveLength(0)
  })
})

describe('durability', () => {
  test('a delivery queued before the app closes is delivered exactly once by the next app on the same database', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'trawl-webhook-durable-'))
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }))
    const env = { TRAWL_DATABASE_URL: `sqlite:${join(dir, 'trawl.db')}` }
    const r = await receiver()
    const first = await startTrawl({ TRAWL_ALLOW_PRIVATE_NETWORK: 'true', ...env }) // closed below, by hand
    const { accountId, secret } = await accountWithWebhook(first, r.url)
    const { id } = (await enqueueWebhook(first.services, { accountId, event: 'batch.completed', payload: { job: 1 }, id: 'job-durable' }))!
    await first.close()

    const second = await fresh(env)
    worker(second.services)
    expect(await finished(second.services.store, id)).toMatchObject({ status: 'delivered', attempts: 1 })
    await sleep(300)
    expect(r.hits).toHaveLength(1)
    expect(r.hits[0]!.headers['x-trawl-delivery']).toBe('job-durable')
    expect(verifyTrawlSignature(secret, r.hits[0]!)).toBe(true)
  })

  test('a row leased by a worker that died is claimed again when its lease expires, and delivered once', async () => {
    const trawl = await fresh()
    const r = await receiver()
    const { accountId } = await accountWithWebhook(trawl, r.url)
    const { store } = trawl.services
    const { id } = (await enqueueWebhook(trawl.services, { accountId, event: 'crawl.completed', payload: {} }))!
    // What a process killed mid-attempt leaves behind: a running row with a lease nobody renews.
    const claimedAt = Date.now()
    expect(await claimDue(store, 'webhook_deliveries', { workerId: 'killed-worker', leaseMs: 400, limit: 10 })).toEqual([id])
    worker(trawl.services)
    const row = await finished(store, id)
    expect(row).toMatchObject({ status: 'delivered', attempts: 2, lease_owner: null })
    expect(r.hits).toHaveLength(1)
    expect(r.hits[0]!.at - claimedAt).toBeGreaterThanOrEqual(400)
  })
})

describe.skipIf(skipWithoutPostgres)('delivery on PostgreSQL', () => {
  test('workers in separate pools share the queue: every delivery sent exactly once', async () => {
    const database = await createTestDatabase()
    const config = loadConfig({ TRAWL_DATABASE_URL: database.url, TRAWL_ALLOW_PRIVATE_NETWORK: 'true', TRAWL_LOG_LEVEL: 'silent' })
    const stores = [await openStore(database.url), await openStore(database.url), await openStore(database.url)]
    cleanups.push(async () => {
      for (const s of stores) await s.close()
      await database.drop()
    })
    const r = await receiver()
    const [main] = stores as [Store, Store, Store]
    const created = await createAccount(main, { email: 'pg-webhooks@example.test', plan: 'free', credits: 0 })
    await patchAccount(main, created.account.id, { webhook_url: r.url })
    // One process's signals, as the services of one process would have them.
    const signals = memorySignals()
    for (const store of stores) worker({ config, store, signals }, { pollMs: 20, concurrency: 4 })
    const ids: string[] = []
    for (let i = 0; i < 30; i++)
      ids.push((await enqueueWebhook({ store: main, signals }, { accountId: created.account.id, event: 'batch.completed', payload: { i } }))!.id)
    await waitFor(async () => {
      const done = await main.db.selectFrom('webhook_deliveries').select('id').where('status', '=', 'delivered').execute()
      return done.length === ids.length
    })
    await sleep(200)
    expect(r.hits).toHaveLength(30)
    expect(new Set(r.hits.map((h) => h.headers['x-trawl-delivery']))).toEqual(new Set(ids))
    const rows = await main.db.selectFrom('webhook_deliveries').select(['attempts', 'lease_owner']).execute()
    expect(rows.every((row) => row.attempts === 1 && row.lease_owner === null)).toBe(true)
  })
})
