import { execFile } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { copyFileSync, mkdtempSync, rmSync, statSync } from 'node:fs'
import { request } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Writable } from 'node:stream'
import { promisify } from 'node:util'
import Sqlite from 'better-sqlite3'
import { afterEach, describe, expect, test } from 'vitest'
import { dashboardSession } from './support/dashboard-page.ts'
import { createTestDatabase } from './support/postgres.ts'
import { skipWithoutPostgres } from './support/servers.ts'
import { startTrawl, type Trawl } from './support/start-trawl.ts'
import { startReceiver, verifyTrawlSignature } from './support/webhook-receiver.ts'

/**
 * What docs/self-hosting.md tells an operator, done as the operator does it: a backup taken while
 * the server runs and writes (`trawl backup` for SQLite, pg_dump/pg_restore for PostgreSQL) starts a
 * second server that knows the accounts, keys, passwords and webhook secrets made before it; and
 * a server behind a TLS-terminating reverse proxy (here the test sends the proxy's headers).
 */

const TRAWL = new URL('../bin/trawl.mjs', import.meta.url).pathname
const PASSWORD = 'correct horse battery'
const cleanups: (() => unknown)[] = []
afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn()
})

const tempDir = (prefix: string) => {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}

async function trawlCli(env: Record<string, string>, ...args: string[]) {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [TRAWL, ...args], { env: { ...process.env, ...env } as Record<string, string> })
    return { code: 0, stdout, stderr }
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string }
    return { code: e.code, stdout: e.stdout, stderr: e.stderr }
  }
}

const accountOfKey = (t: Trawl, key: string) => fetch(`${t.base}/v1/account`, { headers: { authorization: `Bearer ${key}` } })

/** Signs in to the dashboard; `call` sends JSON with the session cookie. */
const signIn = (t: Trawl, email: string) => dashboardSession(t.base, { email, password: PASSWORD })

/**
 * Before the backup: an account with a password and a key, and a webhook whose secret is sealed
 * with the storage key kept in the database. Returns what a restored server must still know.
 */
async function stateBefore(t: Trawl) {
  const email = `${randomUUID()}@example.test`
  const account = await t.account({ email, password: PASSWORD, credits: 100 })
  const hooks = await startReceiver()
  cleanups.push(() => hooks.close())
  const { call } = await signIn(t, email)
  const set = await call('PUT', '/v1/webhook', { url: hooks.url })
  expect(set.status).toBe(200)
  return { email, key: account.key, secret: set.body.secret as string, hooks }
}

/** The restored server knows the key, the password and the webhook secret (which it can decrypt). */
async function expectKnown(t: Trawl, before: Awaited<ReturnType<typeof stateBefore>>) {
  const me = await accountOfKey(t, before.key)
  expect(me.status).toBe(200)
  const dashboard = await signIn(t, before.email)
  expect(dashboard.signedIn.status).toBe(200)
  const sent = await dashboard.call('POST', '/v1/webhook/test')
  expect(sent.body.delivery.status).toBe('delivered')
  expect(verifyTrawlSignature(before.secret, before.hooks.hits.at(-1)!)).toBe(true)
}

/** Accounts made through the operator API one after another until stopped: a server that writes. */
function keepWriting(t: Trawl) {
  const made: string[] = []
  let running = true
  const done = (async () => {
    while (running) {
      const email = `${randomUUID()}@example.test`
      await t.account({ email })
      made.push(email)
    }
  })()
  return {
    made,
    async stop() {
      running = false
      await done
    },
  }
}

const LOCAL = { TRAWL_ALLOW_PRIVATE_NETWORK: 'true' }

describe('backups', () => {
  test('SQLite: trawl backup while the server writes; copying trawl.db alone misses what is in the -wal file', async () => {
    const dir = tempDir('trawl-backup-')
    const file = join(dir, 'trawl.db')
    const env = { TRAWL_DATABASE_URL: `sqlite:${file}` }
    const t = await startTrawl(LOCAL, { databaseDir: dir })
    cleanups.push(() => t.close())
    const before = await stateBefore(t)

    // The naive copy: the main file without its write-ahead log does not know the account. (Below
    // 1 MB of -wal nothing has been folded into the main file yet: store/database.ts starts its
    // checkpointer past that, SQLite's own checkpoint comes at about 4 MB. Past it, what the copy
    // lacks is a matter of timing, and only that it opens is checked.)
    const walBytes = statSync(`${file}-wal`).size
    copyFileSync(file, join(dir, 'naive.db'))
    const naive = new Sqlite(join(dir, 'naive.db'))
    const tables = naive.prepare("select count(*) as n from sqlite_master where name = 'users'").get() as { n: number }
    const found = tables.n ? naive.prepare('select count(*) as n from users where email = ?').get(before.email) : { n: 0 }
    naive.close()
    if (walBytes < 1 << 20) expect(found).toEqual({ n: 0 })

    const writer = keepWriting(t)
    while (writer.made.length < 3) await new Promise((r) => setTimeout(r, 20))
    const madeBeforeBackup = [...writer.made]
    const backup = join(dir, 'backup.db')
    const run = await trawlCli(env, 'backup', backup)
    await writer.stop()
    expect(run).toMatchObject({ code: 0, stdout: expect.stringContaining(`written to ${backup}`) })
    expect(run.stderr).toContain(`trawl: database SQLite ${file}`)
    expect(statSync(backup).mode & 0o777).toBe(0o600)
    expect(writer.made.length).toBeGreaterThan(madeBeforeBackup.length) // it wrote all along

    // A backup is never written over an existing file; PostgreSQL is pg_dump's.
    expect(await trawlCli(env, 'backup', backup)).toMatchObject({ code: 1, stderr: expect.stringContaining('exists: a backup is written to a new file') })
    const pgRefused = await trawlCli({ TRAWL_DATABASE_URL: 'postgres://trawl@127.0.0.1:1/trawl' }, 'backup', join(dir, 'pg.db'))
    expect(pgRefused).toMatchObject({ code: 1, stderr: expect.stringContaining('is backed up with pg_dump -Fc') })

    // Restore: the copy as the database of a second server.
    const restoredDir = tempDir('trawl-restored-')
    copyFileSync(backup, join(restoredDir, 'trawl.db'))
    const restored = await startTrawl(LOCAL, { databaseDir: restoredDir })
    cleanups.push(() => restored.close())
    await expectKnown(restored, before)
    // Every account whose creation had answered before the backup began is in it.
    const emails = new Set((await restored.services.store.db.selectFrom('users').select('email').execute()).map((u) => u.email))
    for (const email of madeBeforeBackup) expect(emails.has(email), email).toBe(true)
  }, 60_000)

  test.skipIf(skipWithoutPostgres)(
    'PostgreSQL: pg_dump -Fc while the server writes, pg_restore into an empty database',
    async () => {
      const source = await createTestDatabase()
      cleanups.push(() => source.drop())
      const t = await startTrawl({ ...LOCAL, TRAWL_DATABASE_URL: source.url })
      cleanups.push(() => t.close())
      const before = await stateBefore(t)
      const writer = keepWriting(t)
      while (writer.made.length < 3) await new Promise((r) => setTimeout(r, 20))
      const dump = join(tempDir('trawl-pgdump-'), 'trawl.dump')
      await promisify(execFile)('pg_dump', ['-Fc', '-d', source.url, '-f', dump])
      await writer.stop()

      const target = await createTestDatabase()
      cleanups.push(() => target.drop())
      await promisify(execFile)('pg_restore', ['--no-owner', '-d', target.url, dump])
      const restored = await startTrawl({ ...LOCAL, TRAWL_DATABASE_URL: target.url })
      cleanups.push(() => restored.close())
      await expectKnown(restored, before)
    },
    60_000,
  )
})

describe('behind a reverse proxy with TLS', () => {
  /**
   * A browser's sign-in at https://search.example.test as the proxy hands it on: Host passed
   * through, X-Forwarded-Proto and X-Forwarded-For set (node:http, since fetch sets its own Host).
   */
  const signInThroughProxy = (t: Trawl, email: string) =>
    new Promise<{ status: number; setCookie: string; body: string }>((resolve, reject) => {
      const body = JSON.stringify({ email, password: PASSWORD })
      const req = request(`${t.base}/app/api/v1/login`, {
        method: 'POST',
        headers: {
          host: 'search.example.test',
          origin: 'https://search.example.test',
          'x-forwarded-proto': 'https',
          'x-forwarded-for': '203.0.113.9',
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
        },
      })
      req.on('error', reject)
      req.on('response', (res) => {
        let text = ''
        res.setEncoding('utf8')
        res.on('data', (chunk: string) => (text += chunk))
        res.on('end', () => resolve({ status: res.statusCode ?? 0, setCookie: String(res.headers['set-cookie'] ?? ''), body: text }))
      })
      req.end(body)
    })

  test('with TRAWL_TRUST_PROXY the dashboard takes the https origin and sets a Secure cookie; logs name the client; without it, sign-in is refused', async () => {
    const lines: Record<string, any>[] = []
    const logStream = new Writable({
      write(chunk, _enc, done) {
        for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line))
        done()
      },
    })
    const trusted = await startTrawl({ TRAWL_TRUST_PROXY: '127.0.0.1', TRAWL_LOG_LEVEL: 'info' }, { logStream })
    cleanups.push(() => trusted.close())
    const untrusted = await startTrawl()
    cleanups.push(() => untrusted.close())
    for (const t of [trusted, untrusted]) await t.account({ email: 'owner@example.test', password: PASSWORD })

    const ok = await signInThroughProxy(trusted, 'owner@example.test')
    expect(ok.status).toBe(200)
    expect(ok.setCookie).toMatch(/; Secure/i)
    const completed = lines.find((l) => l.msg === 'request completed' && l.req?.url === '/app/api/v1/login')
    expect(completed?.req.remoteAddress).toBe('203.0.113.9')

    // Not trusted, the request is plain http from 127.0.0.1, so the browser's https Origin is foreign.
    const refused = await signInThroughProxy(untrusted, 'owner@example.test')
    expect(refused.status).toBe(403)
    expect(JSON.parse(refused.body).error.message).toContain('cross-origin request refused')
  })

  test('TRAWL_BASE_URL names the public https address in the URLs Trawl writes (poll_url) and makes the cookie Secure', async () => {
    const t = await startTrawl({ TRAWL_BASE_URL: 'https://search.example.test' })
    cleanups.push(() => t.close())
    const { key } = await t.account({ email: 'owner@example.test', password: PASSWORD, credits: 100 })
    const queued = await fetch(`${t.base}/v1/batches`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ endpoint: 'search', requests: [{ q: 'coffee' }] }),
    })
    expect(queued.status).toBe(202)
    const body = (await queued.json()) as { batches: { id: string; poll_url: string }[] }
    expect(body.batches[0]!.poll_url).toBe(`https://search.example.test/v1/batches/${body.batches[0]!.id}`)
    const ok = await signInThroughProxy(t, 'owner@example.test')
    expect(ok.status).toBe(200)
    expect(ok.setCookie).toMatch(/; Secure/i)
  })
})
