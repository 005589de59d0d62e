import { connect } from 'node:net'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { isOutage } from '../src/store/outage.ts'
import { type FakeUpstream, fakeUpstream, fixture } from './support/fake-upstream.ts'
import { freePort } from './support/free-port.ts'
import { createTestDatabase, POSTGRES_ADMIN_URL } from './support/postgres.ts'
import { skipWithoutPostgres } from './support/servers.ts'
import { startTrawl, type Trawl } from './support/start-trawl.ts'
import { waitFor } from './support/webhook-receiver.ts'

/**
 * Faults one process must survive (bench/scale has the multi-process proofs): the database closed
 * under it, Redis unreachable, slow clients holding connections, requests that are not HTTP/1.1.
 * No server of the machine is stopped here: other tests share them.
 */
const ANSWER = fixture('serp/wikipedia/api/android-full-text-search-generator.json')

let upstream: FakeUpstream
beforeAll(async () => {
  upstream = await fakeUpstream((_req, res) => res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' }).end(ANSWER))
})
afterAll(() => upstream.close())

const search = (t: Trawl, key: string, q = 'faults') => fetch(`${t.base}/v1/search?q=${q}&engine=wikipedia`, { headers: { authorization: `Bearer ${key}` } })

/** Writes `bytes`, then resolves with everything the server sent before closing. */
function raw(port: number, bytes: string, drip?: { text: string; everyMs: number }): Promise<{ status: number; body: string }> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1')
    const chunks: Buffer[] = []
    let timer: NodeJS.Timeout | undefined
    socket.on('connect', () => {
      socket.write(bytes)
      let i = 0
      if (drip) timer = setInterval(() => i < drip.text.length && !socket.destroyed && socket.write(drip.text[i++]!), drip.everyMs)
    })
    socket.on('data', (c) => chunks.push(c))
    socket.on('error', () => {})
    socket.on('close', () => {
      clearInterval(timer)
      const text = Buffer.concat(chunks).toString('utf8')
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0), body: text.slice(text.indexOf('\r\n\r\n') + 4) })
    })
  })
}

describe('slow and broken clients', () => {
  let trawl: Trawl
  let key: string
  beforeAll(async () => {
    trawl = await startTrawl({ TRAWL_UPSTREAM_HOSTS: `*=${upstream.url}`, TRAWL_HEADERS_TIMEOUT_MS: '1000', TRAWL_REQUEST_TIMEOUT_MS: '2000' })
    key = (await trawl.account({ plan: 'enterprise', credits: 1000 })).key
  })
  afterAll(() => trawl.close())

  test('clients dripping headers or a body are cut off with a 408 envelope while normal requests are served', { timeout: 30_000 }, async () => {
    const port = Number(new URL(trawl.base).port)
    const slow = Array.from({ length: 20 }, (_, i) =>
      i % 2 === 0
        ? raw(port, 'GET /v1/search?q=slow HTTP/1.1\r\nHost: x\r\n', { text: `X-Slow: ${'s'.repeat(100)}\r\n\r\n`, everyMs: 200 })
        : raw(
            port,
            `POST /v1/search HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n{"q":"`,
            {
              text: 's'.repeat(490),
              everyMs: 200,
            },
          ),
    )
    for (let i = 0; i < 10; i++) expect((await search(trawl, key, `normal${i}`)).status).toBe(200)
    for (const answer of await Promise.all(slow)) {
      expect(answer.status).toBe(408)
      expect(JSON.parse(answer.body).error.code).toBe('invalid_request')
    }
  })

  test('an HTTP/1.1 request without Host gets the envelope', async () => {
    const answer = await raw(Number(new URL(trawl.base).port), 'GET /v1/search?q=x HTTP/1.1\r\nConnection: close\r\n\r\n')
    expect(answer.status).toBe(400)
    expect(JSON.parse(answer.body).error).toMatchObject({ code: 'invalid_request', message: 'HTTP/1.1 requests must send a Host header' })
  })
})

describe('Redis unreachable', () => {
  test('/healthz names the cache as down and searches are still served', async () => {
    const trawl = await startTrawl({ TRAWL_UPSTREAM_HOSTS: `*=${upstream.url}`, TRAWL_REDIS_URL: `redis://127.0.0.1:${await freePort()}` })
    try {
      const { key } = await trawl.account({ plan: 'enterprise', credits: 100 })
      const health = await fetch(`${trawl.base}/healthz`)
      expect(health.status).toBe(503)
      expect((await health.json()).checks.cache).toMatch(/^down/)
      expect((await search(trawl, key)).status).toBe(200)
    } finally {
      await trawl.close()
    }
  })
})

describe.skipIf(skipWithoutPostgres)('the database closed under a running process', () => {
  test('calls fail with 503 unavailable, /healthz says so, and both recover on their own', { timeout: 60_000 }, async () => {
    const db = await createTestDatabase()
    const name = new URL(db.url).pathname.slice(1)
    // Keys are looked up on every call (no key cache), so every call needs the database.
    const trawl = await startTrawl({ TRAWL_DATABASE_URL: db.url, TRAWL_UPSTREAM_HOSTS: `*=${upstream.url}`, TRAWL_KEY_CACHE_MS: '0' })
    const admin = new pg.Client({ connectionString: POSTGRES_ADMIN_URL })
    await admin.connect()
    try {
      const { key } = await trawl.account({ plan: 'enterprise', credits: 100 })
      expect((await search(trawl, key)).status).toBe(200)

      // Closed for maintenance: open connections are cut ("terminating connection due to
      // administrator command"), new ones refused. The process must not crash on either.
      await admin.query(`alter database ${name} with allow_connections false`)
      await admin.query('select pg_terminate_backend(pid) from pg_stat_activity where datname = $1', [name])
      const down = await search(trawl, key)
      expect(down.status).toBe(503)
      expect(down.headers.get('retry-after')).toBe('5')
      expect((await down.json()).error.code).toBe('unavailable')
      const health = await fetch(`${trawl.base}/healthz`)
      expect(health.status).toBe(503)
      expect((await health.json()).checks.database).toMatch(/^down/)

      await admin.query(`alter database ${name} with allow_connections true`)
      await waitFor(async () => (await search(trawl, key)).status === 200, 20_000)
      expect((await fetch(`${trawl.base}/healthz`)).status).toBe(200)
    } finally {
      await admin.query(`alter database ${name} with allow_connections true`).catch(() => {})
      await admin.end()
      await trawl.close()
      await db.drop()
    }
  })
})

test('outage errors are told apart from bugs', () => {
  expect(isOutage(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }))).toBe(true)
  expect(isOutage(Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }))).toBe(true)
  expect(isOutage(new Error('timeout exceeded when trying to connect'))).toBe(true)
  expect(isOutage(new Error("Stream isn't writeable and enableOfflineQueue options is false"))).toBe(true)
  expect(isOutage(new Error('wrapped', { cause: Object.assign(new Error('x'), { code: '08006' }) }))).toBe(true)
  expect(isOutage(Object.assign(new Error('duplicate key value violates unique constraint'), { code: '23505' }))).toBe(false)
  expect(isOutage(new TypeError("Cannot read properties of undefined (reading 'x')"))).toBe(false)
})
