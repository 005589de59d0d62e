import { type ChildProcess, spawn } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { once } from 'node:events'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Redis } from 'ioredis'
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest'
import { batchJobKind } from '../src/features/batches/batches.worker.ts'
import { startJobRunner } from '../src/jobs/runner.ts'
import { appDeps } from '../src/services.ts'
import { SIGNAL_CHANNEL } from '../src/signals/redis.signals.ts'
import { type FakeUpstream, fakeUpstream, fixture, htmlPage } from './support/fake-upstream.ts'
import { freePort } from './support/free-port.ts'
import { createTestDatabase } from './support/postgres.ts'
import { reachable } from './support/reachable.ts'
import { skipWithoutPostgres } from './support/servers.ts'
import { startTrawl, type Trawl } from './support/start-trawl.ts'
import { waitFor } from './support/webhook-receiver.ts'

/**
 * Signals over Redis after the connection broke (src/signals/redis.signals.ts): the subscriber
 * reconnects and subscribes again on its own. Each test runs its own throwaway redis-server on a
 * free loopback port, never the shared one, so it can kill connections and restart the server.
 * Key caches are kept a minute and job polls an hour: only a signal explains another process
 * reacting while the test waits.
 */
const HOUR = 3_600_000
const hasRedisServer = await new Promise<boolean>((resolve) => {
  const probe = spawn('redis-server', ['--version'], { stdio: 'ignore' })
  probe.once('error', () => resolve(false))
  probe.once('exit', (code) => resolve(code === 0))
})
const inCi = process.env.CI === 'true' || process.env.CI === '1'

/** A redis-server of the test's own: no persistence, loopback only; restartable on the same port. */
async function throwawayRedis() {
  const port = await freePort()
  const dir = mkdtempSync(join(tmpdir(), 'trawl-redis-'))
  let child: ChildProcess | null = null
  const start = async () => {
    child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], { stdio: 'ignore' })
    await waitFor(() => reachable(port), 10_000)
  }
  const stop = async () => {
    const running = child
    child = null
    if (!running || running.exitCode !== null) return
    running.kill('SIGKILL')
    await once(running, 'exit')
  }
  await start()
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    /** A plain client for the test's own commands (CLIENT KILL, PUBSUB). */
    admin: () => new Redis({ port, host: '127.0.0.1', lazyConnect: false, maxRetriesPerRequest: 1 }),
    restart: async () => {
      await stop()
      await start()
    },
    close: async () => {
      await stop()
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

let upstream: FakeUpstream
beforeAll(async () => {
  upstream = await fakeUpstream(htmlPage(fixture('serp/google/web-desktop/zlurad-coffee.html')))
})
afterAll(() => upstream.close())

const cleanups: (() => Promise<unknown>)[] = []
afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn()
})

const databases: { name: string; skip: boolean; open(): Promise<{ env: Record<string, string>; opts: { databaseDir?: string } }> }[] = [
  {
    name: 'SQLite (one file, two processes)',
    skip: false,
    async open() {
      const dir = mkdtempSync(join(tmpdir(), 'trawl-signals-'))
      cleanups.push(async () => rmSync(dir, { recursive: true, force: true }))
      return { env: {}, opts: { databaseDir: dir } }
    },
  },
  {
    name: 'PostgreSQL',
    skip: skipWithoutPostgres,
    async open() {
      const db = await createTestDatabase()
      cleanups.push(() => db.drop())
      return { env: { TRAWL_DATABASE_URL: db.url }, opts: {} }
    },
  },
]

for (const database of databases) {
  describe.skipIf(database.skip || (!hasRedisServer && !inCi))(`Redis signals after the connection broke, on ${database.name}`, () => {
    /** Two processes A and B on one database and the throwaway Redis; B's keys are cached a minute. */
    async function twoProcesses() {
      const redis = await throwawayRedis()
      cleanups.push(() => redis.close())
      const { env, opts } = await database.open()
      const shared = {
        ...env,
        TRAWL_REDIS_URL: redis.url,
        TRAWL_KEY_CACHE_MS: '60000',
        TRAWL_SCHEDULER_POLL_MS: String(HOUR),
        TRAWL_UPSTREAM_HOSTS: `*=${upstream.url}`,
        TRAWL_ALLOW_PRIVATE_NETWORK: 'true',
      }
      const a = await startTrawl(shared, opts)
      cleanups.push(() => a.close())
      const b = await startTrawl(shared, opts)
      cleanups.push(() => b.close())
      const admin = redis.admin()
      admin.on('error', () => {})
      cleanups.push(async () => admin.disconnect())
      expect([a.services.signals.transport, b.services.signals.transport]).toEqual(['redis', 'redis'])
      return { a, b, redis, admin }
    }

    const subscribers = async (admin: Redis) => Number(((await admin.pubsub('NUMSUB', SIGNAL_CHANNEL)) as [string, number])[1])

    /** Waits until both processes listen again and A's shared connection (the one it publishes on) is back. */
    async function listeningAgain(a: Trawl, admin: Redis, oldSubscribers: string[] = []) {
      await waitFor(async () => {
        const ids = pubsubClientIds(String(await admin.call('CLIENT', 'LIST', 'TYPE', 'pubsub')))
        return ids.length === 2 && ids.every((id) => !oldSubscribers.includes(id)) && (await subscribers(admin)) === 2
      }, 20_000)
      await waitFor(() => a.services.redis?.status === 'ready', 20_000)
    }

    const pubsubClientIds = (list: string) => [...list.matchAll(/\bid=(\d+)\b/g)].map((m) => m[1]!)

    const call = (t: Trawl, key: string, method: string, path: string, body?: unknown) =>
      fetch(`${t.base}${path}`, {
        method,
        headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
        body: body ? JSON.stringify(body) : undefined,
      })

    /** A's dashboard, signed in as the account's owner. */
    async function dashboardOn(t: Trawl, email: string, password: string) {
      const login = await fetch(`${t.base}/app/api/v1/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: t.base },
        body: JSON.stringify({ email, password }),
      })
      expect(login.status).toBe(200)
      const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0] ?? ''
      return (method: string, path: string) => fetch(`${t.base}/app/api${path}`, { method, headers: { cookie, origin: t.base } })
    }

    test('after CLIENT KILL of the subscribers, a key revoked through A is refused by B, which had it cached', async () => {
      const { a, b, admin } = await twoProcesses()
      expect(await subscribers(admin)).toBe(2)
      const email = `${randomUUID()}@example.test`
      const { key } = await a.account({ email, password: 'owner-password', plan: 'pro' })
      const keyId = (await (await call(b, key, 'GET', '/v1/account')).json()).key.id as string
      expect((await call(b, key, 'GET', '/v1/account')).status).toBe(200) // cached in B for a minute

      const before = pubsubClientIds(String(await admin.call('CLIENT', 'LIST', 'TYPE', 'pubsub')))
      expect(before).toHaveLength(2)
      expect(await admin.call('CLIENT', 'KILL', 'TYPE', 'pubsub')).toBe(2)
      await listeningAgain(a, admin, before)

      const dashboard = await dashboardOn(a, email, 'owner-password')
      expect((await dashboard('DELETE', `/v1/keys/${keyId}`)).status).toBe(204)
      const refused = await waitFor(async () => {
        const res = await call(b, key, 'GET', '/v1/account')
        return res.status === 401 ? res.json() : null
      })
      expect(refused.error).toMatchObject({ code: 'unauthorized', message: 'API key was revoked' })
    })

    test('after the Redis server restarts, a batch queued through A wakes the idle batch runner in B', async () => {
      const { a, b, redis, admin } = await twoProcesses()
      const runner = startJobRunner(b.services, b.app.log, { ...batchJobKind(appDeps(b.services, b.app.log)), pollMs: HOUR }, HOUR)
      cleanups.push(() => runner.stop())
      // A throwaway server has no memory of the old subscriptions: only resubscribing brings them back.
      await redis.restart()
      await listeningAgain(a, admin)

      const { key } = await a.account({ plan: 'pro', credits: 100 })
      const posted = await (await call(a, key, 'POST', '/v1/batches', { endpoint: 'search', requests: [{ q: 'coffee' }] })).json()
      const id = posted.batches[0].id as string
      const job = await waitFor(async () => {
        const view = await (await call(a, key, 'GET', `/v1/batches/${id}`)).json()
        return view.status === 'done' || view.status === 'failed' ? view : null
      }, 15_000)
      expect(job).toMatchObject({ status: 'done', credits_used: 0.5 })
    })
  })
}
