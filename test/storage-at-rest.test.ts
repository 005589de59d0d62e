import { randomUUID } from 'node:crypto'
import { chmodSync, mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest'
import { newWebhookSecret } from '../src/security/secrets.ts'
import { readWebhookSecret, sealClearWebhookSecrets } from '../src/webhooks/webhooks.service.ts'
import { dashboardSession } from './support/dashboard-page.ts'
import { type FakeUpstream, fakeUpstream, fixture, htmlPage } from './support/fake-upstream.ts'
import { createTestDatabase } from './support/postgres.ts'
import { skipWithoutPostgres } from './support/servers.ts'
import { startTrawl, type Trawl } from './support/start-trawl.ts'
import { startReceiver, verifyStandardSignature, verifyTrawlSignature, waitFor } from './support/webhook-receiver.ts'

/**
 * What the store keeps on disk: the SQLite folder and files are the server user's alone, and
 * webhook signing secrets are stored encrypted (docs/operations.md "Data at rest"), while every
 * delivery is still signed with the secret the dashboard showed.
 */

const cleanups: (() => unknown)[] = []
afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn()
})

const mode = (path: string) => statSync(path).mode & 0o777

describe('the SQLite folder and files', () => {
  test('a data folder Trawl creates is 0700; the database and its -wal and -shm are 0600, also when an older version made them 0644', async () => {
    const root = mkdtempSync(join(tmpdir(), 'trawl-modes-'))
    cleanups.push(() => rmSync(root, { recursive: true, force: true }))
    const folder = join(root, 'data')
    const file = join(folder, 'trawl.db')
    const env = { TRAWL_DATABASE_URL: `sqlite:${file}` }
    let t = await startTrawl(env)
    // Writes through the API, so the write-ahead log and its index exist.
    const { key } = await t.account()
    expect((await fetch(`${t.base}/v1/account`, { headers: { authorization: `Bearer ${key}` } })).status).toBe(200)
    expect(mode(folder)).toBe(0o700)
    for (const f of [file, `${file}-wal`, `${file}-shm`]) expect([f, mode(f)]).toEqual([f, 0o600])
    await t.close()

    for (const f of [file, `${file}-wal`, `${file}-shm`]) {
      try {
        chmodSync(f, 0o644)
      } catch {
        // -wal and -shm are removed by a clean close
      }
    }
    t = await startTrawl(env)
    cleanups.push(() => t.close())
    expect((await fetch(`${t.base}/v1/account`, { headers: { authorization: `Bearer ${key}` } })).status).toBe(200)
    for (const f of [file, `${file}-wal`, `${file}-shm`]) expect([f, mode(f)]).toEqual([f, 0o600])
  })
})

const PASSWORD = 'correct horse battery'
const COFFEE = fixture('serp/google/web-desktop/zlurad-coffee.html')

let upstream: FakeUpstream
beforeAll(async () => {
  upstream = await fakeUpstream(htmlPage(COFFEE))
})
afterAll(() => upstream.close())

/** The dashboard of a new account's owner: JSON calls with the session cookie. */
async function dashboard(t: Trawl) {
  const email = `${randomUUID()}@example.test`
  const account = await t.account({ email, password: PASSWORD, plan: 'pro', credits: 100 })
  const { signedIn, call } = await dashboardSession(t.base, { email, password: PASSWORD })
  expect(signedIn.status).toBe(200)
  return { account, call }
}

const storedSecret = async (t: Trawl, accountId: string) =>
  (await t.services.store.db.selectFrom('accounts').select('webhook_secret').where('id', '=', accountId).executeTakeFirstOrThrow()).webhook_secret

describe.each([
  ['SQLite', false],
  ['PostgreSQL', true],
])('webhook signing secrets at rest (%s)', (_name, postgres) => {
  const start = async () => {
    const env: Record<string, string> = {
      TRAWL_UPSTREAM_HOSTS: `*=${upstream.url}`,
      TRAWL_ALLOW_PRIVATE_NETWORK: 'true',
      TRAWL_SCHEDULER_POLL_MS: '100',
    }
    if (postgres) {
      const database = await createTestDatabase()
      cleanups.push(() => database.drop())
      env.TRAWL_DATABASE_URL = database.url
    }
    const t = await startTrawl(env, { workers: true })
    cleanups.push(() => t.close())
    return t
  }

  test.skipIf(postgres && skipWithoutPostgres)(
    'the column holds no secret; test events, queued deliveries and rotations are signed with the secret shown',
    async () => {
      const t = await start()
      const hooks = await startReceiver()
      cleanups.push(() => hooks.close())
      const { account, call } = await dashboard(t)

      const set = await call('PUT', '/v1/webhook', { url: hooks.url })
      expect(set.status).toBe(200)
      const secret = set.body.secret as string
      expect(secret).toMatch(/^whsec_/)
      const stored = (await storedSecret(t, account.id))!
      expect(stored).toMatch(/^enc:v1:/)
      expect(stored).not.toContain(secret)
      expect(stored).not.toContain(secret.slice('whsec_'.length))
      expect(stored).not.toContain('whsec_')
      expect((await call('GET', '/v1/webhook')).body.secret_prefix).toBe(secret.slice(0, 12))

      // Sent now by the dashboard, and queued then sent by the webhook worker (a batch's job).
      expect((await call('POST', '/v1/webhook/test')).body.delivery.status).toBe('delivered')
      const batch = await fetch(`${t.base}/v1/batches`, {
        method: 'POST',
        headers: { authorization: `Bearer ${account.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ endpoint: 'search', requests: [{ q: 'coffee' }] }),
      })
      expect(batch.status).toBe(202)
      await waitFor(() => hooks.hits.length >= 2, 20_000)
      expect(hooks.hits.map((h) => h.headers['x-trawl-event']).sort()).toEqual(['batch.completed', 'webhook.test'])
      for (const hit of hooks.hits) {
        expect(verifyTrawlSignature(secret, hit)).toBe(true)
        expect(verifyStandardSignature(secret, hit)).toBe(true)
      }

      const rotated = (await call('POST', '/v1/webhook/secret/rotate')).body.secret as string
      expect(rotated).not.toBe(secret)
      const restored = (await storedSecret(t, account.id))!
      expect(restored).toMatch(/^enc:v1:/)
      expect(restored).not.toContain(rotated.slice('whsec_'.length))
      await call('POST', '/v1/webhook/test')
      expect(verifyTrawlSignature(rotated, hooks.hits[2]!)).toBe(true)
      expect(verifyStandardSignature(rotated, hooks.hits[2]!)).toBe(true)
    },
  )

  test.skipIf(postgres && skipWithoutPostgres)(
    'a secret an earlier version stored in clear still signs, and is encrypted in place by the maintenance pass',
    async () => {
      const t = await start()
      const hooks = await startReceiver()
      cleanups.push(() => hooks.close())
      const { account, call } = await dashboard(t)
      expect((await call('PUT', '/v1/webhook', { url: hooks.url })).status).toBe(200)
      // As versions before encryption wrote it.
      const legacy = newWebhookSecret()
      await t.services.store.db.updateTable('accounts').set({ webhook_secret: legacy }).where('id', '=', account.id).execute()

      expect((await call('GET', '/v1/webhook')).body.secret_prefix).toBe(legacy.slice(0, 12))
      await call('POST', '/v1/webhook/test')
      expect(verifyTrawlSignature(legacy, hooks.hits[0]!)).toBe(true)

      expect(await sealClearWebhookSecrets(t.services.store)).toBeGreaterThanOrEqual(1)
      const stored = (await storedSecret(t, account.id))!
      expect(stored).toMatch(/^enc:v1:/)
      expect(stored).not.toContain(legacy.slice('whsec_'.length))
      expect(await sealClearWebhookSecrets(t.services.store)).toBe(0)

      await call('POST', '/v1/webhook/test')
      expect(verifyTrawlSignature(legacy, hooks.hits[1]!)).toBe(true)
      expect(verifyStandardSignature(legacy, hooks.hits[1]!)).toBe(true)
      expect((await call('GET', '/v1/webhook')).body.secret_prefix).toBe(legacy.slice(0, 12))
    },
  )

  test.skipIf(postgres && skipWithoutPostgres)('a sealed secret copied onto another account does not open there', async () => {
    const t = await start()
    const a = await dashboard(t)
    const b = await dashboard(t)
    expect((await a.call('PUT', '/v1/webhook', { url: 'https://hooks.example.test/a' })).status).toBe(200)
    expect((await b.call('PUT', '/v1/webhook', { url: 'https://hooks.example.test/b' })).status).toBe(200)
    const sealedForA = await storedSecret(t, a.account.id)
    await t.services.store.db.updateTable('accounts').set({ webhook_secret: sealedForA }).where('id', '=', b.account.id).execute()
    await expect(readWebhookSecret(t.services.store, b.account.id)).rejects.toThrow(/authenticate/)
    expect(await readWebhookSecret(t.services.store, a.account.id)).toMatch(/^whsec_/)
  })
})
