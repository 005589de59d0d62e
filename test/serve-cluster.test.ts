import { type ChildProcess, execFile, spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { request } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { type FakeUpstream, fakeUpstream, fixture, htmlPage } from './support/fake-upstream.ts'
import { freePort } from './support/free-port.ts'
import { skipWithoutRedis } from './support/servers.ts'
import { ADMIN_TOKEN } from './support/start-trawl.ts'
import { waitFor } from './support/webhook-receiver.ts'

/**
 * `trawl serve --processes 2` as an operator runs it: a cluster primary and two server processes
 * on one port, here over one SQLite file (WAL) with Redis carrying the signals between them.
 */
const TRAWL = join(import.meta.dirname, '..', 'bin', 'trawl.mjs')

let upstream: FakeUpstream
let dir: string
beforeAll(async () => {
  upstream = await fakeUpstream(htmlPage(fixture('serp/google/web-desktop/zlurad-coffee.html')))
  dir = mkdtempSync(join(tmpdir(), 'trawl-cluster-'))
})
afterAll(async () => {
  await upstream.close()
  rmSync(dir, { recursive: true, force: true })
})

const baseEnv = (port: number, extra: Record<string, string> = {}) => ({
  PATH: process.env.PATH ?? '',
  TRAWL_DATABASE_URL: `sqlite:${join(dir, `trawl-${port}.db`)}`,
  TRAWL_ADMIN_TOKEN: ADMIN_TOKEN,
  TRAWL_PORT: String(port),
  TRAWL_LOG_LEVEL: 'info',
  TRAWL_UPSTREAM_HOSTS: `*=${upstream.url}`,
  ...extra,
})

/** One request on a connection of its own, so the cluster's round robin hands each to the next process. */
function fresh(url: string, headers: Record<string, string> = {}, method = 'GET', body?: string) {
  return new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }>((resolve, reject) => {
    const req = request(url, { method, headers: { ...headers, connection: 'close' }, agent: false }, (res) => {
      let text = ''
      res.setEncoding('utf8')
      res.on('data', (c) => {
        text += c
      })
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }))
    })
    req.once('error', reject)
    req.end(body)
  })
}

test('--processes above 1 on SQLite without Redis is refused with a usage error', async () => {
  const port = await freePort()
  const run = await promisify(execFile)(process.execPath, [TRAWL, 'serve', '--processes', '2'], { env: baseEnv(port) }).catch((e) => e)
  expect(run.code).toBe(2)
  expect(run.stderr).toContain('--processes above 1 needs TRAWL_REDIS_URL or a PostgreSQL TRAWL_DATABASE_URL')
  const bad = await promisify(execFile)(process.execPath, [TRAWL, 'serve', '--processes', 'many'], { env: baseEnv(port) }).catch((e) => e)
  expect(bad.code).toBe(2)
  expect(bad.stderr).toContain('--processes must be an integer from 1 to 64')
})

describe.skipIf(skipWithoutRedis)('trawl serve --processes 2', () => {
  let child: ChildProcess
  let base: string
  const lines: { pid?: number; msg?: string; url?: string; reqId?: string; res?: { statusCode: number } }[] = []
  const listening = () => lines.filter((l) => l.msg?.startsWith('Trawl listening on'))

  beforeAll(async () => {
    const port = await freePort()
    base = `http://127.0.0.1:${port}`
    child = spawn(process.execPath, [TRAWL, 'serve', '--processes', '2'], {
      env: baseEnv(port, { TRAWL_REDIS_URL: 'redis://127.0.0.1:6379', TRAWL_WORKERS: 'false', TRAWL_KEY_CACHE_MS: '60000' }),
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let pending = ''
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      pending += chunk
      const parts = pending.split('\n')
      pending = parts.pop() ?? ''
      for (const part of parts) {
        try {
          lines.push(JSON.parse(part))
        } catch {
          // not a log line
        }
      }
    })
    await waitFor(() => listening().length >= 2, 30_000)
  }, 40_000)

  afterAll(() => {
    if (child.exitCode === null) child.kill('SIGKILL')
  })

  test('both processes answer on the one port, and billing over the shared SQLite file adds up', async () => {
    expect(new Set(listening().map((l) => l.pid)).size).toBe(2)
    const created = await fresh(
      `${base}/admin/v1/accounts`,
      { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      'POST',
      JSON.stringify({ email: 'cluster@example.test', credits: 100, plan: 'pro' }),
    )
    expect(created.status).toBe(201)
    const key = JSON.parse(created.body).key.secret as string
    let used = 0
    const ids: string[] = []
    for (let i = 0; i < 8; i++) {
      const res = await fresh(`${base}/v1/search?q=coffee+${i}`, { authorization: `Bearer ${key}` })
      expect(res.status).toBe(200)
      used += Number(res.headers['x-credits-used'])
      ids.push(String(res.headers['x-request-id']))
    }
    // Fastify logs every request with the pid of the process that served it.
    const servedBy = new Set(lines.filter((l) => l.reqId && ids.includes(l.reqId)).map((l) => l.pid))
    expect(servedBy.size).toBe(2)
    const account = JSON.parse((await fresh(`${base}/v1/account`, { authorization: `Bearer ${key}` })).body)
    expect(account.balance).toBe(100 - used)
  })

  test('a process that dies is replaced; SIGTERM drains them all and the primary exits 0', async () => {
    const [first] = listening()
    process.kill(first!.pid!, 'SIGKILL')
    await waitFor(() => listening().length >= 3, 30_000)
    const pids = new Set(listening().map((l) => l.pid))
    expect(pids.size).toBe(3)
    expect((await fresh(`${base}/livez`)).status).toBe(200)

    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
    child.kill('SIGTERM')
    expect(await exited).toBe(0)
    const alive = (pid: number) => {
      try {
        process.kill(pid, 0)
        return true
      } catch {
        return false
      }
    }
    expect([...pids].filter((pid) => pid !== first!.pid && alive(pid!))).toEqual([])
  }, 40_000)
})
