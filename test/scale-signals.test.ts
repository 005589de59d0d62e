import { execFile } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { join } from 'node:path'
import { promisify } from 'node:util'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { batchJobKind } from '../src/features/batches/batches.worker.ts'
import { crawlJobKind } from '../src/features/crawl/crawl.worker.ts'
import { type JobKind, startJobRunner } from '../src/jobs/runner.ts'
import { appDeps } from '../src/services.ts'
import { type CrawlSite, startCrawlSite } from './support/crawl-site.ts'
import { type FakeUpstream, fakeUpstream, fixture, htmlPage } from './support/fake-upstream.ts'
import { createTestDatabase, POSTGRES_ADMIN_URL } from './support/postgres.ts'
import { skipWithoutPostgres, skipWithoutRedis } from './support/servers.ts'
import { startTrawl, type Trawl } from './support/start-trawl.ts'
import { waitFor } from './support/webhook-receiver.ts'

/**
 * Two API instances on one PostgreSQL database stand for two processes of one deployment: what
 * one of them changes reaches the other through the signals (src/signals), over Redis pub/sub or,
 * without Redis, PostgreSQL LISTEN/NOTIFY. Key caches are kept a minute and job polls an hour, so
 * only a signal can explain the other process reacting while the test waits.
 */
const REDIS_URL = 'redis://127.0.0.1:6379'
const HOUR = 3_600_000

let upstream: FakeUpstream
let site: CrawlSite
beforeAll(async () => {
  upstream = await fakeUpstream(htmlPage(fixture('serp/google/web-desktop/zlurad-coffee.html')))
  site = await startCrawlSite()
})
afterAll(async () => {
  await upstream.close()
  await site.close()
})

const transports: { name: string; transport: string; env: Record<string, string>; skip: boolean }[] = [
  { name: 'Redis pub/sub', transport: 'redis', env: { TRAWL_REDIS_URL: REDIS_URL }, skip: skipWithoutPostgres || skipWithoutRedis },
  { name: 'PostgreSQL LISTEN/NOTIFY', transport: 'postgres', env: {}, skip: skipWithoutPostgres },
]

for (const t of transports) {
  describe.skipIf(t.skip)(`two processes signalled over ${t.name}`, () => {
    let a: Trawl
    let b: Trawl
    let drop: () => Promise<void>
    let env: Record<string, string>
    beforeAll(async () => {
      const db = await createTestDatabase()
      drop = db.drop
      env = {
        ...t.env,
        TRAWL_DATABASE_URL: db.url,
        TRAWL_KEY_CACHE_MS: '60000',
        TRAWL_SCHEDULER_POLL_MS: String(HOUR),
        TRAWL_UPSTREAM_HOSTS: `*=${upstream.url}`,
        TRAWL_ALLOW_PRIVATE_NETWORK: 'true',
      }
      a = await startTrawl(env)
      b = await startTrawl(env)
    })
    afterAll(async () => {
      await a?.close()
      await b?.close()
      await drop?.()
    })

    const call = (p: Trawl, key: string, method: string, path: string, body?: unknown) =>
      fetch(`${p.base}${path}`, {
        method,
        headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
        body: body ? JSON.stringify(body) : undefined,
      })

    /** A's dashboard, logged in as the account's owner. */
    async function dashboardOnA(email: string, password: string) {
      const login = await fetch(`${a.base}/app/api/v1/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email, password }),
      })
      expect(login.status).toBe(200)
      const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0] ?? ''
      return (method: string, path: string, body?: unknown) =>
        fetch(`${a.base}/app/api${path}`, {
          method,
          headers: { cookie, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
          body: body === undefined ? undefined : JSON.stringify(body),
        })
    }

    /** B's runner of one job kind, polling once an hour: only a wake-up signal makes it look sooner. */
    function runnerOnB(kind: JobKind) {
      return startJobRunner(b.services, b.app.log, { ...kind, pollMs: HOUR }, HOUR)
    }

    test('both use the expected transport', () => {
      expect(a.services.signals.transport).toBe(t.transport)
      expect(b.services.signals.transport).toBe(t.transport)
    })

    test('a key rotated or revoked through A is refused by B, which had it cached', async () => {
      const email = `${randomUUID()}@example.test`
      const { key } = await a.account({ email, password: 'owner-password', plan: 'pro' })
      const dashboard = await dashboardOnA(email, 'owner-password')
      const second = await (await dashboard('POST', '/v1/keys', { name: 'second' })).json()
      const keyId = (await (await call(b, key, 'GET', '/v1/account')).json()).key.id
      // B validates both keys and caches them for a minute.
      expect((await call(b, key, 'GET', '/v1/account')).status).toBe(200)
      expect((await call(b, second.secret, 'GET', '/v1/account')).status).toBe(200)

      const rotated = await (await dashboard('POST', `/v1/keys/${second.id}/rotate`)).json()
      expect(await waitFor(async () => (await call(b, second.secret, 'GET', '/v1/account')).status === 401)).toBe(true)
      expect((await call(b, rotated.secret, 'GET', '/v1/account')).status).toBe(200)

      expect((await dashboard('DELETE', `/v1/keys/${keyId}`)).status).toBe(204)
      const refused = await waitFor(async () => {
        const res = await call(b, key, 'GET', '/v1/account')
        return res.status === 401 ? res.json() : null
      })
      expect(refused.error).toMatchObject({ code: 'unauthorized', message: 'API key was revoked' })
    })

    test('`trawl keys revoke` run beside the servers reaches B at once', async () => {
      const { key } = await a.account({ plan: 'pro' })
      const keyId = (await (await call(b, key, 'GET', '/v1/account')).json()).key.id
      const env = { PATH: process.env.PATH ?? '', ...t.env, TRAWL_DATABASE_URL: b.services.config.databaseUrl }
      const run = await promisify(execFile)(process.execPath, [join(import.meta.dirname, '..', 'bin', 'trawl.mjs'), 'keys', 'revoke', keyId], { env })
      // Only the line naming the database (PostgreSQL's host and database, never its password).
      expect(run.stderr).toMatch(/^trawl: database PostgreSQL \S+ \(TRAWL_DATABASE_URL\)\n$/)
      expect(await waitFor(async () => (await call(b, key, 'GET', '/v1/account')).status === 401)).toBe(true)
    })

    test("an account's rate limit changed through A applies to the keys B has cached", async () => {
      const { id, key } = await a.account({ plan: 'enterprise', rate_limit_rps: 1, credits: 1000 })
      const burst = async () => (await Promise.all(Array.from({ length: 5 }, () => call(b, key, 'GET', '/v1/search?q=coffee')))).map((r) => r.status)
      // B caches the key with 1 request a second: a burst is mostly refused.
      expect((await burst()).filter((status) => status === 429).length).toBeGreaterThan(0)
      expect((await a.admin('PATCH', `/admin/v1/accounts/${id}`, { rate_limit_rps: 1000 })).status).toBe(200)
      expect(await waitFor(async () => (await burst()).every((status) => status === 200))).toBe(true)
    })

    test('a batch queued through A wakes the idle batch runner in B at once', async () => {
      const runner = runnerOnB(batchJobKind(appDeps(b.services, b.app.log)))
      try {
        const { key } = await a.account({ plan: 'pro', credits: 100 })
        const posted = await (await call(a, key, 'POST', '/v1/batches', { endpoint: 'search', requests: [{ q: 'coffee' }] })).json()
        const id = posted.batches[0].id
        const job = await waitFor(async () => {
          const view = await (await call(a, key, 'GET', `/v1/batches/${id}`)).json()
          return view.status === 'done' || view.status === 'failed' ? view : null
        })
        expect(job).toMatchObject({ status: 'done', credits_used: 0.5 })
        expect(job.result.results.length).toBeGreaterThan(0)
      } finally {
        await runner.stop()
      }
    })

    test('a proxy that failed in one process cools down in the other', async () => {
      // Port 1 refuses connections: the proxy's own penalty starts at the first attempt.
      const pools = { ...env, TRAWL_PROXY_POOLS: 'main=http://127.0.0.1:1,http://127.0.0.1:2' }
      const c = await startTrawl(pools)
      const d = await startTrawl(pools)
      try {
        expect(d.services.upstream.poolHealth().every((p) => p.healthy)).toBe(true)
        const { key } = await c.account({ plan: 'pro' })
        expect((await call(c, key, 'GET', '/v1/search?q=coffee&engine=google')).status).toBe(503)
        const failedInC = c.services.upstream.poolHealth().filter((p) => !p.healthy)
        expect(failedInC.length).toBeGreaterThan(0)
        const coolingInD = await waitFor(() => {
          const cooling = d.services.upstream.poolHealth().filter((p) => !p.healthy)
          return cooling.length === failedInC.length ? cooling : null
        })
        expect(coolingInD.map((p) => [p.proxy, p.coolingUntil])).toEqual(failedInC.map((p) => [p.proxy, p.coolingUntil]))
      } finally {
        await c.close()
        await d.close()
      }
    })

    test.skipIf(t.transport !== 'postgres')('a LISTEN connection that breaks is opened again, and signals flow once more', async () => {
      const admin = new pg.Client({ connectionString: POSTGRES_ADMIN_URL })
      await admin.connect()
      try {
        const database = new URL(env.TRAWL_DATABASE_URL!).pathname.slice(1)
        const killed = await admin.query("select pid, pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and query like 'LISTEN %'", [database])
        expect(killed.rowCount).toBe(2) // A's and B's listeners
        // New listeners, not the killed ones (a terminated backend may still be listed for a moment).
        const old = killed.rows.map((r) => r.pid as number)
        const listening = async () =>
          (
            await admin.query("select count(*)::int as n from pg_stat_activity where datname = $1 and query like 'LISTEN %' and not (pid = any($2))", [
              database,
              old,
            ])
          ).rows[0].n === 2
        expect(await waitFor(listening)).toBe(true)
      } finally {
        await admin.end()
      }
      const { key } = await a.account({ plan: 'pro' })
      const keyId = (await (await call(b, key, 'GET', '/v1/account')).json()).key.id
      await a.services.store.db.updateTable('api_keys').set({ revoked_at: Date.now() }).where('id', '=', keyId).execute()
      a.services.keys.invalidate(keyId)
      expect(await waitFor(async () => (await call(b, key, 'GET', '/v1/account')).status === 401)).toBe(true)
    })

    test.skipIf(t.transport !== 'redis')("a site's robots.txt fetched by one process is reused by the other", async () => {
      const fresh = await startCrawlSite()
      try {
        const inA = await a.services.robots.get(`${fresh.url}/`)
        const inB = await b.services.robots.get(`${fresh.url}/blog/`)
        expect(fresh.requests.filter((r) => r === '/robots.txt')).toHaveLength(1)
        expect([inA.status, inB.status]).toEqual(['found', 'found'])
        expect([inB.isAllowed(`${fresh.url}/private/x`), inB.isAllowed(`${fresh.url}/blog/`)]).toEqual([false, true])
      } finally {
        await fresh.close()
      }
    })

    test("a crawl canceled through A stops in B's worker", async () => {
      // Every page but the first takes 3 s: the crawl is still running when the DELETE comes.
      const slow = ['/about', '/blog/', '/docs/guide', '/blog/post-1', '/blog/post-2', '/docs/api', '/slow']
      for (const path of slow) site.set(path, { status: 200, body: '<p>slow</p>', delayMs: 3000 })
      const runner = runnerOnB(crawlJobKind(b.services, b.app.log))
      try {
        const { key } = await a.account({ plan: 'pro', credits: 100 })
        const created = await (await call(a, key, 'POST', '/v1/crawl', { url: site.url, limit: 20, sitemap: 'skip' })).json()
        const view = async () => (await call(a, key, 'GET', `/v1/crawl/${created.id}`)).json()
        // Woken by hand too, so that this test is about the cancel signal only (the batch test covers wake-ups).
        runner.wake()
        expect(await waitFor(async () => (await view()).progress?.pages_done >= 1)).toBe(true)
        expect((await call(a, key, 'DELETE', `/v1/crawl/${created.id}`)).status).toBe(200)
        // B's safety poll of the flag runs every 15 s; the wait ends well before it.
        const ended = await waitFor(async () => {
          const task = await view()
          return task.status === 'running' || task.status === 'queued' ? null : task
        }, 11_000)
        expect(ended).toMatchObject({ status: 'canceled', result: { stats: { stopped: 'canceled' } } })
        expect(ended.credits_used).toBe(ended.result.pages.length)
        expect(ended.result.pages.length).toBeLessThan(20)
      } finally {
        await runner.stop()
        for (const path of slow) site.reset(path)
      }
    })
  })
}
