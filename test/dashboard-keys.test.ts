import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { startTrawl, type Trawl } from './support/start-trawl.ts'

let trawl: Trawl
beforeAll(async () => {
  trawl = await startTrawl()
})
afterAll(() => trawl.close())

/** A logged-in dashboard browser: keeps the session cookie between calls. */
async function loginAs(email: string, password: string) {
  const res = await fetch(`${trawl.base}/app/api/v1/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password }),
  })
  const setCookie = res.headers.get('set-cookie') ?? ''
  const cookie = setCookie.split(';')[0] ?? ''
  const call = (method: string, path: string, body?: unknown) =>
    fetch(`${trawl.base}/app/api${path}`, {
      method,
      headers: { cookie, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
  return { res, setCookie, call }
}

const account = (key: string) => fetch(`${trawl.base}/v1/account`, { headers: { authorization: `Bearer ${key}` } })

describe('dashboard API: sessions and keys', () => {
  test('login sets an HttpOnly SameSite session cookie; wrong passwords and logged-out calls are 401', async () => {
    await trawl.account({ email: 'owner1@example.test', password: 'owner-password' })
    const bad = await loginAs('owner1@example.test', 'nope')
    expect(bad.res.status).toBe(401)
    const ok = await loginAs('owner1@example.test', 'owner-password')
    expect(ok.res.status).toBe(200)
    expect(await ok.res.json()).toMatchObject({ user: { email: 'owner1@example.test', role: 'owner' } })
    expect(ok.setCookie).toMatch(/HttpOnly/i)
    expect(ok.setCookie).toMatch(/SameSite=Strict/i)
    expect((await ok.call('GET', '/v1/keys')).status).toBe(200)
    expect((await ok.call('POST', '/v1/logout')).status).toBe(204)
    expect((await ok.call('GET', '/v1/keys')).status).toBe(401)
  })

  test('rotation replaces the secret in place: old stops at once, id, name, limit and usage stay', async () => {
    const { key } = await trawl.account({ email: 'owner2@example.test', password: 'owner-password' })
    const { call } = await loginAs('owner2@example.test', 'owner-password')
    const created = await (await call('POST', '/v1/keys', { name: 'prod', credit_limit: 50 })).json()
    expect(created).toMatchObject({ name: 'prod', credit_limit: 50, secret: expect.stringMatching(/^trawl_live_/) })
    expect((await account(created.secret)).status).toBe(200) // now cached
    const rotated = await (await call('POST', `/v1/keys/${created.id}/rotate`)).json()
    expect(rotated).toMatchObject({ id: created.id, name: 'prod', credit_limit: 50 })
    expect(rotated.secret).not.toBe(created.secret)
    expect((await (await account(created.secret)).json()).error.code).toBe('unauthorized')
    expect(await (await account(rotated.secret)).json()).toMatchObject({ key: { id: created.id, name: 'prod', credit_limit: 50 } })
    const list = await (await call('GET', '/v1/keys')).json()
    const used = list.keys.find((k: { id: string }) => k.id === created.id)
    expect(Date.parse(used.last_used_at)).toBeGreaterThan(Date.now() - 60_000) // the calls above touched it
    expect(list.keys.map((k: { name: string }) => k.name).sort()).toEqual(['default', 'prod'])
    expect(JSON.stringify(list)).not.toContain(rotated.secret)
    expect(key).toBeTruthy()
  })

  test('revocation takes effect at once and the key leaves the list', async () => {
    const { key } = await trawl.account({ email: 'owner3@example.test', password: 'owner-password' })
    const { call } = await loginAs('owner3@example.test', 'owner-password')
    expect((await account(key)).status).toBe(200)
    const [first] = (await (await call('GET', '/v1/keys')).json()).keys
    expect((await call('DELETE', `/v1/keys/${first.id}`)).status).toBe(204)
    const after = await account(key)
    expect(after.status).toBe(401)
    expect((await after.json()).error.message).toBe('API key was revoked')
    expect((await (await call('GET', '/v1/keys')).json()).keys).toEqual([])
  })

  test('owner sets limits and fallback; members get the member key limit and manage only their own keys', async () => {
    const { id } = await trawl.account({ email: 'owner4@example.test', password: 'owner-password' })
    await trawl.admin('POST', `/admin/v1/accounts/${id}/members`, { email: 'member4@example.test', password: 'member-password' })
    const owner = await loginAs('owner4@example.test', 'owner-password')
    const member = await loginAs('member4@example.test', 'member-password')
    expect(await (await owner.call('PUT', '/v1/team/member-key-limit', { credit_limit: 20 })).json()).toEqual({ credit_limit: 20 })
    expect((await member.call('PUT', '/v1/team/member-key-limit', { credit_limit: null })).status).toBe(403)
    const mkey = await (await member.call('POST', '/v1/keys', { name: 'mine' })).json()
    expect(mkey.credit_limit).toBe(20)
    expect((await member.call('POST', '/v1/keys', { name: 'x', credit_limit: 1000 })).status).toBe(403)
    expect((await member.call('PATCH', `/v1/keys/${mkey.id}`, { credit_limit: null })).status).toBe(403)
    expect(await (await member.call('PATCH', `/v1/keys/${mkey.id}`, { name: 'renamed', allow_fallback: true })).json()).toMatchObject({
      name: 'renamed',
      allow_fallback: true,
      credit_limit: 20,
    })
    const ownerKeys = (await (await owner.call('GET', '/v1/keys')).json()).keys
    const ownerKey = ownerKeys.find((k: { name: string }) => k.name === 'default')
    expect((await member.call('DELETE', `/v1/keys/${ownerKey.id}`)).status).toBe(403)
    // The owner may change any key's limit; null clears it, omitting keeps it.
    expect(await (await owner.call('PATCH', `/v1/keys/${mkey.id}`, { credit_limit: 5 })).json()).toMatchObject({ credit_limit: 5 })
    expect(await (await owner.call('PATCH', `/v1/keys/${mkey.id}`, { name: 'n2' })).json()).toMatchObject({ credit_limit: 5, name: 'n2' })
    expect(await (await owner.call('PATCH', `/v1/keys/${mkey.id}`, { credit_limit: null })).json()).toMatchObject({ credit_limit: null })
    expect((await member.call('POST', `/v1/keys/${mkey.id}/rotate`)).status).toBe(200)
  })
})
