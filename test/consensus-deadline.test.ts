import { afterAll, beforeAll, expect, test } from 'vitest'
import { type FakeUpstream, fakeUpstream } from './support/fake-upstream.ts'
import { startTrawl, type Trawl } from './support/start-trawl.ts'

/** engine=consensus when no provider answers before the deadline: a 503 upstream_timeout that says so, never a 500, not billed. */

let upstream: FakeUpstream
let trawl: Trawl
let key: string

beforeAll(async () => {
  // Every engine host is this server, and it never answers.
  upstream = await fakeUpstream(() => {})
  trawl = await startTrawl({ TRAWL_UPSTREAM_HOSTS: `*=${upstream.url}`, TRAWL_UPSTREAM_TIMEOUT_MS: '1500', TRAWL_BROWSER: 'off' })
  key = (await trawl.account({ plan: 'enterprise', rate_limit_rps: 1000, credits: 100 })).key
})
afterAll(async () => {
  await trawl?.close()
  await upstream?.close()
})

test('consensus with providers that never answer: 503 upstream_timeout naming the deadline, Retry-After, nothing billed', async () => {
  const balance = async () => (await (await fetch(`${trawl.base}/v1/account`, { headers: { authorization: `Bearer ${key}` } })).json()).balance
  const before = await balance()
  const res = await fetch(`${trawl.base}/v1/search?q=coffee&engine=consensus`, { headers: { authorization: `Bearer ${key}` } })
  expect(res.status).toBe(503)
  expect(res.headers.get('retry-after')).toBeTruthy()
  const body = await res.json()
  // Said by the consensus deadline, or by the engines' own walks when theirs ran out first: a timeout either way.
  expect(body.error.code).toBe('upstream_timeout')
  expect(body.error.message).toMatch(/^no engine (of the consensus set answered within 1\.5 s|tried answered in time)/)
  expect(await balance()).toBe(before)
})
