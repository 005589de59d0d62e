import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { readWebhookSecret } from '../src/webhooks/webhooks.service.ts'
import { startTrawl, type Trawl } from './support/start-trawl.ts'

let trawl: Trawl
beforeAll(async () => {
  trawl = await startTrawl()
})
afterAll(() => trawl.close())

const get = (path: string, key?: string) => fetch(`${trawl.base}${path}`, { headers: key ? { authorization: `Bearer ${key}` } : {} })

describe('operator API', () => {
  test('creates an account with owner and first key; the secret is shown once, only its hash is stored', async () => {
    const res = await trawl.admin('POST', '/admin/v1/accounts', { email: 'Owner@Example.test', plan: 'starter', credits: 250, monthly_spend_cap: 1000 })
    expect(res.status).toBe(201)
    const body = await res.json()
    expect(body.account).toMatchObject({ plan: 'starter', balance: 250, rate_limit_rps: 20, monthly_spend_cap: 1000, daily_limit: null, webhook_url: null })
    expect(body.owner.email).toBe('owner@example.test')
    expect(body.key.secret).toMatch(/^trawl_live_[A-Za-z0-9_-]{32}$/)
    expect(body.key.secret.startsWith(body.key.prefix)).toBe(true)
    const rows = await trawl.services.store.db.selectFrom('api_keys').selectAll().where('id', '=', body.key.id).execute()
    expect(rows[0]?.secret_hash).toMatch(/^[0-9a-f]{64}$/)
    expect(JSON.stringify(rows)).not.toContain(body.key.secret)

    const again = await trawl.admin('GET', `/admin/v1/accounts/${body.account.id}`)
    expect(await again.json()).toMatchObject({ id: body.account.id, balance: 250 })
  })

  test('rejects a duplicate email, a bad plan and unknown fields without creating anything', async () => {
    await trawl.admin('POST', '/admin/v1/accounts', { email: 'dup@example.test' })
    const dup = await trawl.admin('POST', '/admin/v1/accounts', { email: 'dup@example.test' })
    expect(dup.status).toBe(400)
    expect((await dup.json()).error.code).toBe('invalid_request')
    const plan = await trawl.admin('POST', '/admin/v1/accounts', { email: 'p@example.test', plan: 'platinum' })
    expect((await plan.json()).error.message).toMatch(/plan must be one of/)
    const unknown = await trawl.admin('POST', '/admin/v1/accounts', { email: 'u@example.test', balance: 5 })
    expect((await unknown.json()).error.message).toBe('unknown parameter balance')
    const count = await trawl.services.store.db
      .selectFrom('users')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('email', 'in', ['p@example.test', 'u@example.test'])
      .executeTakeFirst()
    expect(Number(count?.n)).toBe(0)
  })

  test('credit packs raise the plan, never lower it, and remove the daily limit', async () => {
    const { id } = await trawl.account({ plan: 'growth', credits: 0, daily_limit: 10 })
    const res = await trawl.admin('POST', `/admin/v1/accounts/${id}/credits`, { credits: 50, plan: 'starter' })
    expect(await res.json()).toMatchObject({ plan: 'growth', balance: 50, daily_limit: null, rate_limit_rps: 50 })
    const up = await trawl.admin('POST', `/admin/v1/accounts/${id}/credits`, { credits: 0.5, plan: 'pro' })
    expect(await up.json()).toMatchObject({ plan: 'pro', balance: 50.5, rate_limit_rps: 100 })
    const zero = await trawl.admin('POST', `/admin/v1/accounts/${id}/credits`, { credits: 0 })
    expect(zero.status).toBe(400)
  })

  test('PATCH changes caps, custom rate and webhook; members and keys can be added', async () => {
    const { id, ownerId } = await trawl.account()
    const patched = await trawl.admin('PATCH', `/admin/v1/accounts/${id}`, {
      plan: 'enterprise',
      rate_limit_rps: 500,
      webhook_url: 'https://hooks.example.test/x',
      monthly_spend_cap: null,
    })
    expect(await patched.json()).toMatchObject({
      plan: 'enterprise',
      rate_limit_rps: 500,
      webhook_url: 'https://hooks.example.test/x',
      monthly_spend_cap: null,
    })
    expect(await readWebhookSecret(trawl.services.store, id)).toMatch(/^whsec_/) // the first webhook URL creates the signing secret
    const member = await trawl.admin('POST', `/admin/v1/accounts/${id}/members`, { email: 'member@example.test', password: 'correct horse' })
    expect(member.status).toBe(201)
    expect(await member.json()).toMatchObject({ email: 'member@example.test', role: 'member' })
    const key = await trawl.admin('POST', `/admin/v1/accounts/${id}/keys`, { name: 'ci', credit_limit: 12.5, user_id: ownerId })
    expect(key.status).toBe(201)
    const k = await key.json()
    expect(k).toMatchObject({ name: 'ci', credit_limit: 12.5 })
    const me = await get('/v1/account', k.secret)
    expect(await me.json()).toMatchObject({ plan: 'enterprise', rate_limit_rps: 500, key: { name: 'ci', credit_limit: 12.5, credits_used_month: 0 } })
    const longName = await trawl.admin('POST', `/admin/v1/accounts/${id}/keys`, { name: 'x'.repeat(65) })
    expect((await longName.json()).error.message).toBe('name must be at most 64 characters')
    const unnamed = await trawl.admin('POST', `/admin/v1/accounts/${id}/keys`, { credit_limit: 5 })
    expect(unnamed.status).toBe(201)
    expect(await unnamed.json()).toMatchObject({ name: 'default', credit_limit: 5 })
  })

  test('needs the admin token, compared in constant time; 404 for a missing account', async () => {
    const none = await fetch(`${trawl.base}/admin/v1/accounts/abc`)
    expect(none.status).toBe(401)
    const wrong = await fetch(`${trawl.base}/admin/v1/accounts/abc`, { headers: { authorization: 'Bearer nope-nope-nope-nope' } })
    expect(wrong.status).toBe(401)
    const missing = await trawl.admin('GET', '/admin/v1/accounts/abc')
    expect(missing.status).toBe(404)
    expect((await missing.json()).error.code).toBe('not_found')
  })

  test('is absent (404) when TRAWL_ADMIN_TOKEN is unset', async () => {
    const other = await startTrawl({ TRAWL_ADMIN_TOKEN: '' })
    try {
      const res = await fetch(`${other.base}/admin/v1/accounts`, { method: 'POST', headers: { authorization: 'Bearer x' } })
      expect(res.status).toBe(404)
    } finally {
      await other.close()
    }
  })
})

describe('GET /v1/account and API keys', () => {
  test('returns the Account shape for the calling key, free', async () => {
    const { key } = await trawl.account({ plan: 'free', credits: 42, monthly_spend_cap: 300 })
    const res = await get('/v1/account', key)
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({
      balance: 42,
      rate_limit_rps: 5,
      plan: 'free',
      key: { id: expect.any(String), name: 'default', credit_limit: null, credits_used_month: 0 },
      monthly_spend_cap: 300,
      month: { credits: 0, requests: 0 },
    })
    expect(res.headers.get('x-request-id')).toMatch(/^req_/)
  })

  test('401 says whether the key is missing, malformed or invalid; ?api_key works on GET', async () => {
    const missing = await get('/v1/account')
    expect(missing.status).toBe(401)
    const body = await missing.json()
    expect(body.error).toMatchObject({ code: 'unauthorized', message: expect.stringMatching(/missing API key/) })
    expect(body.error.request_id).toBe(missing.headers.get('x-request-id'))
    expect((await (await get('/v1/account', 'sk-abc')).json()).error.message).toMatch(/malformed/)
    expect((await (await get('/v1/account', `trawl_live_${'A'.repeat(32)}`)).json()).error.message).toBe('invalid API key')
    const { key } = await trawl.account()
    expect((await fetch(`${trawl.base}/v1/account?api_key=${key}`)).status).toBe(200)
    const basic = await fetch(`${trawl.base}/v1/account`, { headers: { authorization: `Basic ${key}` } })
    expect((await basic.json()).error.message).toMatch(/malformed Authorization header/)
  })
})
