import type { IncomingMessage, ServerResponse } from 'node:http'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { type FakeUpstream, fakeUpstream, fixture } from './support/fake-upstream.ts'
import { startTrawl, type Trawl } from './support/start-trawl.ts'

/**
 * An engine page nested far deeper than any real one (a hostile or broken upstream): that engine's
 * page is unreadable, a 503 that says so, and engine=auto moves on to the next provider; never a 500.
 */

const DEEP = `<!DOCTYPE html><html><body>${'<div>'.repeat(200_000)}coffee${'</div>'.repeat(200_000)}</body></html>`
const BING = fixture('serp/bing/web/zlurad-coffee-nojs.html')

let upstream: FakeUpstream
let trawl: Trawl
let key: string

beforeAll(async () => {
  upstream = await fakeUpstream((req: IncomingMessage, res: ServerResponse) => {
    const host = String(req.headers['x-forwarded-host'] ?? '')
    if (host === 'www.google.com') return res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(DEEP)
    if (host === 'www.bing.com' && req.url?.startsWith('/search')) return res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(BING)
    res.writeHead(404).end()
  })
  trawl = await startTrawl({ TRAWL_UPSTREAM_HOSTS: `*=${upstream.url}`, TRAWL_UPSTREAM_TIMEOUT_MS: '10000', TRAWL_BROWSER: 'off' })
  key = (await trawl.account({ plan: 'enterprise', rate_limit_rps: 1000, credits: 100 })).key
})
afterAll(async () => {
  await trawl?.close()
  await upstream?.close()
})

const search = (engine: string) => fetch(`${trawl.base}/v1/search?q=coffee&engine=${engine}`, { headers: { authorization: `Bearer ${key}` } })

test('google alone: 503 naming google, not 500', async () => {
  const res = await search('google')
  expect(res.status).toBe(503)
  const { error } = await res.json()
  expect(error.code).toMatch(/^upstream_/)
  expect(error.message).toMatch(/^google /)
})

test('auto falls back past it to a provider that answers', async () => {
  const res = await search('google,bing')
  expect(res.status).toBe(200)
  const body = await res.json()
  expect(body.meta.engine).toBe('bing')
  expect(body.results.length).toBeGreaterThan(0)
})
