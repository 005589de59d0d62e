import { type ChildProcess, spawn } from 'node:child_process'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { expectBooksBalanced } from './support/books.ts'
import { type FakeUpstream, fakeUpstream, fixture } from './support/fake-upstream.ts'
import { createTestDatabase } from './support/postgres.ts'
import { skipWithoutPostgres } from './support/servers.ts'
import { startTrawl, type Trawl } from './support/start-trawl.ts'
import { waitFor } from './support/webhook-receiver.ts'

/**
 * A `trawl worker` process killed with SIGKILL in the middle of batch jobs and monitor runs: its
 * leases expire, a second worker process takes the work over, and in the end every job and every
 * due run happened once, billed once, with the books balanced. PostgreSQL, as a deployment with
 * several worker processes would run it.
 */
const TRAWL = new URL('../bin/trawl.mjs', import.meta.url).pathname
const PAGE = fixture('serp/google/web-desktop/zlurad-coffee.html')

let upstream: FakeUpstream
let monitorSearches = 0
beforeAll(async () => {
  // Every engine answer takes 250 ms (monitor searches 2.5 s), so the first worker is always in the middle of something.
  upstream = await fakeUpstream((req, res) => {
    const monitor = req.url?.includes('kill+monitor') || req.url?.includes('kill%20monitor')
    if (monitor) monitorSearches++
    setTimeout(() => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(PAGE), monitor ? 2500 : 250)
  })
})
afterAll(() => upstream.close())

function startWorker(env: Record<string, string>): ChildProcess {
  const child = spawn(process.execPath, [TRAWL, 'worker'], { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'inherit'] })
  return child
}

describe.skipIf(skipWithoutPostgres)('a worker killed mid-work', () => {
  let db: { url: string; drop(): Promise<void> }
  let api: Trawl
  let env: Record<string, string>
  const children: ChildProcess[] = []
  beforeAll(async () => {
    db = await createTestDatabase()
    env = {
      TRAWL_DATABASE_URL: db.url,
      TRAWL_UPSTREAM_HOSTS: `*=${upstream.url}`,
      TRAWL_SCHEDULER_POLL_MS: '100',
      TRAWL_JOB_LEASE_MS: '1500',
      TRAWL_LOG_LEVEL: 'warn',
    }
    // The API process runs no workers: all the work happens in the child processes.
    api = await startTrawl({ ...env, TRAWL_WORKERS: 'false' })
  })
  afterAll(async () => {
    for (const c of children) c.kill('SIGKILL')
    await api.close()
    await db.drop()
  })

  test('nothing is lost or billed twice', { timeout: 90_000 }, async () => {
    const { id: accountId, key } = await api.account({ plan: 'pro', credits: 500 })
    const call = (method: string, path: string, body?: unknown) =>
      fetch(`${api.base}${path}`, {
        method,
        headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
        body: body ? JSON.stringify(body) : undefined,
      }).then((r) => r.json())

    const batch = await call('POST', '/v1/batches', { endpoint: 'search', requests: Array.from({ length: 40 }, (_, i) => ({ q: `kill test ${i}` })) })
    const jobIds = (batch.batches as { id: string }[]).map((j) => j.id)
    expect(jobIds).toHaveLength(40)
    const monitorIds: string[] = []
    for (let i = 0; i < 4; i++) monitorIds.push((await call('POST', '/v1/monitors', { q: `kill monitor ${i}`, interval: 'hourly' })).id)

    const first = startWorker(env)
    children.push(first)
    const done = async () => (await Promise.all(jobIds.map((id) => call('GET', `/v1/batches/${id}`)))).filter((j) => j.status === 'done').length
    const monitorsRunning = async () => (await api.services.store.db.selectFrom('monitors').select('id').where('status', '=', 'running').execute()).length
    // Kill it once some jobs are done, others in flight, and every monitor's first run is asking the engine.
    await waitFor(async () => (await done()) >= 5 && (await monitorsRunning()) === 4, 30_000)
    first.kill('SIGKILL')
    await new Promise((r) => first.once('exit', r))
    const doneAtKill = await done()
    expect(doneAtKill).toBeLessThan(40)

    const second = startWorker(env)
    children.push(second)
    await waitFor(async () => (await done()) === 40, 60_000)
    for (const id of monitorIds) await waitFor(async () => (await call('GET', `/v1/monitors/${id}`)).runs >= 1, 30_000)
    second.kill('SIGTERM')
    await new Promise((r) => second.once('exit', r))

    const jobs = await Promise.all(jobIds.map((id) => call('GET', `/v1/batches/${id}`)))
    for (const job of jobs) {
      expect(job.status).toBe('done')
      expect(job.credits_used).toBe(0.5)
      expect(job.result.results.length).toBeGreaterThan(0)
    }
    for (const id of monitorIds) {
      const monitor = await call('GET', `/v1/monitors/${id}`)
      expect(monitor.runs).toBe(1)
      expect(monitor.credits_used).toBe(1)
      const runs = await call('GET', `/v1/monitors/${id}/runs`)
      expect(runs.runs).toHaveLength(1)
    }
    // 40 jobs at 0.5 and 4 first runs at 1: 24 credits, whatever the kill interrupted.
    expect(await expectBooksBalanced(api, accountId)).toBe(500 - 24)
    // Each monitor's due run was asked twice (the killed worker's try and the survivor's), recorded and billed once.
    expect(monitorSearches).toBe(8)
  })
})
