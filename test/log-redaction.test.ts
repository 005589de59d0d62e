import { connect } from 'node:net'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { type FakeUpstream, fakeUpstream, fixture, htmlPage } from './support/fake-upstream.ts'
import { ADMIN_TOKEN, startTrawl, type Trawl } from './support/start-trawl.ts'

/**
 * The server's whole log, at trace level, over real requests that carry every kind of secret in
 * every place a client puts one: none of them appears in it.
 */

let trawl: Trawl
let upstream: FakeUpstream
const lines: string[] = []
const log = () => lines.join('')

beforeAll(async () => {
  upstream = await fakeUpstream(htmlPage(fixture('serp/google/web-desktop/zlurad-coffee.html')))
  trawl = await startTrawl(
    { TRAWL_UPSTREAM_HOSTS: `*=${upstream.url}`, TRAWL_LOG_LEVEL: 'trace' },
    { logStream: { write: (line: string) => lines.push(line) } },
  )
})
afterAll(async () => {
  await trawl.close()
  await upstream.close()
})

/** A request written byte for byte (URLs fetch would refuse or re-encode). */
function rawRequest(head: string): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(Number(new URL(trawl.base).port), '127.0.0.1')
    let answer = ''
    socket.on('data', (d) => (answer += d.toString()))
    socket.on('error', () => {})
    socket.on('close', () => resolve(answer))
    socket.end(`${head}\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`)
  })
}

describe('secrets never reach the log', () => {
  test('keys in query strings and headers, passwords, session cookies and webhook secrets are redacted', async () => {
    const password = 'correct-horse-battery-staple'
    const { key } = await trawl.account({ email: 'logs@example.test', password, plan: 'enterprise', rate_limit_rps: 1000 })
    const bearer = { authorization: `Bearer ${key}` }

    // ?api_key= on GET and ?key= on /customsearch/v1, the key's other allowed places.
    expect((await fetch(`${trawl.base}/v1/search?api_key=${key}&q=coffee`)).status).toBe(200)
    expect((await fetch(`${trawl.base}/customsearch/v1?q=coffee&key=${key}`)).status).toBe(200)
    // The query parser decodes names, so an encoded api%5Fkey is a key too (API_KEY is an unknown parameter: 400, logged all the same).
    expect((await fetch(`${trawl.base}/v1/account?API_KEY=${key}&api%5Fkey=${key}`)).status).toBe(400)
    // Refused or failing requests are logged too: POST with a query key, unknown routes, bad URLs.
    expect(
      (await fetch(`${trawl.base}/v1/search?api_key=${key}`, { method: 'POST', body: '{"q":"x"}', headers: { 'content-type': 'application/json' } })).status,
    ).toBe(401)
    expect((await fetch(`${trawl.base}/v1/nothing?api_key=${key}&token=tok-secret-1&password=${password}`)).status).toBe(404)
    expect(await rawRequest(`GET /v1/batches/%ZZ?api_key=${key} HTTP/1.1`)).toMatch(/^HTTP\/1\.1 400/)
    expect(await rawRequest(`GET /v1/search?api_key=${key}&q=${'x'.repeat(20_000)} HTTP/1.1`)).toMatch(/^HTTP\/1\.1 431/)
    expect(await rawRequest(`GET /v1/account HTTP/1.1\r\nAuthorization: Bearer ${key}\r\nBroken header`)).toMatch(/^HTTP\/1\.1 400/)
    // A key where no key belongs still must not be logged.
    expect((await fetch(`${trawl.base}/v1/search?q=${key}`, { headers: bearer })).status).toBe(200)
    // Headers: Authorization, X-API-Key, Cookie; the operator token.
    await fetch(`${trawl.base}/v1/account`, { headers: { ...bearer, 'x-api-key': key, cookie: `k=${key}` } })
    expect((await trawl.admin('GET', '/admin/v1/accounts/nope')).status).toBe(404)

    // Dashboard: a password in a body, the session cookie, the webhook secret.
    const login = await fetch(`${trawl.base}/app/api/v1/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'logs@example.test', password }),
    })
    const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0] ?? ''
    const session = cookie.split('=')[1] ?? ''
    expect(session.length).toBeGreaterThan(20)
    const dashboard = (method: string, path: string, body?: unknown) =>
      fetch(`${trawl.base}/app/api${path}`, {
        method,
        headers: { cookie, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      })
    expect((await dashboard('PUT', '/v1/webhook', { url: 'https://hooks.example.test/in' })).status).toBe(200)
    const { secret } = (await (await dashboard('POST', '/v1/webhook/secret/rotate')).json()) as { secret: string }
    expect(secret).toMatch(/^whsec_/)
    expect((await fetch(`${trawl.base}/v1/nothing?secret=${encodeURIComponent(secret)}`)).status).toBe(404)
    expect((await fetch(`${trawl.base}/v1/nothing/${secret.replaceAll('/', '_')}`)).status).toBe(404)

    // Whatever a feature logs by hand goes through the same logger.
    trawl.app.log.warn(
      { req: { headers: { authorization: `Bearer ${key}`, cookie, 'set-cookie': [cookie] } }, body: { password, webhook_secret: secret } },
      `saw ${key}`,
    )

    const text = log()
    expect(text).toContain('"url":"/v1/search?api_key=[REDACTED]&q=coffee"') // requests are logged, redacted
    expect(text).toContain('"url":"/customsearch/v1?q=coffee&key=[REDACTED]"')
    for (const [name, value] of Object.entries({
      key,
      password,
      session,
      secret,
      'secret (URL-encoded)': encodeURIComponent(secret),
      'secret body': secret.slice('whsec_'.length),
      token: 'tok-secret-1',
      'operator token': ADMIN_TOKEN,
    })) {
      expect(text.includes(value), `${name} is in the log`).toBe(false)
    }
  })
})
