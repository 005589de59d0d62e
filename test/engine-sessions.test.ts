import type { IncomingMessage, ServerResponse } from 'node:http'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { type FakeUpstream, fakeUpstream, fixture } from './support/fake-upstream.ts'
import { startTrawl, type Trawl } from './support/start-trawl.ts'

/**
 * What a browser keeps between requests, through the HTTP API: Brave's first answer to a fresh
 * client is a 429 that sets the cookie the retry needs (it is retried once inside the request, and
 * the cookie goes with every later search), and one deadline shared by every route of a request
 * (an engine that never answers is not waited for once per route).
 */

const BRAVE_PAGE = 'serp/brave/web/wsmcp-javascript-tutorial-2026.html'
const SESSION_COOKIE = 'brave_session'

let upstream: FakeUpstream
let trawl: Trawl
let key: string
/** Brave's fresh-client rule: which requests came with its cookie, which without. */
const brave: { withCookie: number; without: number; issued: number } = { withCookie: 0, without: 0, issued: 0 }
const googleHits: string[] = []

function answer(req: IncomingMessage, res: ServerResponse) {
  const host = String(req.headers['x-forwarded-host'] ?? '')
  if (host === 'search.brave.com') {
    const cookie = String(req.headers.cookie ?? '')
    const session = new RegExp(`(?:^|; )${SESSION_COOKIE}=(s\\d+)`).exec(cookie)?.[1]
    // The engine's own settings cookies still travel beside the session's.
    if (!/(?:^|; )country=us/.test(cookie)) return res.writeHead(400).end('settings cookies missing')
    if (!session) {
      brave.without++
      brave.issued++
      return res
        .writeHead(429, { 'set-cookie': `${SESSION_COOKIE}=s${brave.issued}; Path=/; Secure; HttpOnly; Max-Age=3600`, 'content-type': 'text/html' })
        .end('<html><title>Too many requests</title></html>')
    }
    brave.withCookie++
    return res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(fixture(BRAVE_PAGE))
  }
  if (host === 'www.google.com') {
    googleHits.push(req.url ?? '')
    return // never answers: every route of the request hangs
  }
  res.writeHead(404).end()
}

beforeAll(async () => {
  upstream = await fakeUpstream(answer)
  trawl = await startTrawl({ TRAWL_UPSTREAM_HOSTS: `*=${upstream.url}`, TRAWL_UPSTREAM_TIMEOUT_MS: '800' })
  key = (await trawl.account({ plan: 'enterprise', rate_limit_rps: 1000, credits: 1000 })).key
})

afterAll(async () => {
  await trawl?.close()
  await upstream?.close()
})

const search = (query: string) => fetch(`${trawl.base}/v1/search?${query}`, { headers: { authorization: `Bearer ${key}` } })

type Route = { engine: string; route?: string; outcome: string; status?: number; reason?: string }

describe('engine sessions', () => {
  test("Brave's first 429 is retried once with the cookie it set; later searches carry it", async () => {
    const res = await search('q=javascript+tutorial&engine=brave')
    expect(res.status).toBe(200)
    const body = (await res.json()) as { results: unknown[]; meta: { route: Route[] } }
    expect(body.results.length).toBeGreaterThan(5)
    expect(brave).toMatchObject({ without: 1, withCookie: 1, issued: 1 })

    const again = await search('q=javascript+tutorial+2&engine=brave')
    expect(again.status).toBe(200)
    // The second search went out with the session cookie straight away: no second 429.
    expect(brave).toMatchObject({ without: 1, withCookie: 2, issued: 1 })
  })

  test('a hung engine: its routes share one deadline, then auto moves on within it', async () => {
    const res = await search('q=coffee&engine=google')
    expect(res.status).toBe(503)
    const body = (await res.json()) as { error: { code: string; message: string } }
    expect(body.error.code).toBe('upstream_timeout')
    // Each route was asked once inside the one deadline (the first with half of it, so the next still had time).
    expect(googleHits.map((u) => u.split('?')[0])).toEqual(['/wml/search', '/search'])
    expect(body.error.message).toMatch(/^google did not answer in time: wml: no answer before the deadline/)

    googleHits.length = 0
    const auto = await search('q=javascript+tutorial&engine=google,brave')
    expect(auto.status).toBe(200)
    const answered = (await auto.json()) as { results: unknown[]; meta: { engine: string; route: Route[] } }
    expect(answered.results.length).toBeGreaterThan(5)
    expect(answered.meta.route.filter((r) => r.engine === 'google').map((r) => r.outcome)).toEqual(['timeout', 'timeout'])
    expect(answered.meta.route.at(-1)).toMatchObject({ engine: 'brave', outcome: 'ok' })

    // Both routes of the primary are down (two failures each) while Google as a whole has too
    // few answers to judge: /healthz says it has no working route, and its counts agree.
    const health = (await (await fetch(`${trawl.base}/healthz`)).json()) as { status: string; degraded?: string; engines: Record<string, number> }
    expect(health.status).toBe('degraded')
    expect(health.degraded).toMatch(/^google has no working route \(wml: down; web: down/)
    expect(health.engines.degraded).toBe(1)
    // Each route's health says why it last failed.
    const listed = (await (await fetch(`${trawl.base}/v1/engines`, { headers: { authorization: `Bearer ${key}` } })).json()) as {
      engines: { name: string; routes: { name: string; health: { state: string; last_failure: string | null } | null }[] }[]
    }
    const google = listed.engines.find((e) => e.name === 'google')
    expect(google?.routes.find((r) => r.name === 'wml')?.health).toMatchObject({ state: 'down', last_failure: 'wml: no answer before the deadline' })

    // Every engine of a list failing: the 503 says why for each, route by route.
    const none = await search('q=coffee&engine=google,mojeek')
    expect(none.status).toBe(503)
    const failed = (await none.json()) as { error: { code: string; message: string } }
    expect(failed.error.code).toBe('upstream_timeout')
    expect(failed.error.message).toBe(
      'no engine tried answered in time (google: wml: no answer before the deadline; web: no answer before the deadline | mojeek: web: HTTP 404)',
    )
  })
})
