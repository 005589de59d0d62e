import { once } from 'node:events'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest'
import { RobotsCache } from './robots.cache.ts'
import { loadRobots } from './robots.load.ts'

// Real HTTP on loopback: each test gives the server its own robots.txt behaviour per host port.
type Handler = (req: IncomingMessage, res: ServerResponse) => void

async function startServer(handle: () => Handler) {
  const seen: string[] = []
  const server = createServer((req, res) => {
    seen.push(req.url ?? '')
    handle()(req, res)
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  return { server, seen, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }
}

let handler: Handler = (_q, res) => res.writeHead(404).end()
let site: Awaited<ReturnType<typeof startServer>>
let mirror: Awaited<ReturnType<typeof startServer>>
let closedOrigin: string
const opts = { allowPrivateNetwork: true, timeoutMs: 3000 }

beforeAll(async () => {
  site = await startServer(() => handler)
  mirror = await startServer(() => (_q, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\nDisallow: /from-mirror\n'))
  // A port that was just listening and is now closed: connecting to it is refused.
  const closed = await startServer(() => handler)
  closedOrigin = closed.origin
  closed.server.close()
  await once(closed.server, 'close')
})
afterAll(() => {
  site.server.close()
  mirror.server.close()
})
beforeEach(() => {
  site.seen.length = 0
  mirror.seen.length = 0
})

const serve =
  (status: number, body: string | Buffer = '', headers: Record<string, string> = { 'content-type': 'text/plain' }): Handler =>
  (_q, res) =>
    res.writeHead(status, headers).end(body)

describe('loadRobots status rules (RFC 9309 §2.3.1)', () => {
  test('2xx: parsed, with Crawl-delay and absolute Sitemap lines', async () => {
    handler = serve(200, 'User-agent: *\nDisallow: /private\nCrawl-delay: 1.5\nSitemap: /sitemap.xml\n')
    const r = await loadRobots(`${site.origin}/any/page?x=1`, opts)
    expect([r.status, r.statusText]).toEqual(['found', 'found'])
    expect([r.isAllowed(`${site.origin}/private/a`), r.isAllowed(`${site.origin}/public`)]).toEqual([false, true])
    expect(r.crawlDelayMs).toBe(1500)
    expect(r.sitemaps).toEqual([`${site.origin}/sitemap.xml`])
    expect(site.seen).toEqual(['/robots.txt'])
  })

  test.each([['text/html; charset=utf-8'], ['application/octet-stream'], ['image/png'], ['']])('a robots.txt served as %j is still parsed', async (type) => {
    handler = serve(200, 'User-agent: *\nDisallow: /x\n', type ? { 'content-type': type } : {})
    const r = await loadRobots(site.origin, opts)
    expect([r.status, r.isAllowed(`${site.origin}/x`)]).toEqual(['found', false])
  })

  test('the body is read as UTF-8 and a partial BOM is skipped', async () => {
    handler = serve(200, Buffer.concat([Buffer.from([0xef, 0xbb]), Buffer.from('User-agent: *\nDisallow: /café\n')]), {
      'content-type': 'text/plain; charset=iso-8859-1',
    })
    const r = await loadRobots(site.origin, opts)
    expect(r.isAllowed(`${site.origin}/caf%C3%A9`)).toBe(false)
  })

  test.each([404, 401, 403, 410])('%i: unavailable, allow all', async (status) => {
    handler = serve(status, 'User-agent: *\nDisallow: /')
    const r = await loadRobots(site.origin, opts)
    expect([r.status, r.statusText, r.isAllowed(`${site.origin}/anything`), r.sitemaps]).toEqual(['not_found', `not_found (${status})`, true, []])
  })

  test.each([
    [503, 'server_error (503): disallow all'],
    [500, 'server_error (500): disallow all'],
    [429, 'rate_limited (429): disallow all'],
  ])('%i: disallow all', async (status, text) => {
    handler = serve(status)
    const r = await loadRobots(site.origin, opts)
    expect([r.status, r.statusText, r.isAllowed(`${site.origin}/`), r.isAllowed(`${site.origin}/robots.txt`)]).toEqual(['error', text, false, true])
  })

  test('connection refused: unreachable, disallow all', async () => {
    const r = await loadRobots(closedOrigin, opts)
    expect([r.status, r.statusText, r.isAllowed(`${closedOrigin}/a`)]).toEqual(['unreachable', 'unreachable (connection refused): disallow all', false])
  })

  test('no answer in time: unreachable, disallow all', async () => {
    handler = () => {} // never answers; the deadline ends it
    const r = await loadRobots(site.origin, { ...opts, timeoutMs: 300 })
    expect([r.status, r.statusText]).toEqual(['unreachable', 'unreachable (timeout): disallow all'])
  })

  test('the private-network guard applies: a loopback site is unreachable without allowPrivateNetwork', async () => {
    handler = serve(200, 'User-agent: *\nAllow: /')
    const r = await loadRobots(site.origin, { ...opts, allowPrivateNetwork: false })
    expect([r.status, r.statusText, r.isAllowed(`${site.origin}/a`)]).toEqual(['unreachable', 'unreachable (private address): disallow all', false])
    expect(site.seen).toEqual([])
  })

  test('redirects are followed, even to another host, and the rules apply to the origin asked', async () => {
    handler = (_q, res) => res.writeHead(301, { location: `${mirror.origin}/robots.txt` }).end()
    const r = await loadRobots(site.origin, opts)
    expect([r.status, r.isAllowed(`${site.origin}/from-mirror/x`), r.isAllowed(`${site.origin}/y`)]).toEqual(['found', false, true])
    expect([site.seen, mirror.seen]).toEqual([['/robots.txt'], ['/robots.txt']])
  })

  test('a 2xx body past the fetch cap: error, disallow all', async () => {
    handler = serve(200, `User-agent: *\nAllow: /\n${'#'.repeat(5 * 1024 * 1024)}`)
    const r = await loadRobots(site.origin, opts)
    expect([r.status, r.statusText, r.isAllowed(`${site.origin}/a`)]).toEqual(['error', 'error (page is larger than 4 MB): disallow all', false])
  })

  test('more than five redirects: unavailable, allow all (§2.3.1.2)', async () => {
    handler = (req, res) => res.writeHead(302, { location: `${req.url}x` }).end()
    const r = await loadRobots(site.origin, opts)
    expect([r.status, r.statusText, r.isAllowed(`${site.origin}/a`)]).toEqual(['not_found', 'not_found (too many redirects)', true])
    expect(site.seen).toHaveLength(6)
  })
})

describe('RobotsCache', () => {
  test('many lookups, concurrent or later, make one request per origin', async () => {
    handler = serve(200, 'User-agent: *\nDisallow: /x\n')
    const cache = new RobotsCache(opts)
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => cache.isAllowed(`${site.origin}/${i % 2 ? 'x' : 'y'}/${i}`)))
    expect(answers.filter((a) => !a)).toHaveLength(10)
    for (let i = 0; i < 20; i++) await cache.isAllowed(`${site.origin}/page/${i}`)
    expect(site.seen).toEqual(['/robots.txt'])
    await cache.get(mirror.origin)
    expect(mirror.seen).toEqual(['/robots.txt'])
  })

  test('entries expire after the TTL; errors after the shorter error TTL', async () => {
    let now = 0
    const cache = new RobotsCache({ ...opts, ttlMs: 60_000, errorTtlMs: 5_000, now: () => now })
    handler = serve(200, 'User-agent: *\nDisallow: /x\n')
    await cache.get(site.origin)
    now = 59_000
    await cache.get(site.origin)
    expect(site.seen).toHaveLength(1)
    now = 61_000
    handler = serve(503)
    expect((await cache.get(site.origin)).status).toBe('error')
    expect(site.seen).toHaveLength(2)
    now = 65_000
    await cache.get(site.origin)
    expect(site.seen).toHaveLength(2)
    now = 66_500
    handler = serve(200, '')
    expect((await cache.get(site.origin)).status).toBe('found')
    expect(site.seen).toHaveLength(3)
  })

  test('holds at most maxEntries origins, dropping the least recently used', async () => {
    handler = serve(404)
    const cache = new RobotsCache({ ...opts, maxEntries: 2 })
    await cache.get(site.origin)
    await cache.get(mirror.origin)
    await cache.get(site.origin) // site is now the most recently used
    await cache.get(closedOrigin) // evicts mirror
    expect(cache.size).toBe(2)
    await cache.get(site.origin)
    await cache.get(mirror.origin)
    expect([site.seen.length, mirror.seen.length]).toEqual([1, 2])
  })
})
