import { createHash } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest'
import { forgetStartpageSc } from '../src/engines/startpage/startpage.sc.ts'
import { type AltchaUpstream, type AltchaUpstreamOptions, altchaUpstream } from './support/altcha-upstream.ts'
import { type AnubisUpstream, type AnubisUpstreamOptions, anubisUpstream, parseCookies } from './support/anubis-upstream.ts'
import { type FakeUpstream, fakeUpstream, fixture } from './support/fake-upstream.ts'
import { startTrawl, type Trawl } from './support/start-trawl.ts'

/**
 * The proof-of-work gates through the HTTP API: Startpage behind Anubis and Mojeek behind Altcha,
 * each a fake on loopback that issues random challenges and checks the answers with the real
 * hash or key derivation (test/support/anubis-upstream.ts, altcha-upstream.ts), in front of the
 * engines' saved result pages. Nothing leaves 127.0.0.1.
 */

const STARTPAGE_RESULTS = fixture('serp/startpage/web/wsmcp-javascript-tutorial-http-2026.html')
const STARTPAGE_HOME =
  '<!doctype html><html><body><form id="search" action="/sp/search" method="post"><input type="hidden" name="sc" value="wnEHetqY4mdm00"></form></body></html>'
const MOJEEK_RESULTS = fixture('serp/mojeek/web/wsmcp-javascript-tutorial-2026.html')

const html = (res: ServerResponse, body: Buffer | string) => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(body)

function startpagePages(req: IncomingMessage, res: ServerResponse) {
  const path = new URL(req.url ?? '/', 'http://x').pathname
  if (path === '/') return html(res, STARTPAGE_HOME)
  if (path === '/sp/search' && req.method === 'POST') return html(res, STARTPAGE_RESULTS)
  res.writeHead(404).end()
}

function mojeekPages(req: IncomingMessage, res: ServerResponse) {
  if (new URL(req.url ?? '/', 'http://x').pathname === '/search') return html(res, MOJEEK_RESULTS)
  res.writeHead(404).end()
}

/** Startpage's deployment of Anubis (degoog-org/official-extensions PR #40), at its difficulty of 2026. */
const STARTPAGE_ANUBIS: AnubisUpstreamOptions = { difficulty: 4, cookiePrefix: 'spchal', extraCookies: ['sp_pow'] }

interface Site {
  upstream: FakeUpstream
  trawl: Trawl
  key: string
  anubis: AnubisUpstream
  altcha: AltchaUpstream
  get(path: string): Promise<Response>
}

/** A fake Startpage and Mojeek on one loopback server, and a Trawl pointed at it. */
async function site(env: Record<string, string>, anubis: () => AnubisUpstream, altcha: () => AltchaUpstream): Promise<Site> {
  const s = { anubis: anubis(), altcha: altcha() } as Site
  s.upstream = await fakeUpstream((req, res) => {
    const host = String(req.headers['x-forwarded-host'] ?? '')
    if (host === 'www.startpage.com') return s.anubis.handler(req, res)
    if (host === 'www.mojeek.com') return s.altcha.handler(req, res)
    res.writeHead(404).end()
  })
  s.trawl = await startTrawl({ TRAWL_UPSTREAM_HOSTS: `*=${s.upstream.url}`, ...env })
  s.key = (await s.trawl.account({ plan: 'enterprise', rate_limit_rps: 1000, credits: 1000 })).key
  s.get = (path) => fetch(`${s.trawl.base}${path}`, { headers: { authorization: `Bearer ${s.key}` } })
  return s
}

let easy: Site
let capped: Site

beforeAll(async () => {
  easy = await site(
    { TRAWL_UPSTREAM_TIMEOUT_MS: '10000' },
    () => anubisUpstream(startpagePages, STARTPAGE_ANUBIS),
    () => altchaUpstream(mojeekPages, { cost: 1000, maxCounter: 100 }),
  )
  // A 100 ms cap against work that takes far longer: difficulty 6 with no answer among the first
  // 1,000,000 nonces, and Altcha with altcha-lib's README counter range (5,000-10,000) at cost 5,000.
  capped = await site(
    { TRAWL_UPSTREAM_TIMEOUT_MS: '10000', TRAWL_POW_TIMEOUT_MS: '100' },
    () => anubisUpstream(startpagePages, { ...STARTPAGE_ANUBIS, difficulty: 6, unsolvableBelow: 1_000_000 }),
    () => altchaUpstream(mojeekPages, { cost: 5000, minCounter: 5000, maxCounter: 10_000 }),
  )
})
afterAll(async () => {
  for (const s of [easy, capped]) {
    await s?.trawl.close()
    await s?.upstream.close()
  }
})
beforeEach(() => {
  forgetStartpageSc()
})

type ErrorBody = { error: { code: string; message: string } }

describe('Startpage behind Anubis', () => {
  test('a search passes the gate and answers results; the next search reuses the pass', async () => {
    const first = await easy.get('/v1/search?q=javascript+tutorial&engine=startpage')
    expect(first.status).toBe(200)
    expect((await first.json()).results.length).toBeGreaterThan(0)
    expect(easy.anubis.stats).toMatchObject({ challenges: 1, passes: 1, refused: [] })

    forgetStartpageSc() // the home page is asked again too: through the same pass
    const second = await easy.get('/v1/search?q=javascript+tutorial+2&engine=startpage')
    expect(second.status).toBe(200)
    expect((await second.json()).results.length).toBeGreaterThan(0)
    expect(easy.anubis.stats).toMatchObject({ challenges: 1, passes: 1, refused: [] })
    expect(easy.anubis.stats.served).toBe(4) // home and search, twice
  })

  test('a challenge harder than the cap is a prompt 503 upstream_blocked with the reason, and the route shows blocked', async () => {
    const res = await capped.get('/v1/search?q=javascript+tutorial&engine=startpage')
    expect(res.status).toBe(503)
    const { error } = (await res.json()) as ErrorBody
    expect(error.code).toBe('upstream_blocked')
    expect(error.message).toContain('anubis: proof of work harder than the 100 ms cap (difficulty 6)')
    expect(capped.anubis.stats.passes).toBe(0)
    const engines = (await (await capped.get('/v1/engines')).json()) as { engines: { name: string; state: string }[] }
    expect(engines.engines.find((e) => e.name === 'startpage')?.state).toBe('blocked')
  })

  test('a difficulty above the limit is refused at once', async () => {
    const hard = anubisUpstream(startpagePages, { ...STARTPAGE_ANUBIS, difficulty: 7 })
    const before = capped.anubis
    capped.anubis = hard
    try {
      const res = await capped.get('/v1/search?q=javascript+tutorial&engine=startpage')
      expect(res.status).toBe(503)
      expect(((await res.json()) as ErrorBody).error.message).toContain('anubis: proof of work of difficulty 7 is above the limit of 6')
    } finally {
      capped.anubis = before
    }
  })

  test('the fake answers as traced in degoog PR #40: no challenge cookies 500 and cleared, with them 302 and spchal-auth, once', async () => {
    const gate = anubisUpstream(startpagePages, { ...STARTPAGE_ANUBIS, difficulty: 2 })
    const server = await fakeUpstream(gate.handler)
    try {
      const page = await fetch(`${server.url}/sp/search`, { method: 'POST', headers: { 'x-forwarded-host': 'www.startpage.com' } })
      const set = page.headers.getSetCookie()
      expect(set.map((c) => c.split('=')[0])).toEqual(['spchal-cookie-verification', 'sp_pow'])
      const json = /<script id="anubis_challenge" type="application\/json">(.*?)<\/script>/.exec(await page.text())?.[1] ?? ''
      const { challenge } = JSON.parse(json) as { challenge: { id: string; randomData: string } }
      let nonce = 0
      while (!createHash('sha256').update(`${challenge.randomData}${nonce}`).digest('hex').startsWith('00')) nonce++
      const response = createHash('sha256').update(`${challenge.randomData}${nonce}`).digest('hex')
      const pass = `${server.url}/.within.website/x/cmd/anubis/api/pass-challenge?${new URLSearchParams({ id: challenge.id, response, nonce: String(nonce), redir: '/sp/search', elapsedTime: '5' })}`
      const cookie = set.map((c) => c.split(';')[0]).join('; ')

      const without = await fetch(pass, { redirect: 'manual' })
      expect(without.status).toBe(500)
      expect(without.headers.getSetCookie()[0]).toMatch(/^spchal-auth=;.*Max-Age=0/)

      const withCookies = await fetch(pass, { redirect: 'manual', headers: { cookie } })
      expect(withCookies.status).toBe(302)
      expect(withCookies.headers.get('location')).toBe('/sp/search')
      const auth = parseCookies(withCookies.headers.getSetCookie()[0]?.split(';')[0])['spchal-auth']
      expect(auth).toBeTruthy()

      const again = await fetch(pass, { redirect: 'manual', headers: { cookie } })
      expect(again.status).toBe(500) // a spent challenge
      const results = await fetch(`${server.url}/sp/search`, { method: 'POST', headers: { cookie: `spchal-auth=${auth}` } })
      expect(await results.text()).toContain('w-gl')
      expect(gate.stats.refused).toEqual(['cookies disabled: no verification cookie', 'double spend prevented'])
    } finally {
      await server.close()
    }
  })
})

describe('Mojeek behind Altcha', () => {
  test('a search passes the gate and answers results; the next search reuses the pass', async () => {
    const first = await easy.get('/v1/search?q=javascript+tutorial&engine=mojeek')
    expect(first.status).toBe(200)
    expect((await first.json()).results.length).toBeGreaterThan(0)
    expect(easy.altcha.stats).toMatchObject({ pages: 1, challenges: 1, verified: 1, refused: [], served: 1 })

    const second = await easy.get('/v1/search?q=javascript+tutorial+2&engine=mojeek')
    expect(second.status).toBe(200)
    expect((await second.json()).results.length).toBeGreaterThan(0)
    expect(easy.altcha.stats).toMatchObject({ pages: 1, challenges: 1, verified: 1, served: 2 })
  })

  test('a v1 challenge is passed the same way', async () => {
    const before = easy.altcha
    easy.altcha = altchaUpstream(mojeekPages, { version: 1, maxCounter: 50_000 })
    try {
      const res = await easy.get('/v1/search?q=javascript+tutorial+v1&engine=mojeek')
      expect(res.status).toBe(200)
      expect(easy.altcha.stats).toMatchObject({ challenges: 1, verified: 1, refused: [] })
    } finally {
      easy.altcha = before
    }
  })

  test('a challenge harder than the cap is a prompt 503 upstream_blocked with the reason, never 200 with no results', async () => {
    const res = await capped.get('/v1/search?q=javascript+tutorial&engine=mojeek')
    expect(res.status).toBe(503)
    const { error } = (await res.json()) as ErrorBody
    expect(error.code).toBe('upstream_blocked')
    expect(error.message).toContain('altcha: proof of work harder than the 100 ms cap (PBKDF2/SHA-256, cost 5000)')
    expect(capped.altcha.stats.verified).toBe(0)
    const engines = (await (await capped.get('/v1/engines')).json()) as { engines: { name: string; state: string }[] }
    expect(engines.engines.find((e) => e.name === 'mojeek')?.state).toBe('blocked')
  })

  test('an engine that keeps answering the challenge after the pass is a block that says so', async () => {
    const before = easy.altcha
    // Verifies payloads, but the pass cookie it sets is never honoured (a pass bound elsewhere).
    const altcha = altchaUpstream(mojeekPages, { cost: 1000, maxCounter: 100, ignorePasses: true })
    easy.altcha = altcha
    try {
      const res = await easy.get('/v1/search?q=javascript+tutorial+refused&engine=mojeek')
      expect(res.status).toBe(503)
      expect(((await res.json()) as ErrorBody).error.message).toContain('altcha: the engine asked again after the challenge was passed')
      expect(altcha.stats.verified).toBe(1)
    } finally {
      easy.altcha = before
    }
  })
})

describe('passes shared by the processes of one deployment', () => {
  test('a second server on the same database uses the pass the first earned: the challenge is solved once', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'trawl-gates-'))
    const anubis = anubisUpstream(startpagePages, STARTPAGE_ANUBIS)
    const upstream = await fakeUpstream((req, res) =>
      req.headers['x-forwarded-host'] === 'www.startpage.com' ? anubis.handler(req, res) : res.writeHead(404).end(),
    )
    const env = { TRAWL_UPSTREAM_HOSTS: `*=${upstream.url}`, TRAWL_UPSTREAM_TIMEOUT_MS: '10000' }
    const one = await startTrawl(env, { databaseDir: dir })
    const two = await startTrawl(env, { databaseDir: dir })
    try {
      const { key } = await one.account({ plan: 'enterprise', rate_limit_rps: 1000, credits: 1000 })
      const search = (t: Trawl, q: string) => fetch(`${t.base}/v1/search?q=${q}&engine=startpage`, { headers: { authorization: `Bearer ${key}` } })
      expect((await search(one, 'javascript+tutorial')).status).toBe(200)
      expect(anubis.stats).toMatchObject({ challenges: 1, passes: 1 })
      forgetStartpageSc()
      const again = await search(two, 'javascript+tutorial+2')
      expect(again.status).toBe(200)
      expect(((await again.json()) as { results: unknown[] }).results.length).toBeGreaterThan(0)
      // The second process sent the stored pass with its first request: no new challenge.
      expect(anubis.stats).toMatchObject({ challenges: 1, passes: 1, refused: [] })
    } finally {
      await one.close()
      await two.close()
      await upstream.close()
      rmSync(dir, { recursive: true, force: true })
    }
  })
})

describe('the fake Altcha server', () => {
  test('refuses a replayed payload and a wrong key', async () => {
    const options: AltchaUpstreamOptions = { cost: 10, maxCounter: 20 }
    const gate = altchaUpstream(mojeekPages, options)
    const server = await fakeUpstream(gate.handler)
    try {
      const challenge = (await (await fetch(`${server.url}/captcha/challenge`)).json()) as { parameters: Record<string, any>; signature: string }
      const { pbkdf2Sync } = await import('node:crypto')
      const p = challenge.parameters
      let counter = 0
      let key = ''
      for (; ; counter++) {
        const pw = Buffer.concat([Buffer.from(p.nonce, 'hex'), Buffer.alloc(4)])
        pw.writeUInt32BE(counter, 16)
        key = pbkdf2Sync(pw, Buffer.from(p.salt, 'hex'), p.cost, p.keyLength, 'sha256').toString('hex')
        if (key.startsWith(p.keyPrefix)) break
      }
      const post = (derivedKey: string) => {
        const form = new FormData()
        form.set('altcha', Buffer.from(JSON.stringify({ challenge, solution: { counter, derivedKey, time: 1 } })).toString('base64'))
        return fetch(`${server.url}/captcha/verify`, { method: 'POST', body: form })
      }
      expect((await post(`${key.slice(0, -1)}${key.endsWith('0') ? '1' : '0'}`)).status).toBe(400)
      const ok = await post(key)
      expect(ok.status).toBe(200)
      expect(ok.headers.getSetCookie()[0]).toMatch(/^chllg=[\w-]+\.[\w-]+; Path=\/; Max-Age=2592000/)
      expect((await post(key)).status).toBe(400)
      expect(gate.stats.refused).toEqual(['invalid solution', 'payload already used'])
    } finally {
      await server.close()
    }
  })
})
