import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { enqueueWebhook, getWebhookDelivery } from '../src/webhooks/webhooks.service.ts'
import { startWebhookWorker } from '../src/webhooks/webhooks.worker.ts'
import { startTrawl, type Trawl } from './support/start-trawl.ts'
import { startReceiver, verifyStandardSignature, verifyTrawlSignature, waitFor } from './support/webhook-receiver.ts'

let trawl: Trawl
beforeAll(async () => {
  trawl = await startTrawl({ TRAWL_ALLOW_PRIVATE_NETWORK: 'true' })
})
afterAll(() => trawl.close())

const SECRET = /^whsec_[A-Za-z0-9+/]{43}=$/

/** A logged-in dashboard browser: keeps the session cookie between calls. */
async function loginAs(email: string, password: string) {
  const res = await fetch(`${trawl.base}/app/api/v1/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password }),
  })
  expect(res.status).toBe(200)
  const cookie = (res.headers.get('set-cookie') ?? '').split(';')[0] ?? ''
  return async (method: string, path: string, body?: unknown) => {
    const r = await fetch(`${trawl.base}/app/api${path}`, {
      method,
      headers: { cookie, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
    return { status: r.status, json: (await r.json()) as any }
  }
}

async function owner(email: string) {
  const account = await trawl.account({ email, password: 'owner-password' })
  return { ...account, call: await loginAs(email, 'owner-password') }
}

describe('dashboard webhook settings', () => {
  test('the first URL creates a whsec_ secret, shown once; GET shows only its prefix', async () => {
    const { call } = await owner('hook-owner1@example.test')
    expect(await call('GET', '/v1/webhook')).toEqual({ status: 200, json: { url: null, secret_prefix: null } })

    const first = await call('PUT', '/v1/webhook', { url: 'https://hooks.example.test/trawl' })
    expect(first.status).toBe(200)
    const { secret } = first.json
    expect(secret).toMatch(SECRET)
    expect(first.json).toEqual({ url: 'https://hooks.example.test/trawl', secret_prefix: secret.slice(0, 12), secret })

    const read = await call('GET', '/v1/webhook')
    expect(read.json).toEqual({ url: 'https://hooks.example.test/trawl', secret_prefix: secret.slice(0, 12) })
    expect(JSON.stringify(read.json)).not.toContain(secret)

    // Changing the URL keeps the secret and does not show it again.
    const changed = await call('PUT', '/v1/webhook', { url: 'http://hooks.example.test/v2' })
    expect(changed.json).toEqual({ url: 'http://hooks.example.test/v2', secret_prefix: secret.slice(0, 12) })
    // null clears the URL; the secret stays for jobs that name their own webhook_url.
    expect((await call('PUT', '/v1/webhook', { url: null })).json).toEqual({ url: null, secret_prefix: secret.slice(0, 12) })
  })

  test('the URL must be http(s) and is required; unknown fields are refused', async () => {
    const { call } = await owner('hook-owner2@example.test')
    for (const [body, message] of [
      [{ url: 'ftp://example.test/x' }, 'url must be an http(s) URL or null'],
      [{ url: 'not a url' }, 'url must be an http(s) URL or null'],
      [{ url: 'https://user:pw@example.test/x' }, 'url must not contain credentials'],
      [{}, 'url is required'],
      [{ url: 'https://example.test', secret: 'x' }, /secret/],
    ] as const) {
      const res = await call('PUT', '/v1/webhook', body)
      expect(res.status).toBe(400)
      expect(res.json.error.code).toBe('invalid_request')
      expect(res.json.error.message).toMatch(message)
    }
    expect((await call('GET', '/v1/webhook')).json).toEqual({ url: null, secret_prefix: null })
  })

  test('rotation returns a new secret; the operator PATCH creates the secret the same way', async () => {
    const { id, call } = await owner('hook-owner3@example.test')
    expect((await trawl.admin('PATCH', `/admin/v1/accounts/${id}`, { webhook_url: 'https://hooks.example.test/admin' })).status).toBe(200)
    const before = (await call('GET', '/v1/webhook')).json
    expect(before.url).toBe('https://hooks.example.test/admin')
    expect(before.secret_prefix).toMatch(/^whsec_.{6}$/)

    const rotated = await call('POST', '/v1/webhook/secret/rotate')
    expect(rotated.status).toBe(200)
    expect(Object.keys(rotated.json)).toEqual(['secret'])
    expect(rotated.json.secret).toMatch(SECRET)
    const after = (await call('GET', '/v1/webhook')).json
    expect(after).toEqual({ url: before.url, secret_prefix: rotated.json.secret.slice(0, 12) })
    expect(after.secret_prefix).not.toBe(before.secret_prefix)
  })

  test('members read the settings but cannot change them; logged-out calls are 401', async () => {
    const { id, call: ownerCall } = await owner('hook-owner4@example.test')
    await ownerCall('PUT', '/v1/webhook', { url: 'https://hooks.example.test/team' })
    await trawl.admin('POST', `/admin/v1/accounts/${id}/members`, { email: 'hook-member4@example.test', password: 'member-password' })
    const member = await loginAs('hook-member4@example.test', 'member-password')
    const view = await member('GET', '/v1/webhook')
    expect(view.json).toEqual((await ownerCall('GET', '/v1/webhook')).json)
    for (const [method, path, body] of [
      ['PUT', '/v1/webhook', { url: 'https://evil.example.test/' }],
      ['POST', '/v1/webhook/secret/rotate', undefined],
    ] as const) {
      const res = await member(method, path, body)
      expect(res.status).toBe(403)
      expect(res.json.error).toMatchObject({ code: 'forbidden', message: 'only the account owner changes webhook settings' })
    }
    expect((await member('GET', '/v1/webhook')).json).toEqual(view.json)

    const anonymous = await fetch(`${trawl.base}/app/api/v1/webhook`)
    expect(anonymous.status).toBe(401)
    const anonymousRotate = await fetch(`${trawl.base}/app/api/v1/webhook/secret/rotate`, { method: 'POST' })
    expect(anonymousRotate.status).toBe(401)
  })
})

test('a rotation between attempts: the retry is signed with the new secret, afresh', async () => {
  let rotatedSecret = ''
  const { call } = await owner('hook-owner5@example.test')
  const receiver = await startReceiver(async (n, res) => {
    if (n > 0) return void res.writeHead(200).end()
    // The owner rotates while the first attempt is failing.
    rotatedSecret = (await call('POST', '/v1/webhook/secret/rotate')).json.secret
    res.writeHead(500).end()
  })
  const { secret: oldSecret, ...rest } = (await call('PUT', '/v1/webhook', { url: receiver.url })).json
  expect(rest.url).toBe(receiver.url)
  const ownerRow = await trawl.services.store.db
    .selectFrom('users')
    .select('account_id')
    .where('email', '=', 'hook-owner5@example.test')
    .executeTakeFirstOrThrow()
  // A retry base above a second guarantees the two attempts carry different timestamps.
  const worker = startWebhookWorker(trawl.services, trawl.app.log, { retryBaseMs: 1100, pollMs: 50 })
  try {
    const { id } = (await enqueueWebhook(trawl.services, { accountId: ownerRow.account_id, event: 'batch.completed', payload: { id: 'job-9' } }))!
    const row = await waitFor(async () => {
      const d = await getWebhookDelivery(trawl.services.store, id)
      return d?.status === 'delivered' ? d : null
    })
    expect(row.attempts).toBe(2)
  } finally {
    await worker.stop()
    await receiver.close()
  }
  const [first, second] = receiver.hits as [(typeof receiver.hits)[0], (typeof receiver.hits)[0]]
  expect(rotatedSecret).toMatch(SECRET)
  expect(rotatedSecret).not.toBe(oldSecret)
  expect(verifyTrawlSignature(oldSecret, first)).toBe(true)
  expect(verifyStandardSignature(oldSecret, first)).toBe(true)
  expect(verifyTrawlSignature(rotatedSecret, second)).toBe(true)
  expect(verifyStandardSignature(rotatedSecret, second)).toBe(true)
  expect(verifyTrawlSignature(oldSecret, second)).toBe(false)
  expect(verifyStandardSignature(oldSecret, second)).toBe(false)
  expect(second.headers['x-trawl-delivery']).toBe(first.headers['x-trawl-delivery'])
  expect(Number(second.headers['x-trawl-timestamp'])).toBeGreaterThan(Number(first.headers['x-trawl-timestamp']))
  expect(second.headers['x-trawl-signature']).not.toBe(first.headers['x-trawl-signature'])
})
