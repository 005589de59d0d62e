import { execFile } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { type FakeUpstream, fakeUpstream, fixture } from './support/fake-upstream.ts'
import { startTrawl, type Trawl } from './support/start-trawl.ts'

/**
 * The operator's live self-test and what a primary without a working route looks like from outside:
 * Google answers every request with the page it gives clients that run no scripts today
 * (/httpservice/retry/enablejs), Bing answers its saved result page.
 */
const TRAWL = join(import.meta.dirname, '..', 'bin', 'trawl.mjs')
const ENABLE_JS =
  '<!doctype html><html><head><meta http-equiv="refresh" content="0;url=/httpservice/retry/enablejs?sei=x"></head><body><noscript>Please click <a href="/httpservice/retry/enablejs?sei=x">here</a> if you are not redirected.</noscript></body></html>'

function answer(req: IncomingMessage, res: ServerResponse) {
  const host = String(req.headers['x-forwarded-host'] ?? '')
  if (host === 'www.google.com') return res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(ENABLE_JS)
  if (host === 'www.bing.com' && req.url?.startsWith('/search')) {
    return res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(fixture('serp/bing/web/zlurad-coffee-nojs.html'))
  }
  res.writeHead(404).end()
}

let trawl: Trawl
let upstream: FakeUpstream
let key: string
let dir: string
beforeAll(async () => {
  upstream = await fakeUpstream(answer)
  dir = mkdtempSync(join(tmpdir(), 'trawl-check-'))
  trawl = await startTrawl({ TRAWL_UPSTREAM_HOSTS: `*=${upstream.url}`, TRAWL_UPSTREAM_TIMEOUT_MS: '2000' }, { databaseDir: dir })
  key = (await trawl.account({ plan: 'enterprise', rate_limit_rps: 1000, credits: 100 })).key
})
afterAll(async () => {
  await trawl.close()
  await upstream.close()
  rmSync(dir, { recursive: true, force: true })
})

type Row = { engine: string; vertical: string; route: string; status: number | null; verdict: string; results: number; reason: string | null }

describe('POST /admin/v1/engines/check', () => {
  test('one row per provider, route and vertical: what answered, with the HTTP status, results and why', async () => {
    const res = await trawl.admin('POST', '/admin/v1/engines/check', { engines: ['bing', 'google'], q: 'coffee' })
    expect(res.status).toBe(200)
    const report = (await res.json()) as { q: string; primary: string; primary_ok: boolean | null; rows: Row[] }
    expect(report).toMatchObject({ q: 'coffee', primary: 'google', primary_ok: false })
    const bingSearch = report.rows.find((r) => r.engine === 'bing' && r.vertical === 'search')
    expect(bingSearch).toMatchObject({ route: 'web', status: 200, verdict: 'ok' })
    expect(bingSearch?.results).toBeGreaterThan(0)
    // Bing's news is not served by this fake: its row says so instead of failing the check.
    expect(report.rows.find((r) => r.engine === 'bing' && r.vertical === 'news')).toMatchObject({ verdict: expect.not.stringMatching(/^ok$/), status: 404 })
    const googleSearch = report.rows.filter((r) => r.engine === 'google' && r.vertical === 'search')
    expect(googleSearch.map((r) => r.route)).toContain('web')
    for (const row of googleSearch) expect(row.verdict).not.toBe('ok')
    expect(googleSearch.find((r) => r.route === 'web')).toMatchObject({ verdict: 'blocked', reason: expect.stringMatching(/javascript/i) })
    // Verticals that need more than a query are listed as skipped, with the reason.
    expect(report.rows.find((r) => r.engine === 'google' && r.vertical === 'reviews')).toMatchObject({ verdict: 'skipped', reason: 'needs a place id' })
  })

  test('a provider named three times is checked once (each check is live traffic)', async () => {
    const asked = () => upstream.seen.filter((r) => r.host === 'www.bing.com' && r.url.startsWith('/search')).length
    const before = asked()
    const once = await trawl.admin('POST', '/admin/v1/engines/check', { engines: ['bing'], q: 'coffee' })
    const single = asked() - before
    const thrice = await trawl.admin('POST', '/admin/v1/engines/check', { engines: ['bing', 'bing', 'bing'], q: 'coffee' })
    expect(asked() - before - single).toBe(single)
    const shape = (rows: Row[]) => rows.map((r) => `${r.engine} ${r.vertical} ${r.route} ${r.verdict}`)
    expect(shape((await thrice.json()).rows)).toEqual(shape((await once.json()).rows))
  })

  test('bad input is a 400 and checks nothing; it needs the operator token', async () => {
    expect((await trawl.admin('POST', '/admin/v1/engines/check', { engines: ['altavista'] })).status).toBe(400)
    expect((await trawl.admin('POST', '/admin/v1/engines/check', { q: 'x', toString: 1 })).status).toBe(400)
    const anonymous = await fetch(`${trawl.base}/admin/v1/engines/check`, { method: 'POST' })
    expect(anonymous.status).not.toBe(200)
  })
})

describe('the primary without a working route', () => {
  test('a search says why route by route (a JavaScript page is not rate limiting); /healthz turns degraded, still 200', async () => {
    for (let i = 0; i < 2; i++) {
      const res = await fetch(`${trawl.base}/v1/search?q=coffee&engine=google`, { headers: { authorization: `Bearer ${key}` } })
      expect(res.status).toBe(503)
      const body = (await res.json()) as { error: { message: string } }
      expect(body.error.message).toMatch(/javascript/i)
      expect(body.error.message).not.toMatch(/rate limit/i)
    }
    const health = await fetch(`${trawl.base}/healthz`)
    expect(health.status).toBe(200)
    const body = (await health.json()) as { status: string; degraded?: string }
    expect(body.status).toBe('degraded')
    expect(body.degraded).toMatch(/^google has no working route/)
    const engines = (await (await fetch(`${trawl.base}/v1/engines`, { headers: { authorization: `Bearer ${key}` } })).json()) as {
      engines: { name: string; routes: { name: string; health: { state: string } | null }[] }[]
    }
    const google = engines.engines.find((e) => e.name === 'google')
    expect(google?.routes.find((r) => r.name === 'web')?.health?.state).toBe('blocked')
  })
})

describe('trawl engines check', () => {
  const cli = async (...args: string[]) => {
    const env = { ...process.env, TRAWL_DATABASE_URL: `sqlite:${join(dir, 'trawl.db')}`, TRAWL_UPSTREAM_HOSTS: `*=${upstream.url}`, TRAWL_BROWSER: 'off' }
    try {
      const { stdout } = await promisify(execFile)(process.execPath, [TRAWL, ...args], { env })
      return { code: 0, stdout }
    } catch (err) {
      const e = err as { code: number; stdout: string; stderr: string }
      return { code: e.code, stdout: e.stdout + e.stderr }
    }
  }

  test('prints a table and exits 1 when the primary has no working route', async () => {
    const out = await cli('engines', 'check', '--engine', 'google', '--vertical', 'search')
    expect(out.code).toBe(1)
    expect(out.stdout).toMatch(/engine\s+vertical\s+route\s+HTTP\s+verdict/)
    expect(out.stdout).toMatch(/google\s+search\s+web\s+200\s+blocked/)
    expect(out.stdout).toMatch(/browser.*unavailable/)
    expect(out.stdout).toContain('google has no working web search route from this machine.')
  })

  test('exits 0 when what was checked answers; --json prints the report', async () => {
    const out = await cli('engines', 'check', '--engine', 'bing', '--vertical', 'search', '--json')
    expect(out.code).toBe(0)
    const report = JSON.parse(out.stdout) as { primary_ok: boolean | null; rows: Row[] }
    expect(report.primary_ok).toBeNull()
    expect(report.rows).toEqual([expect.objectContaining({ engine: 'bing', route: 'web', verdict: 'ok' })])
  })
})
