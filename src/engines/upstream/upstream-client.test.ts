import { once } from 'node:events'
import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { brotliCompressSync, gzipSync } from 'node:zlib'
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest'
import type { ProxyPool } from '../../config.ts'
import { type EngineGate, GateError } from '../gates/gate.types.ts'
import { detectGoogleBlock } from '../google/google-block.detect.ts'
import type { EngineBrowser } from './upstream.types.ts'
import { createUpstreamClient, type UpstreamClient, type UpstreamClientOptions } from './upstream-client.ts'
import { attemptsOf, UpstreamError } from './upstream-error.ts'

interface Running {
  url: string
  server: Server
  hits: string[]
}

const servers: Server[] = []

async function listen(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<Running> {
  const hits: string[] = []
  const server = createServer((req, res) => {
    hits.push(`${req.headers['x-forwarded-host'] ?? '-'} ${req.url}`)
    handler(req, res)
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  servers.push(server)
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server, hits }
}

/** A real forward proxy: plain-http targets arrive in absolute form (`GET http://host/path`). */
function forwardProxy(mode: 'ok' | 'hang' | 'refuse') {
  const auth: (string | undefined)[] = []
  const running = listen((req, res) => {
    auth.push(req.headers['proxy-authorization'])
    if (mode === 'hang') return // never answers: the client's deadline must move on
    if (mode === 'refuse') return req.socket.destroy()
    const target = new URL(req.url ?? '')
    const headers = { ...req.headers }
    delete headers['proxy-authorization']
    delete headers['proxy-connection']
    const out = httpRequest(target, { method: req.method, headers }, (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers)
      up.pipe(res)
    })
    out.on('error', () => res.writeHead(502).end())
    req.pipe(out)
  })
  return running.then((r) => ({ ...r, auth }))
}

async function readAll(req: IncomingMessage): Promise<string> {
  let body = ''
  for await (const chunk of req) body += chunk
  return body
}

function send(res: ServerResponse, status: number, body: string | Buffer, headers: Record<string, string> = {}) {
  res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', ...headers }).end(body)
}

/** The fake engine: one behaviour per path. */
let upstream: Running
const bigBody = 'x'.repeat(100 * 1024)

beforeAll(async () => {
  upstream = await listen((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname
    switch (path) {
      case '/search':
        return send(res, 200, `<html>results for ${req.headers['x-forwarded-host']}</html>`)
      case '/rate-limited':
        return send(res, 429, 'slow down')
      case '/captcha':
        return send(res, 200, '<html>Our systems have detected unusual traffic</html>')
      case '/broken':
        return send(res, 500, 'oops')
      case '/missing':
        return send(res, 404, 'not here')
      case '/slow':
        return // never answers
      case '/gzip':
        return send(res, 200, gzipSync('<p>zipped café</p>'), { 'content-encoding': 'gzip' })
      case '/br':
        return send(res, 200, brotliCompressSync('<p>brotli</p>'), { 'content-encoding': 'br' })
      case '/zstd': // '<p>zstd body</p>' compressed by the zstd CLI (Node 20 has no zstd encoder)
        return send(res, 200, Buffer.from('28b52ffd04588100003c703e7a73746420626f64793c2f703e9120c25f', 'hex'), { 'content-encoding': 'zstd' })
      case '/compress':
        return send(res, 200, 'abc', { 'content-encoding': 'compress' })
      case '/meta-charset':
        return send(res, 200, Buffer.from('<meta charset="windows-1252"><p>caf\u00e9</p>', 'latin1'), { 'content-type': 'text/html' })
      case '/echo-headers':
        return send(res, 200, JSON.stringify(req.headers), { 'content-type': 'application/json' })
      case '/form':
        return readAll(req).then((body) => send(res, 200, `${req.method} ${req.headers['content-type']} ${body}`))
      case '/latin1':
        return send(res, 200, Buffer.from('<p>caf\u00e9</p>', 'latin1'), { 'content-type': 'text/html; charset=iso-8859-1' })
      case '/big':
        return send(res, 200, bigBody)
      case '/bomb':
        return send(res, 200, gzipSync(Buffer.alloc(4 * 1024 * 1024)), { 'content-encoding': 'gzip' })
      case '/hop':
        return send(res, 302, '', { location: '/search?q=after-redirect' })
      case '/sorry-redirect':
        return send(res, 302, '', { location: 'https://www.google.com/sorry/index?continue=x' })
      case '/offsite':
        return send(res, 302, '', { location: 'https://example.org/' })
      case '/loop':
        return send(res, 302, '', { location: '/loop' })
      case '/set-two':
        res.writeHead(200, { 'set-cookie': ['one=1; Path=/', 'two=2; Path=/; Secure; HttpOnly'], 'content-type': 'text/plain' })
        return res.end('set')
      case '/fresh-429': // a fresh client's first request: 429 with the cookie the retry needs
        if (/(?:^|; )ok=yes/.test(req.headers.cookie ?? '')) return send(res, 200, `served with ${req.headers.cookie}`)
        return send(res, 429, 'slow down', { 'set-cookie': 'ok=yes; Path=/' })
      case '/gated': // a page behind a gate: its challenge until the pass cookie is sent
        if (/(?:^|; )pass=granted/.test(req.headers.cookie ?? '')) return send(res, 200, `<p>gated results ${req.headers.cookie}</p>`)
        return send(res, 200, '<p>challenge</p>', { 'set-cookie': 'verify=v1; Path=/' })
      case '/earn': // the gate's redeem: needs the cookie the challenge page set
        if (!/(?:^|; )verify=v1/.test(req.headers.cookie ?? '')) return send(res, 500, 'no verification cookie')
        return send(res, 302, '', { location: '/gated', 'set-cookie': 'pass=granted; Path=/; Max-Age=600' })
      default:
        return send(res, 404, 'unknown')
    }
  })
})

afterAll(async () => {
  for (const s of servers) {
    s.closeAllConnections()
    s.close()
  }
})

const clients: UpstreamClient[] = []
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()))
})

let transport: 'impit' | 'undici' = 'impit'

function client(hosts: Record<string, string>, proxyPools: ProxyPool[] = [], options: UpstreamClientOptions = {}) {
  const c = createUpstreamClient({ upstreamHosts: new Map(Object.entries(hosts)), proxyPools, upstreamTimeoutMs: 5_000 }, { transport, ...options })
  clients.push(c)
  return c
}

async function failure(p: Promise<unknown>): Promise<UpstreamError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  )
  expect(err).toBeInstanceOf(UpstreamError)
  return err as UpstreamError
}

const google = (path: string) => `https://www.google.com${path}`

/** Every behaviour holds on both transports: impit (the default) and undici. */
describe.each(['impit', 'undici'] as const)('%s transport', (name) => {
  beforeAll(() => {
    transport = name
  })

  describe('TRAWL_UPSTREAM_HOSTS mapping', () => {
    test('a listed host goes to its base URL with path, query and X-Forwarded-Host', async () => {
      const c = client({ 'www.google.com': upstream.url })
      const page = await c.fetchPage({ engine: 'google', url: google('/search?q=coffee%20beans&hl=en&num=10') })
      expect(upstream.hits.at(-1)).toBe('www.google.com /search?q=coffee%20beans&hl=en&num=10')
      expect(page).toMatchObject({ status: 200, url: google('/search?q=coffee%20beans&hl=en&num=10') })
      expect(page.body).toContain('results for www.google.com')
      expect(page.attempts).toEqual([expect.objectContaining({ engine: 'google', host: 'www.google.com', pool: null, status: 200, outcome: 'ok' })])
      expect(page.attempts[0]?.proxy).toBeUndefined()
    })

    test('* catches every host not listed; listed hosts keep their own base', async () => {
      const other = await listen((req, res) => send(res, 200, `other ${req.headers['x-forwarded-host']}`))
      const c = client({ 'www.google.com': upstream.url, '*': other.url })
      const bing = await c.fetchPage({ engine: 'bing', url: 'https://www.bing.com/search?q=tea' })
      expect(bing.body).toBe('other www.bing.com')
      expect(other.hits).toEqual(['www.bing.com /search?q=tea'])
      const g = await c.fetchPage({ engine: 'google', url: google('/search?q=tea') })
      expect(g.body).toContain('results for www.google.com')
      expect(other.hits).toHaveLength(1)
    })
  })

  describe('requests', () => {
    test("the engine's headers are sent; the client owns Host and Accept-Encoding", async () => {
      const page = await client({ '*': upstream.url }).fetchPage({
        engine: 'google',
        url: google('/echo-headers'),
        headers: { 'User-Agent': 'Nokia6300/2.0 (05.00) Profile/MIDP-2.0', 'Accept-Encoding': 'identity', Cookie: 'a=1' },
      })
      const seen = JSON.parse(page.body) as Record<string, string>
      expect(seen['user-agent']).toBe('Nokia6300/2.0 (05.00) Profile/MIDP-2.0')
      expect(seen.cookie).toBe('a=1')
      // impit: a feature phone's UA gets Chrome 100's handshake and Accept-Encoding (browser-headers.ts).
      expect(seen['accept-encoding']).toBe('gzip, deflate, br')
      expect(seen['x-forwarded-host']).toBe('www.google.com')
      expect(Object.keys(seen).filter((h) => h.startsWith('sec-'))).toEqual([]) // no Chrome hints with a Nokia UA
    })

    test('a form is posted url-encoded', async () => {
      const page = await client({ '*': upstream.url }).fetchPage({
        engine: 'duckduckgo',
        url: 'https://html.duckduckgo.com/form',
        form: { q: 'a b', kl: 'wt-wt' },
      })
      expect(page.body).toBe('POST application/x-www-form-urlencoded; charset=utf-8 q=a+b&kl=wt-wt')
    })
  })

  describe('engine sessions and gates', () => {
    test('every cookie an engine sets goes back with its next requests, after the engine’s own', async () => {
      const c = client({ '*': upstream.url })
      await c.fetchPage({ engine: 'startpage', url: 'https://www.startpage.com/set-two' })
      const page = await c.fetchPage({ engine: 'startpage', url: 'https://www.startpage.com/echo-headers', headers: { Cookie: 'own=x' } })
      expect((JSON.parse(page.body) as Record<string, string>).cookie).toBe('own=x; one=1; two=2')
      // Another site has a session of its own.
      const other = await c.fetchPage({ engine: 'bing', url: 'https://www.bing.com/echo-headers' })
      expect((JSON.parse(other.body) as Record<string, string>).cookie).toBeUndefined()
    })

    test('a 429 that sets a cookie is asked once more with it, inside the same attempt', async () => {
      const c = client({ '*': upstream.url })
      const page = await c.fetchPage({ engine: 'brave', url: 'https://search.brave.com/fresh-429' })
      expect(page.body).toBe('served with ok=yes')
      expect(page.attempts).toEqual([expect.objectContaining({ outcome: 'ok', status: 200 })])
    })

    const gate = (passes: string[]): EngineGate => ({
      name: 'test-gate',
      detect: (res) => (res.body.includes('<p>challenge</p>') ? { at: res.url } : null),
      async pass(challenge, http) {
        passes.push((challenge as { at: string }).at)
        const earned = await http.get('https://www.startpage.com/earn')
        if (earned.status !== 302) throw new GateError(`redeem answered HTTP ${earned.status}`)
      },
    })

    test('a gate is passed once, with the cookies the challenge set, and the pass is reused', async () => {
      const passes: string[] = []
      const c = client({ '*': upstream.url })
      const first = await c.fetchPage({ engine: 'startpage', url: 'https://www.startpage.com/gated', gate: gate(passes) })
      expect(first.body).toContain('gated results')
      expect(first.body).toContain('pass=granted')
      const second = await c.fetchPage({ engine: 'startpage', url: 'https://www.startpage.com/gated', gate: gate(passes) })
      expect(second.body).toContain('gated results')
      expect(passes).toEqual(['https://www.startpage.com/gated'])
      // Concurrent searches on a fresh session wait for one pass.
      const fresh = client({ '*': upstream.url })
      const together = await Promise.all(
        [1, 2, 3].map(() => fresh.fetchPage({ engine: 'startpage', url: 'https://www.startpage.com/gated', gate: gate(passes) })),
      )
      expect(together.every((p) => p.body.includes('gated results'))).toBe(true)
      expect(passes).toHaveLength(2)
      expect(fresh.gateStats()).toEqual([])
    })

    test('a gate never sends a request off the engine site', async () => {
      const leaving: EngineGate = {
        ...gate([]),
        async pass(_challenge, http) {
          await http.get('https://example.org/collect')
        },
      }
      const err = await failure(client({ '*': upstream.url }).fetchPage({ engine: 'startpage', url: 'https://www.startpage.com/gated', gate: leaving }))
      expect(attemptsOf(err)).toEqual([
        expect.objectContaining({ outcome: 'blocked', reason: 'test-gate: the challenge points off the engine site (example.org)' }),
      ])
      expect(upstream.hits.some((h) => h.startsWith('example.org'))).toBe(false)
    })

    test('a gate that cannot be passed is a block with its reason', async () => {
      const refusing: EngineGate = { ...gate([]), pass: async () => Promise.reject(new GateError('proof of work harder than the 10 ms cap')) }
      const err = await failure(client({ '*': upstream.url }).fetchPage({ engine: 'startpage', url: 'https://www.startpage.com/gated', gate: refusing }))
      expect(err.code).toBe('upstream_blocked')
      expect(attemptsOf(err)).toEqual([expect.objectContaining({ outcome: 'blocked', reason: 'test-gate: proof of work harder than the 10 ms cap' })])
    })
  })

  describe('redirects', () => {
    test('same-site redirects are followed and mapped again', async () => {
      const c = client({ '*': upstream.url })
      const page = await c.fetchPage({ engine: 'google', url: google('/hop') })
      expect(page.url).toBe(google('/search?q=after-redirect'))
      expect(upstream.hits.slice(-2)).toEqual(['www.google.com /hop', 'www.google.com /search?q=after-redirect'])
    })

    test('a /sorry/ redirect is not followed; detectBlock sees its URL and status', async () => {
      const c = client({ '*': upstream.url })
      const seen: { status: number; url: string }[] = []
      const before = upstream.hits.length
      const err = await failure(
        c.fetchPage({
          engine: 'google',
          url: google('/sorry-redirect'),
          detectBlock: ({ status, url }) => {
            seen.push({ status, url })
            return url.includes('/sorry/') ? { reason: 'captcha redirect' } : null
          },
        }),
      )
      expect(seen).toEqual([{ status: 302, url: 'https://www.google.com/sorry/index?continue=x' }])
      expect(upstream.hits.length - before).toBe(1) // the captcha page itself was never requested
      expect(err.code).toBe('upstream_blocked')
      expect(err.attempts[0]).toMatchObject({ outcome: 'blocked', reason: 'captcha redirect', status: 302 })
    })

    test("Google's detector flags its /sorry/ redirect before it is followed", async () => {
      const before = upstream.hits.length
      const err = await failure(client({ '*': upstream.url }).fetchPage({ engine: 'google', url: google('/sorry-redirect'), detectBlock: detectGoogleBlock }))
      expect(err.code).toBe('upstream_blocked')
      expect(upstream.hits.length - before).toBe(1)
    })

    test('off-site redirects and redirect loops are upstream_error', async () => {
      const c = client({ '*': upstream.url })
      const off = await failure(c.fetchPage({ engine: 'google', url: google('/offsite') }))
      expect(off.code).toBe('upstream_error')
      expect(off.attempts[0]?.reason).toBe('redirected off the engine site')
      const loop = await failure(c.fetchPage({ engine: 'google', url: google('/loop') }))
      expect(loop.attempts[0]?.reason).toBe('more than 5 redirects')
    })
  })

  describe('classification', () => {
    test('HTTP 429 is upstream_blocked with Retry-After and a message naming only the engine', async () => {
      const err = await failure(client({ '*': upstream.url }).fetchPage({ engine: 'google', url: google('/rate-limited') }))
      expect(err).toMatchObject({ code: 'upstream_blocked', status: 503 })
      expect(err.opts.retryAfterSeconds).toBe(30)
      expect(err.message).toContain('google')
      expect(err.message).not.toMatch(/127\.0\.0\.1|http/)
      expect(attemptsOf(err)).toEqual([expect.objectContaining({ outcome: 'blocked', status: 429, reason: 'HTTP 429' })])
    })

    test('a detectBlock hit on a 200 page is blocked with the detector reason', async () => {
      const err = await failure(
        client({ '*': upstream.url }).fetchPage({
          engine: 'google',
          url: google('/captcha'),
          detectBlock: ({ body }) => (body.includes('unusual traffic') ? { reason: 'unusual traffic page' } : null),
        }),
      )
      expect(err.code).toBe('upstream_blocked')
      expect(err.attempts[0]).toMatchObject({ outcome: 'blocked', status: 200, reason: 'unusual traffic page' })
    })

    test('a silent upstream is upstream_timeout soon after the deadline', async () => {
      const started = Date.now()
      const err = await failure(client({ '*': upstream.url }).fetchPage({ engine: 'google', url: google('/slow'), timeoutMs: 300 }))
      expect(Date.now() - started).toBeLessThan(1_500)
      expect(err).toMatchObject({ code: 'upstream_timeout', status: 503 })
      expect(err.opts.retryAfterSeconds).toBe(5)
      expect(err.attempts[0]).toMatchObject({ outcome: 'timeout' })
    })

    test('HTTP 500 is upstream_error', async () => {
      const err = await failure(client({ '*': upstream.url }).fetchPage({ engine: 'bing', url: 'https://www.bing.com/broken' }))
      expect(err.code).toBe('upstream_error')
      expect(err.opts.retryAfterSeconds).toBe(5)
      expect(err.message).toContain('bing')
      expect(err.attempts[0]).toMatchObject({ engine: 'bing', host: 'www.bing.com', outcome: 'error', status: 500 })
    })

    test('a connection refused is upstream_error without the address in the reason', async () => {
      const dead = await listen(() => {})
      dead.server.close()
      await once(dead.server, 'close')
      const err = await failure(client({ '*': dead.url }).fetchPage({ engine: 'google', url: google('/search') }))
      expect(err.code).toBe('upstream_error')
      expect(err.attempts[0]?.reason).toBe('connection failed (ECONNREFUSED)')
    })

    test('a caller abort rejects with the abort reason, not an upstream error', async () => {
      const ctrl = new AbortController()
      const p = client({ '*': upstream.url }).fetchPage({ engine: 'google', url: google('/slow'), signal: ctrl.signal })
      setTimeout(() => ctrl.abort(new Error('client went away')), 50)
      await expect(p).rejects.toThrow('client went away')
    })
  })

  describe('bodies', () => {
    test('gzip and br bodies are decompressed; a latin-1 charset is honoured', async () => {
      const c = client({ '*': upstream.url })
      expect((await c.fetchPage({ engine: 'google', url: google('/gzip') })).body).toBe('<p>zipped café</p>')
      expect((await c.fetchPage({ engine: 'google', url: google('/br') })).body).toBe('<p>brotli</p>')
      expect((await c.fetchPage({ engine: 'google', url: google('/latin1') })).body).toBe('<p>café</p>')
      expect((await c.fetchPage({ engine: 'google', url: google('/meta-charset') })).body).toBe('<meta charset="windows-1252"><p>café</p>')
    })

    test('zstd is decoded by impit and refused by undici, which never asks for it', async () => {
      const c = client({ '*': upstream.url })
      if (name === 'impit') {
        expect((await c.fetchPage({ engine: 'google', url: google('/zstd') })).body).toBe('<p>zstd body</p>')
      } else {
        const err = await failure(c.fetchPage({ engine: 'google', url: google('/zstd') }))
        expect(err.attempts[0]?.reason).toBe('unsupported content-encoding zstd')
      }
    })

    test('a coding nobody asked for is upstream_error, not passed on as text', async () => {
      const err = await failure(client({ '*': upstream.url }).fetchPage({ engine: 'google', url: google('/compress') }))
      expect(err.code).toBe('upstream_error')
      expect(err.attempts[0]?.reason).toBe('unsupported content-encoding compress')
    })

    test('a body over the cap is upstream_error, on the wire and after decompression', async () => {
      const c = client({ '*': upstream.url }, [], { maxBodyBytes: 64 * 1024 })
      const big = await failure(c.fetchPage({ engine: 'google', url: google('/big') }))
      expect(big.code).toBe('upstream_error')
      expect(big.attempts[0]?.reason).toBe('response body over 65536 bytes')
      const bomb = await failure(c.fetchPage({ engine: 'google', url: google('/bomb') }))
      expect(bomb.attempts[0]?.reason).toBe('response body over 65536 bytes')
      // Under the default 8 MiB cap the same page is fine.
      const page = await client({ '*': upstream.url }).fetchPage({ engine: 'google', url: google('/big') })
      expect(page.body).toHaveLength(bigBody.length)
    })
  })

  describe('proxy pools', () => {
    test('a hanging proxy times out, the next proxy answers, and the bad one is skipped afterwards', async () => {
      const hang = await forwardProxy('hang')
      const good = await forwardProxy('ok')
      const c = client({ '*': upstream.url }, [{ name: 'main', urls: [hang.url, good.url] }])
      const first = await c.fetchPage({ engine: 'google', url: google('/search?q=1'), timeoutMs: 1_000 })
      expect(first.body).toContain('results for www.google.com')
      expect(first.attempts.map((a) => [a.proxy, a.outcome])).toEqual([
        [hang.url.slice(7), 'timeout'],
        [good.url.slice(7), 'ok'],
      ])
      expect(first.attempts[0]?.ms).toBeLessThan(900) // one attempt gets half the deadline, not all of it

      const hangHits = hang.hits.length
      for (let i = 0; i < 3; i++) {
        const again = await c.fetchPage({ engine: 'google', url: google(`/search?q=again${i}`), timeoutMs: 1_000 })
        expect(again.attempts).toEqual([expect.objectContaining({ pool: 'main', proxy: good.url.slice(7), outcome: 'ok' })])
      }
      expect(hang.hits.length).toBe(hangHits)
      expect(c.poolHealth()).toEqual([
        expect.objectContaining({ pool: 'main', proxy: hang.url.slice(7), healthy: false, consecutiveFailures: 1 }),
        expect.objectContaining({ pool: 'main', proxy: good.url.slice(7), healthy: true, lastOutcome: 'ok' }),
      ])
    })

    test('TRAWL_PROXY_ENGINES: an engine listed takes only its pools, in its order, or goes direct; the others take every pool', async () => {
      const main = await forwardProxy('ok')
      const resi = await forwardProxy('ok')
      const pools = [
        { name: 'main', urls: [main.url] },
        { name: 'resi', urls: [resi.url] },
      ]
      const config = {
        upstreamHosts: new Map([['*', upstream.url]]),
        proxyPools: pools,
        upstreamTimeoutMs: 5_000,
        proxyEngines: { searxng: [], bing: ['resi', 'main'] },
      }
      const c = createUpstreamClient(config, { transport })
      clients.push(c)
      const routeOf = async (engine: string) => (await c.fetchPage({ engine, url: google(`/search?q=${engine}`) })).attempts.map((a) => [a.pool, a.outcome])
      expect(await routeOf('google')).toEqual([['main', 'ok']])
      expect(await routeOf('bing')).toEqual([['resi', 'ok']])
      const hits = main.hits.length + resi.hits.length
      expect(await routeOf('searxng')).toEqual([[null, 'ok']])
      expect(main.hits.length + resi.hits.length).toBe(hits)
      // The browser bypasses the pools: it draws only for an engine sent directly.
      const browser = { available: true, render: async () => ({ url: '', status: 200, html: '' }) } as unknown as EngineBrowser
      const withBrowser = createUpstreamClient({ ...config, upstreamHosts: new Map() }, { transport, browser })
      clients.push(withBrowser)
      expect(withBrowser.browserRefusal('https://www.google.com/search', 'google')).toContain('the browser does not go through proxy pools')
      expect(withBrowser.browserRefusal('https://searx.example/search', 'searxng')).toBeNull()
    })

    test('when every proxy of pool 1 fails, pool 2 answers; credentials never show in the route', async () => {
      const bad1 = await forwardProxy('refuse')
      const bad2 = await forwardProxy('refuse')
      const backup = await forwardProxy('ok')
      const withCreds = backup.url.replace('http://', 'http://scraper:s3cret@')
      const c = client({ '*': upstream.url }, [
        { name: 'main', urls: [bad1.url, bad2.url] },
        { name: 'backup', urls: [withCreds] },
      ])
      const page = await c.fetchPage({ engine: 'google', url: google('/search?q=failover') })
      expect(page.attempts.map((a) => [a.pool, a.outcome])).toEqual([
        ['main', 'error'],
        ['main', 'error'],
        ['backup', 'ok'],
      ])
      expect(page.attempts[2]?.proxy).toBe(backup.url.slice(7))
      expect(JSON.stringify(page.attempts)).not.toContain('s3cret')
      expect(backup.auth.at(-1)).toBe(`Basic ${Buffer.from('scraper:s3cret').toString('base64')}`)
      expect(backup.hits.at(-1)).toBe(`www.google.com ${upstream.url}/search?q=failover`) // absolute-form URI

      // Pool 1 is now cooling down entirely: the next request goes straight to pool 2.
      const next = await c.fetchPage({ engine: 'google', url: google('/search?q=next') })
      expect(next.attempts.map((a) => a.pool)).toEqual(['backup'])
      expect(JSON.stringify(c.poolHealth())).not.toContain('s3cret')
    })

    test('a proxy is tried again once its cool-down has passed, and the cool-down doubles', async () => {
      const bad = await forwardProxy('refuse')
      const good = await forwardProxy('ok')
      const c = client({ '*': upstream.url }, [{ name: 'main', urls: [bad.url, good.url] }], {
        cooldown: { baseMs: 150, maxMs: 10_000 },
      })
      await c.fetchPage({ engine: 'google', url: google('/search?q=a') })
      expect(bad.hits).toHaveLength(1)
      await c.fetchPage({ engine: 'google', url: google('/search?q=b') })
      expect(bad.hits).toHaveLength(1) // cooling down
      await new Promise((r) => setTimeout(r, 200))
      await c.fetchPage({ engine: 'google', url: google('/search?q=c') })
      await c.fetchPage({ engine: 'google', url: google('/search?q=d') })
      expect(bad.hits).toHaveLength(2)
      const health = c.poolHealth()[0]
      expect(health).toMatchObject({ healthy: false, consecutiveFailures: 2, lastOutcome: 'error' })
      const coolMs = Date.parse(health?.coolingUntil ?? '') - Date.now()
      expect(coolMs).toBeGreaterThan(150) // second failure: 300 ms
      expect(coolMs).toBeLessThanOrEqual(300)
    })

    test('a block cools the proxy down for that engine only', async () => {
      const p1 = await forwardProxy('ok')
      const p2 = await forwardProxy('ok')
      const c = client({ '*': upstream.url }, [{ name: 'main', urls: [p1.url, p2.url] }])
      const err = await failure(c.fetchPage({ engine: 'google', url: google('/rate-limited') }))
      expect(err.code).toBe('upstream_blocked')
      expect(err.attempts.map((a) => a.proxy)).toEqual([p1.url.slice(7), p2.url.slice(7)])
      expect(c.poolHealth()[0]).toMatchObject({ healthy: true, blockedBy: { google: expect.any(String) } })
      const bing = await c.fetchPage({ engine: 'bing', url: 'https://www.bing.com/search?q=x' })
      expect(bing.attempts).toHaveLength(1)
    })

    test('a 404 is the engine answer: not retried and no proxy is penalised', async () => {
      const p1 = await forwardProxy('ok')
      const p2 = await forwardProxy('ok')
      const c = client({ '*': upstream.url }, [{ name: 'main', urls: [p1.url, p2.url] }])
      const err = await failure(c.fetchPage({ engine: 'google', url: google('/missing') }))
      expect(err.code).toBe('upstream_error')
      expect(err.attempts).toHaveLength(1)
      expect(c.poolHealth().every((h) => h.healthy)).toBe(true)
    })

    test('when every proxy fails the error carries all attempts, bounded in number', async () => {
      const proxies = await Promise.all([1, 2, 3].map(() => forwardProxy('refuse')))
      const c = client({ '*': upstream.url }, [
        { name: 'a', urls: proxies.slice(0, 2).map((p) => p.url) },
        { name: 'b', urls: proxies.slice(2).map((p) => p.url) },
      ])
      const err = await failure(c.fetchPage({ engine: 'google', url: google('/search') }))
      expect(err.code).toBe('upstream_error')
      expect(err.attempts.map((a) => a.pool)).toEqual(['a', 'a', 'b'])
      // All cooling down: the next request still makes one last-resort attempt instead of none.
      const again = await failure(c.fetchPage({ engine: 'google', url: google('/search') }))
      expect(again.attempts).toHaveLength(1)
    })
  })
})
