import type { IncomingMessage, ServerResponse } from 'node:http'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { type FakeUpstream, fakeUpstream, fixture } from '../../../test/support/fake-upstream.ts'
import { startTrawl, type Trawl } from '../../../test/support/start-trawl.ts'

/**
 * DuckDuckGo's three routes through the HTTP API: /v1/search with engine=duckduckgo answered by a
 * fake DuckDuckGo on loopback (html.duckduckgo.com, lite.duckduckgo.com, duckduckgo.com and
 * links.duckduckgo.com mapped by TRAWL_UPSTREAM_HOSTS). The no-JS endpoints answer results or the
 * anomaly challenge page; duckduckgo.com answers the constructed shell with its d.js preload link,
 * links.duckduckgo.com the constructed d.js scripts.
 */
interface Seen {
  host: string
  method: string
  url: string
  form?: Record<string, string>
}

const seen: Seen[] = []
let noJs: 'ok' | 'challenge' = 'ok'

function answer(req: IncomingMessage, res: ServerResponse) {
  const host = String(req.headers['x-forwarded-host'] ?? '')
  const url = new URL(req.url ?? '/', `https://${host}`)
  let body = ''
  req.setEncoding('utf8')
  req.on('data', (chunk: string) => {
    body += chunk
  })
  req.on('end', () => {
    const entry: Seen = { host, method: req.method ?? '', url: url.href }
    if (body) entry.form = Object.fromEntries(new URLSearchParams(body))
    seen.push(entry)
    const send = (file: string, status = 200, type = 'text/html; charset=utf-8') => res.writeHead(status, { 'content-type': type }).end(fixture(file))
    if (host === 'html.duckduckgo.com' && url.pathname === '/html/') {
      return noJs === 'ok'
        ? send('serp/duckduckgo/html/ddgcli-rust-programming-2026.body.html')
        : send('serp/duckduckgo/blocked/ddgcli-anomaly-challenge-2026.html', 202)
    }
    if (host === 'lite.duckduckgo.com' && url.pathname === '/lite/') {
      return noJs === 'ok'
        ? send('serp/duckduckgo/lite/ddgcli-rust-programming-2026.body.html')
        : send('serp/duckduckgo/blocked/ddgcli-anomaly-challenge-2026.html', 202)
    }
    if (host === 'duckduckgo.com' && url.pathname === '/') return send('serp/duckduckgo/web-js-shell/rust-programming-preload.constructed.html')
    const s = url.searchParams.get('s')
    if (host === 'links.duckduckgo.com' && url.pathname === '/d.js' && (s === '0' || s === '10')) {
      return send(`serp/duckduckgo/djs/rust-programming-s${s}.constructed.js`, 200, 'application/javascript; charset=utf-8')
    }
    res.writeHead(404).end()
  })
}

let trawl: Trawl
let upstream: FakeUpstream
let key: string
beforeAll(async () => {
  upstream = await fakeUpstream(answer)
  trawl = await startTrawl({ TRAWL_UPSTREAM_HOSTS: `*=${upstream.url}` })
  key = (await trawl.account({ plan: 'enterprise', rate_limit_rps: 1000, credits: 100 })).key
})
afterAll(async () => {
  await trawl.close()
  await upstream.close()
})

const get = (path: string) => fetch(`${trawl.base}${path}`, { headers: { authorization: `Bearer ${key}` } })
const balance = async () => ((await (await get('/v1/account')).json()) as { balance: number }).balance
const search = async (q: string) => {
  const res = await get(`/v1/search?q=${encodeURIComponent(q)}&engine=duckduckgo`)
  return { status: res.status, body: (await res.json()) as SearchBody }
}

interface SearchBody {
  results: { position: number; title: string; link: string; snippet?: string }[]
  meta: { engine: string; credits_used: number; route: { engine: string; route?: string; host: string; outcome: string; reason?: string }[] }
}

const routeOf = (body: SearchBody) => body.meta.route.map((r) => ({ route: r.route, host: r.host, outcome: r.outcome, reason: r.reason }))

describe('engine=duckduckgo: routes html, lite, djs', () => {
  test('html answers; a !bang query is posted quoted', async () => {
    seen.length = 0
    const { status, body } = await search('!w rust programming')
    expect(status).toBe(200)
    expect(routeOf(body)).toEqual([{ route: 'html', host: 'html.duckduckgo.com', outcome: 'ok', reason: undefined }])
    expect(seen).toEqual([
      { host: 'html.duckduckgo.com', method: 'POST', url: 'https://html.duckduckgo.com/html/', form: expect.objectContaining({ q: "'!w' rust programming" }) },
    ])
    expect(body.results[0]).toMatchObject({ position: 1, title: 'Rust Programming Language', link: 'https://rust-lang.org/' })
  })

  test('html and lite show the challenge page: djs answers (shell, then its d.js), billed once', async () => {
    noJs = 'challenge'
    seen.length = 0
    const before = await balance()
    const { status, body } = await search('rust programming')
    expect(status).toBe(200)
    expect(body.meta.engine).toBe('duckduckgo')
    expect(routeOf(body)).toEqual([
      { route: 'html', host: 'html.duckduckgo.com', outcome: 'blocked', reason: 'DuckDuckGo answered 202: anomaly page (bot check)' },
      { route: 'lite', host: 'lite.duckduckgo.com', outcome: 'blocked', reason: 'DuckDuckGo answered 202: anomaly page (bot check)' },
      { route: 'djs', host: 'duckduckgo.com', outcome: 'ok', reason: undefined },
      { route: 'djs', host: 'links.duckduckgo.com', outcome: 'ok', reason: undefined },
    ])
    expect(seen.map((s) => [s.method, s.host])).toEqual([
      ['POST', 'html.duckduckgo.com'],
      ['POST', 'lite.duckduckgo.com'],
      ['GET', 'duckduckgo.com'],
      ['GET', 'links.duckduckgo.com'],
    ])
    expect(seen[2]?.url).toBe('https://duckduckgo.com/?q=rust+programming&t=h_&ia=web&kl=us-en&kp=-2')
    // The preload link, fetched as the shell names it (signed: dp and all).
    expect(new URL(seen[3]?.url ?? '').searchParams.get('dp')).toBeTruthy()
    expect(body.results).toHaveLength(10)
    expect(body.results[1]).toMatchObject({
      position: 2,
      title: 'Rust (programming language) - Wikipedia',
      link: 'https://en.wikipedia.org/wiki/Rust_(programming_language)',
    })
    for (const r of body.results) {
      expect(r.link).not.toMatch(/duckduckgo\.com/)
      expect(r.snippet ?? '').not.toMatch(/<\/?b>/)
    }
    expect(body.meta.credits_used).toBe(1)
    expect(await balance()).toBe(before - 1)
  })

  test('while html and lite cool down, djs is asked directly, with a !bang quoted in the shell URL', async () => {
    seen.length = 0
    const { status, body } = await search('!g rust programming')
    expect(status).toBe(200)
    expect(routeOf(body).map((r) => [r.route, r.outcome])).toEqual([
      ['html', 'skipped'],
      ['lite', 'skipped'],
      ['djs', 'ok'],
      ['djs', 'ok'],
    ])
    expect(new URL(seen[0]?.url ?? '').searchParams.get('q')).toBe("'!g' rust programming")
    expect(body.results).toHaveLength(10)
    expect(body.meta.credits_used).toBe(1)
  })
})
