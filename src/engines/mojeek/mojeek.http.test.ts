import type { IncomingMessage, ServerResponse } from 'node:http'
import { beforeEach, describe, expect, test } from 'vitest'
import { engineSuite } from '../../../test/support/engine-suite.ts'
import { fixture } from '../../../test/support/fake-upstream.ts'

/**
 * Mojeek through the HTTP API, answered by a fake upstream on loopback: what reaches Mojeek (no
 * `lb` / `arc` in the URL, only as cookies) and how its refusal of request parameters is told.
 */
const RESULTS = fixture('serp/mojeek/web/wsmcp-javascript-tutorial-2026.html')
const REFUSED = '<html><head><title>403 - Forbidden</title></head><body><p>Sorry, access denied because of wrong request parameters.</p></body></html>'

let refuse = false
function answer(req: IncomingMessage, res: ServerResponse) {
  if (req.headers['x-forwarded-host'] !== 'www.mojeek.com') return res.writeHead(404).end()
  if (refuse) return res.writeHead(403, { 'content-type': 'text/html; charset=utf-8' }).end(REFUSED)
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(RESULTS)
}

const suite = engineSuite(answer, { credits: 100 })
beforeEach(() => {
  refuse = false
})

const get = (path: string) => fetch(`${suite.trawl.base}${path}`, { headers: { authorization: `Bearer ${suite.account.key}` } })
const balance = async () => ((await (await get('/v1/account')).json()) as { balance: number }).balance

describe('engine=mojeek through the API', () => {
  test('language and region reach Mojeek as the lb / arc cookies, never in the URL', async () => {
    const res = await get('/v1/search?q=javascript+tutorial&engine=mojeek&language=de&country=at')
    expect(res.status).toBe(200)
    expect((await res.json()).results.length).toBeGreaterThan(0)
    const seen = suite.upstream.seen.filter((s) => s.host === 'www.mojeek.com')
    expect(seen.length).toBeGreaterThan(0)
    for (const s of seen) {
      const params = new URL(s.url, 'https://www.mojeek.com').searchParams
      expect(params.has('lb')).toBe(false)
      expect(params.has('arc')).toBe(false)
      expect([...params.keys()].sort()).toEqual(['q', 'safe'])
      expect(s.headers.cookie).toBe('lb=de; arc=at')
    }
  })

  test('a 403 refusing the request parameters is a 503 upstream_blocked that says so, unbilled', async () => {
    refuse = true
    const before = await balance()
    const res = await get('/v1/search?q=javascript+tutorial&engine=mojeek')
    expect(res.status).toBe(503)
    const { error } = (await res.json()) as { error: { code: string; message: string } }
    expect(error.code).toBe('upstream_blocked')
    expect(error.message).toContain('Mojeek refused the request parameters (HTTP 403)')
    expect(await balance()).toBe(before)
  })
})
