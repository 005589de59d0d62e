import { randomUUID } from 'node:crypto'
import { Redis } from 'ioredis'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createLoginThrottle } from '../src/features/dashboard/login-throttle.ts'
import { errorOf, expectBooksBalanced } from './support/books.ts'
import { type FakeUpstream, fakeUpstream, fixture, htmlPage } from './support/fake-upstream.ts'
import { createTestDatabase } from './support/postgres.ts'
import { skipWithoutPostgres, skipWithoutRedis } from './support/servers.ts'
import { startTrawl, type Trawl } from './support/start-trawl.ts'
import { startReceiver, verifyStandardSignature, verifyTrawlSignature } from './support/webhook-receiver.ts'

const COFFEE = fixture('serp/google/web-desktop/zlurad-coffee.html')

let trawl: Trawl
let upstream: FakeUpstream
beforeAll(async () => {
  upstream = await fakeUpstream(htmlPage(COFFEE))
  trawl = await startTrawl({ TRAWL_UPSTREAM_HOSTS: `*=${upstream.url}`, TRAWL_ALLOW_PRIVATE_NETWORK: 'true' })
})
afterAll(async () => {
  await trawl.close()
  await upstream.close()
})

const PASSWORD = 'correct horse battery'
const email = () => `${randomUUID()}@example.test`

/** A signed-in dashboard client: sends the session cookie, and the app's Origin on changes (as the browser does). */
async function signIn(t: Trawl, address: string, password = PASSWORD, origin: string | null = t.base) {
  const res = await fetch(`${t.base}/app/api/v1/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(origin ? { origin } : {}) },
    body: JSON.stringify({ email: address, password }),
  })
  const setCookie = res.headers.get('set-cookie') ?? ''
  const cookie = setCookie.split(';')[0] ?? ''
  const call = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
    fetch(`${t.base}/app/api${path}`, {
      method,
      // An empty value drops a header (a request without Origin).
      headers: Object.fromEntries(
        Object.entries({
          cookie,
          ...(method !== 'GET' && origin ? { origin } : {}),
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          ...headers,
        }).filter(([, v]) => v !== ''),
      ),
      body: body === undefined ? undefined : JSON.stringify(body),
    })
  return { res, setCookie, call }
}

async function ownerAndMember(t = trawl, credits = 100) {
  const ownerEmail = email()
  const memberEmail = email()
  const account = await t.account({ email: ownerEmail, password: PASSWORD, credits, plan: 'enterprise', rate_limit_rps: 100 })
  const added = await t.admin('POST', `/admin/v1/accounts/${account.id}/members`, { email: memberEmail, password: PASSWORD })
  expect(added.status).toBe(201)
  return { account, owner: await signIn(t, ownerEmail), member: await signIn(t, memberEmail) }
}

const search = (key: string, q = 'coffee') => fetch(`${trawl.base}/v1/search?q=${q}`, { headers: { authorization: `Bearer ${key}` } })

describe('CSRF: changes only from the dashboard origin', () => {
  test('login, key creation and revocation with a foreign Origin or Sec-Fetch-Site are 403 and change nothing', async () => {
    const { owner, account } = await ownerAndMember()
    const evil = { origin: 'https://evil.example' }
    const login = await fetch(`${trawl.base}/app/api/v1/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...evil },
      body: JSON.stringify({ email: 'x@example.test', password: 'x' }),
    })
    expect(await errorOf(login)).toMatchObject({ status: 403, code: 'forbidden', message: expect.stringContaining('cross-origin request refused') })
    expect(login.headers.get('set-cookie')).toBeNull()

    const before = (await (await owner.call('GET', '/v1/keys')).json()).keys
    expect((await owner.call('POST', '/v1/keys', { name: 'csrf' }, evil)).status).toBe(403)
    expect((await owner.call('DELETE', `/v1/keys/${before[0].id}`, undefined, evil)).status).toBe(403)
    // No Origin, but a browser saying the request came from another site (e.g. an old browser's form post).
    expect((await owner.call('POST', `/v1/keys/${before[0].id}/rotate`, undefined, { origin: '', 'sec-fetch-site': 'cross-site' })).status).toBe(403)
    expect((await owner.call('PUT', '/v1/webhook', { url: 'https://evil.example/hook' }, evil)).status).toBe(403)
    // The same request with its path spelled in percent-escapes, which the router decodes.
    const escaped = await fetch(`${trawl.base}/app/%61pi/v1/keys`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie: owner.setCookie.split(';')[0] ?? '', ...evil },
      body: JSON.stringify({ name: 'csrf-escaped' }),
    })
    expect(escaped.status).toBe(403)
    expect((await (await owner.call('GET', '/v1/keys')).json()).keys).toEqual(before)
    expect((await search(account.key)).status).toBe(200) // not revoked, not rotated

    // The same origin, and non-browser clients (no Origin, no Sec-Fetch-Site), pass.
    expect((await owner.call('POST', '/v1/keys', { name: 'same-origin' })).status).toBe(201)
    expect((await owner.call('POST', '/v1/keys', { name: 'same-origin-2' }, { 'sec-fetch-site': 'same-origin' })).status).toBe(201)
    // Reads are not state-changing: a GET with a foreign Origin is answered (CORS keeps the cookie-less page from reading it anyway).
    expect((await owner.call('GET', '/v1/keys', undefined, evil)).status).toBe(200)
  })

  test('TRAWL_APP_URL on its own origin: that origin is the one accepted, and the cookie is Secure over https', async () => {
    const t = await startTrawl({ TRAWL_APP_URL: 'https://console.example.test/app' })
    try {
      const address = email()
      await t.account({ email: address, password: PASSWORD })
      const foreign = await signIn(t, address, PASSWORD, 'https://other.example.test')
      expect(foreign.res.status).toBe(403)
      const ok = await signIn(t, address, PASSWORD, 'https://console.example.test')
      expect(ok.res.status).toBe(200)
      expect(ok.setCookie).toMatch(/; Secure/i)
      expect(ok.setCookie).toMatch(/HttpOnly/i)
      expect(ok.setCookie).toMatch(/SameSite=Strict/i)
      expect(ok.setCookie).toMatch(/Path=\/app\/api/)
    } finally {
      await t.close()
    }
  })
})

describe('login throttling', () => {
  test('10 failures for an email are 429 rate_limited with Retry-After, even for the right password; other emails still sign in', async () => {
    const t = await startTrawl()
    try {
      const victim = email()
      const other = email()
      await t.account({ email: victim, password: PASSWORD })
      await t.account({ email: other, password: PASSWORD })
      for (let i = 0; i < 10; i++) expect((await signIn(t, victim, 'wrong password')).res.status).toBe(401)
      const refused = (await signIn(t, victim)).res
      expect(await errorOf(refused)).toMatchObject({ status: 429, code: 'rate_limited', message: expect.stringContaining('too many failed logins') })
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(800)
      expect((await signIn(t, other)).res.status).toBe(200)
    } finally {
      await t.close()
    }
  })

  test('a success clears the email count; 30 failures from one IP lock that IP out for every email', async () => {
    const t = await startTrawl()
    try {
      const user = email()
      await t.account({ email: user, password: PASSWORD })
      for (let i = 0; i < 9; i++) expect((await signIn(t, user, 'wrong')).res.status).toBe(401)
      expect((await signIn(t, user)).res.status).toBe(200)
      for (let i = 0; i < 9; i++) expect((await signIn(t, user, 'wrong')).res.status).toBe(401)
      expect((await signIn(t, user)).res.status).toBe(200) // 18 failures in all, never 10 in a row for the email
      for (let i = 0; i < 12; i++) expect((await signIn(t, email(), 'wrong')).res.status).toBe(401)
      const locked = (await signIn(t, user)).res
      expect(await errorOf(locked)).toMatchObject({ status: 429, code: 'rate_limited' })
    } finally {
      await t.close()
    }
  })
})

describe('the signed-in hint', () => {
  test('sign in sets a readable trawl_signed_in beside the HttpOnly session; a probe without a session deletes it', async () => {
    const { owner } = await ownerAndMember()
    const cookies = owner.res.headers.getSetCookie()
    expect(cookies.find((c) => c.startsWith('trawl_session='))).toMatch(/HttpOnly/)
    const hint = cookies.find((c) => c.startsWith('trawl_signed_in='))
    expect(hint).toMatch(/^trawl_signed_in=1; .*Path=\/app;/)
    expect(hint).not.toMatch(/HttpOnly/)
    const probe = await fetch(`${trawl.base}/app/api/v1/account`, { headers: { cookie: 'trawl_signed_in=1' } })
    expect(probe.status).toBe(401)
    expect(probe.headers.getSetCookie().find((c) => c.startsWith('trawl_signed_in='))).toMatch(/^trawl_signed_in=; .*Path=\/app;.*Expires=Thu, 01 Jan 1970/)
  })
})

describe('account summary, usage and ledger', () => {
  test('members and owners read the summary, usage series by key and endpoint, and the ledger page by page', async () => {
    const { owner, member, account } = await ownerAndMember()
    const created = await (await owner.call('POST', '/v1/keys', { name: 'second' })).json()
    for (const key of [account.key, account.key, created.secret]) expect((await search(key)).status).toBe(200)

    const summary = await (await member.call('GET', '/v1/account')).json()
    expect(summary).toMatchObject({
      user: { role: 'member' },
      account: { id: account.id, plan: 'enterprise', balance: 97, rate_limit_rps: 100, monthly_spend_cap: null, month: { credits: 3, requests: 3 } },
      features: { crawls: true, engines: true, batches: true, monitors: true },
    })
    expect((await (await owner.call('GET', '/v1/account')).json()).user.role).toBe('owner')

    const usage = await (await member.call('GET', '/v1/usage')).json()
    expect(usage.days).toHaveLength(30)
    expect(usage.days.at(-1)).toBe(new Date().toISOString().slice(0, 10))
    expect(usage.total.at(-1)).toBe(3)
    expect(usage.by_key.map((k: { name: string; total: number }) => [k.name, k.total])).toEqual([
      ['default', 2],
      ['second', 1],
    ])
    expect(usage.by_endpoint).toEqual([{ endpoint: '/v1/search', credits: expect.any(Array), total: 3 }])
    expect((await owner.call('GET', '/v1/usage?days=91')).status).toBe(400)

    const first = await (await owner.call('GET', '/v1/ledger?limit=2')).json()
    expect(first.entries).toHaveLength(2)
    expect(first.entries[0]).toMatchObject({ kind: 'reserve', amount: -1, endpoint: '/v1/search', key_name: 'second' })
    const rest = await (await owner.call('GET', `/v1/ledger?limit=50&before=${first.next_before}`)).json()
    expect(rest.next_before).toBeNull()
    const kinds = [...first.entries, ...rest.entries].map((e: { kind: string }) => e.kind)
    expect(kinds.at(-1)).toBe('purchase')
    expect(kinds.filter((k) => k === 'reserve')).toHaveLength(3)
    expect((await fetch(`${trawl.base}/app/api/v1/ledger`)).status).toBe(401)
  })
})

describe('playground', () => {
  test('runs a vertical on the user’s key, billed and limited like the API, with JSON and Markdown of one call', async () => {
    const { owner, member, account } = await ownerAndMember()
    const meta = await (await owner.call('GET', '/v1/playground')).json()
    expect(meta.verticals.map((v: { name: string }) => v.name)).toEqual(expect.arrayContaining(['search', 'news', 'images', 'autocomplete', 'reviews']))
    expect(meta.verticals.find((v: { name: string }) => v.name === 'search')).toMatchObject({ path: '/v1/search', markdown: true, required: ['q'] })
    expect(meta.keys).toEqual([expect.objectContaining({ name: 'default', own: true })])

    const res = await owner.call('POST', '/v1/playground/search', { params: { q: 'coffee', num: 10 } })
    expect(res.status).toBe(200)
    expect(res.headers.get('x-credits-used')).toBe('1')
    const run = await res.json()
    expect(run).toMatchObject({ vertical: 'search', credits_used: 1, credits_remaining: 99, cache: 'MISS', key_id: meta.keys[0].id })
    expect(run.json.results).toHaveLength(10)
    expect(run.json.request).toMatchObject({ q: 'coffee', engine: 'google' })
    expect(run.markdown).toMatch(/coffee/i)
    // The same call through the API with the same key costs the same.
    const api = await search(account.key)
    expect(api.headers.get('x-credits-used')).toBe('1')

    // Validation is the API's: unknown parameters name their replacement, nothing is billed.
    const bad = await owner.call('POST', '/v1/playground/search', { params: { q: 'coffee', query: 'x' } })
    expect(await errorOf(bad)).toMatchObject({ status: 400, code: 'invalid_request' })
    expect(bad.headers.get('x-credits-used')).toBe('0')
    expect((await owner.call('POST', '/v1/playground/nope', { params: { q: 'x' } })).status).toBe(404)

    // Members bill only their own keys; without one they are asked to create one.
    expect(await errorOf(await member.call('POST', '/v1/playground/search', { params: { q: 'coffee' } }))).toMatchObject({
      status: 400,
      message: expect.stringContaining('create a key first'),
    })
    expect((await member.call('POST', '/v1/playground/search', { key_id: meta.keys[0].id, params: { q: 'coffee' } })).status).toBe(404)
    const mine = await (await member.call('POST', '/v1/keys', { name: 'member key' })).json()
    const memberRun = await (await member.call('POST', '/v1/playground/search', { params: { q: 'coffee' } })).json()
    expect(memberRun.key_id).toBe(mine.id)

    // The key's monthly limit applies: 1 credit used, the owner sets 2, so one more call passes and the next is refused.
    expect((await owner.call('PATCH', `/v1/keys/${mine.id}`, { credit_limit: 2 })).status).toBe(200)
    expect((await member.call('POST', '/v1/playground/search', { params: { q: 'coffee' } })).status).toBe(200)
    expect(await errorOf(await member.call('POST', '/v1/playground/search', { params: { q: 'coffee' } }))).toMatchObject({
      status: 403,
      code: 'key_limit_reached',
    })
    expect(await expectBooksBalanced(trawl, account.id)).toBe(96)
  })
})

describe('webhooks: deliveries and the test event', () => {
  test('the test event is signed with the current secret, recorded with status and response code; members may send it but not change settings', async () => {
    const receiver = await startReceiver((n, res) => res.writeHead(n === 1 ? 500 : 200).end('ok'))
    try {
      const { owner, member } = await ownerAndMember()
      expect(await errorOf(await owner.call('POST', '/v1/webhook/test'))).toMatchObject({ status: 400, message: 'set a webhook URL first' })
      const { secret } = await (await owner.call('PUT', '/v1/webhook', { url: receiver.url })).json()
      const sent = await (await owner.call('POST', '/v1/webhook/test')).json()
      expect(sent.delivery).toMatchObject({ event: 'webhook.test', status: 'delivered', attempts: 1, response_code: 200, error: null })
      expect(receiver.hits).toHaveLength(1)
      expect(verifyTrawlSignature(secret, receiver.hits[0]!)).toBe(true)
      expect(verifyStandardSignature(secret, receiver.hits[0]!)).toBe(true)
      expect(receiver.hits[0]!.headers['x-trawl-event']).toBe('webhook.test')

      expect((await member.call('POST', '/v1/webhook/secret/rotate')).status).toBe(403)
      expect((await member.call('PUT', '/v1/webhook', { url: null })).status).toBe(403)
      const failed = await (await member.call('POST', '/v1/webhook/test')).json()
      expect(failed.delivery).toMatchObject({ status: 'failed', response_code: 500, error: expect.stringContaining('HTTP 500') })

      const rotated = await (await owner.call('POST', '/v1/webhook/secret/rotate')).json()
      await owner.call('POST', '/v1/webhook/test')
      expect(verifyTrawlSignature(rotated.secret, receiver.hits[2]!)).toBe(true)
      expect(verifyTrawlSignature(secret, receiver.hits[2]!)).toBe(false)

      const list = await (await member.call('GET', '/v1/webhook/deliveries')).json()
      expect(list.deliveries.map((d: { status: string; response_code: number }) => [d.status, d.response_code])).toEqual([
        ['delivered', 200],
        ['failed', 500],
        ['delivered', 200],
      ])
    } finally {
      await receiver.close()
    }
  })
})

describe('work: crawls, batches, monitors and engines for the session', () => {
  test('lists what the account queued through the API, and pauses and resumes a monitor on its own key', async () => {
    const { owner, member, account } = await ownerAndMember()
    const auth = { authorization: `Bearer ${account.key}`, 'content-type': 'application/json' }
    const crawl = await (
      await fetch(`${trawl.base}/v1/crawl`, { method: 'POST', headers: auth, body: JSON.stringify({ url: 'https://example.com/', limit: 3 }) })
    ).json()
    const crawls = await (await member.call('GET', '/v1/crawls')).json()
    expect(crawls.crawls).toEqual([expect.objectContaining({ id: crawl.id, status: 'queued', url: 'https://example.com/', result: null })])
    expect(await (await owner.call('DELETE', `/v1/crawls/${crawl.id}`)).json()).toMatchObject({ id: crawl.id, status: 'canceled' })

    const engines = await (await member.call('GET', '/v1/engines')).json()
    expect(engines.engines.map((e: { name: string }) => e.name)).toContain('google')

    const features = (await (await owner.call('GET', '/v1/account')).json()).features
    if (features.batches) {
      const queued = await fetch(`${trawl.base}/v1/batches`, {
        method: 'POST',
        headers: auth,
        body: JSON.stringify({ endpoint: 'search', requests: [{ q: 'a' }, { q: 'b' }] }),
      })
      expect(queued.status).toBe(202)
      const jobs = await (await owner.call('GET', '/v1/batches')).json()
      expect(jobs.jobs.map((j: { status: string }) => j.status)).toEqual(['queued', 'queued'])
    }
    if (features.monitors) {
      const monitor = await (await fetch(`${trawl.base}/v1/monitors`, { method: 'POST', headers: auth, body: JSON.stringify({ q: 'coffee' }) })).json()
      expect((await (await member.call('GET', '/v1/monitors')).json()).monitors.map((m: { id: string }) => m.id)).toEqual([monitor.id])
      expect(await (await member.call('PATCH', `/v1/monitors/${monitor.id}`, { active: false })).json()).toMatchObject({ active: false })
      expect(await (await owner.call('PATCH', `/v1/monitors/${monitor.id}`, { active: true })).json()).toMatchObject({ active: true })
      const row = await trawl.services.store.db.selectFrom('monitors').select('key_id').where('id', '=', monitor.id).executeTakeFirstOrThrow()
      const keys = (await (await owner.call('GET', '/v1/keys')).json()).keys
      expect(row.key_id).toBe(keys.find((k: { name: string }) => k.name === 'default').id) // billing stays on the monitor's key
      expect(await (await owner.call('GET', `/v1/monitors/${monitor.id}/runs`)).json()).toMatchObject({ monitor_id: monitor.id, runs: [] })
    }
  })
})

describe('the web app is served by the same process', () => {
  test('index.html for every app path with a CSP; versioned assets cached for a year; unknown API paths stay JSON 404', async () => {
    for (const path of ['/app', '/app/', '/app/keys', '/app/usage/anything']) {
      const res = await fetch(`${trawl.base}${path}`)
      expect(res.status).toBe(200)
      expect(res.headers.get('content-type')).toMatch(/^text\/html/)
      expect(res.headers.get('cache-control')).toBe('no-cache')
      expect(res.headers.get('content-security-policy')).toMatch(/script-src 'self' 'sha256-/)
    }
    const html = await (await fetch(`${trawl.base}/app`)).text()
    const main = /src="(\/app\/assets\/[0-9a-f]+\/js\/main\.js)"/.exec(html)![1]!
    const importMap = JSON.parse(/<script type="importmap">(.*?)<\/script>/.exec(html)![1]!)
    for (const url of [main, importMap.imports.preact, importMap.imports['preact/hooks'], importMap.imports.htm]) {
      const res = await fetch(`${trawl.base}${url}`)
      expect(res.status).toBe(200)
      expect(res.headers.get('content-type')).toBe('text/javascript; charset=utf-8')
      expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable')
      expect(res.headers.get('content-encoding')).toBe('gzip') // fetch asks for it
    }
    const css = await fetch(`${trawl.base}${main.replace('js/main.js', 'app.css')}`)
    expect(css.headers.get('content-type')).toBe('text/css; charset=utf-8')
    const stale = await fetch(`${trawl.base}${main.replace(/assets\/[0-9a-f]+/, 'assets/0123456789ab')}`)
    expect(stale.status).toBe(200)
    expect(stale.headers.get('cache-control')).toBe('no-cache')
    const etag = css.headers.get('etag')!
    expect((await fetch(`${trawl.base}${main.replace('js/main.js', 'app.css')}`, { headers: { 'if-none-match': etag } })).status).toBe(304)
    for (const path of ['/app/api/v1/nope', '/app/assets/x/missing.js']) {
      const res = await fetch(`${trawl.base}${path}`)
      expect(res.status).toBe(404)
      expect((await res.json()).error.code).toBe('not_found')
    }
  })
})

describe.skipIf(skipWithoutPostgres)('on PostgreSQL', () => {
  test('the usage series, ledger, deliveries and work lists read the same', async () => {
    const database = await createTestDatabase()
    const t = await startTrawl({ TRAWL_DATABASE_URL: database.url, TRAWL_UPSTREAM_HOSTS: `*=${upstream.url}` })
    try {
      const { owner, account } = await ownerAndMember(t)
      for (const q of ['a', 'b']) {
        expect((await fetch(`${t.base}/v1/search?q=${q}`, { headers: { authorization: `Bearer ${account.key}` } })).status).toBe(200)
      }
      const usage = await (await owner.call('GET', '/v1/usage?days=7')).json()
      expect(usage.total).toEqual([0, 0, 0, 0, 0, 0, 2])
      expect(usage.by_key).toEqual([expect.objectContaining({ name: 'default', total: 2 })])
      const ledger = await (await owner.call('GET', '/v1/ledger')).json()
      expect(ledger.entries.map((e: { kind: string; amount: number }) => [e.kind, e.amount])).toEqual([
        ['reserve', -1],
        ['reserve', -1],
        ['purchase', 100],
      ])
      for (const path of ['/v1/webhook/deliveries', '/v1/crawls', '/v1/batches']) expect((await owner.call('GET', path)).status).toBe(200)
    } finally {
      await t.close()
      await database.drop()
    }
  })
})

describe.skipIf(skipWithoutRedis)('login throttling with Redis', () => {
  test('attempts taken by one process refuse logins in another', async () => {
    const redis = new Redis('redis://127.0.0.1:6379')
    try {
      await redis.ping()
      const [a, b] = [createLoginThrottle({ redis, store: trawl.services.store }), createLoginThrottle({ redis, store: trawl.services.store })]
      // A unique address and email: the counters live in the shared Redis for 15 minutes.
      const ip = `test-${randomUUID()}`
      const address = email()
      const attempts = []
      for (let i = 0; i < 10; i++) attempts.push(await (i % 2 ? a : b).take(ip, address))
      await expect(a.take(ip, address)).rejects.toMatchObject({ code: 'rate_limited' })
      await expect(b.take(ip, address)).rejects.toMatchObject({ code: 'rate_limited' })
      await expect(b.take(ip, email())).resolves.toMatchObject({ ip })
      await a.succeeded(attempts[0]!)
      await expect(b.take(ip, address)).resolves.toMatchObject({ ip })
    } finally {
      redis.disconnect()
    }
  })
})
