import type { IncomingMessage, ServerResponse } from 'node:http'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { searxngAnswer } from '../src/engines/searxng/searxng.fixture.ts'
import { SERPER_ANSWERS } from '../src/engines/serper/serper.fixture.ts'
import { type FakeUpstream, fakeUpstream } from './support/fake-upstream.ts'
import { startTrawl, type Trawl } from './support/start-trawl.ts'

/**
 * The credentials of an operator's upstreams (SearXNG's user:password, the Serper key) go only to
 * the origin they were configured for: a redirect to another port or host of the same site is
 * followed without them. One loopback server answers every host (TRAWL_UPSTREAM_HOSTS) and keeps
 * what each request carried.
 */

const SERPER_KEY = 'serper-test-key-0123456789'

let upstream: FakeUpstream
let trawl: Trawl
let key: string

function answer(req: IncomingMessage, res: ServerResponse) {
  const host = String(req.headers['x-forwarded-host'] ?? '')
  const url = new URL(req.url ?? '/', 'http://x')
  const json = (body: unknown) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body))
  if (host === 'searx.test:8888') return res.writeHead(302, { location: `http://searx.test:9999${url.pathname}${url.search}` }).end()
  if (host === 'searx.test:9999') return json(searxngAnswer())
  if (host === 'google.serper.dev') return res.writeHead(302, { location: `https://api.serper.dev${url.pathname}${url.search}` }).end()
  if (host === 'api.serper.dev') return json(SERPER_ANSWERS.search)
  res.writeHead(404).end()
}

beforeAll(async () => {
  upstream = await fakeUpstream(answer)
  trawl = await startTrawl({
    TRAWL_UPSTREAM_HOSTS: `*=${upstream.url}`,
    TRAWL_SEARXNG_URL: 'http://trawl:s3cret-pass@searx.test:8888',
    TRAWL_SERPER_API_KEY: SERPER_KEY,
    TRAWL_UPSTREAM_TIMEOUT_MS: '3000',
    TRAWL_BROWSER: 'off',
  })
  key = (await trawl.account({ plan: 'enterprise', rate_limit_rps: 1000, credits: 100 })).key
})
afterAll(async () => {
  await trawl?.close()
  await upstream?.close()
})

const search = (engine: string) => fetch(`${trawl.base}/v1/search?q=espresso&engine=${engine}`, { headers: { authorization: `Bearer ${key}` } })
const sentTo = (host: string) => upstream.seen.filter((s) => s.host === host).map((s) => s.headers)

describe('credentials never cross an origin change', () => {
  test('SearXNG basic auth goes to the configured port only', async () => {
    await search('searxng')
    expect(sentTo('searx.test:8888')[0]?.authorization).toBe(`Basic ${Buffer.from('trawl:s3cret-pass').toString('base64')}`)
    const redirected = sentTo('searx.test:9999')
    expect(redirected.length).toBeGreaterThan(0)
    for (const headers of redirected) expect(headers.authorization).toBeUndefined()
  })

  test('the Serper key goes to google.serper.dev only', async () => {
    await search('serper')
    expect(sentTo('google.serper.dev')[0]?.['x-api-key']).toBe(SERPER_KEY)
    const redirected = sentTo('api.serper.dev')
    expect(redirected.length).toBeGreaterThan(0)
    for (const headers of redirected) expect(headers['x-api-key']).toBeUndefined()
  })
})
