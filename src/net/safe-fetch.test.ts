import { once } from 'node:events'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import { type AddressInfo, connect as netConnect } from 'node:net'
import zlib from 'node:zlib'
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest'
import { ApiError } from '../errors.ts'
import { isPublicAddress, publicOnly } from './address-policy.ts'
import { isTransportFailure, safeFetch } from './safe-fetch.ts'

type Handler = (req: IncomingMessage, res: ServerResponse) => void

/** A loopback server that records every request it sees; tests assert on `seen`. */
async function startServer(handler: Handler) {
  const seen: string[] = []
  const server = createServer((req, res) => {
    seen.push(req.url ?? '')
    handler(req, res)
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const port = (server.address() as AddressInfo).port
  return { server, seen, port, base: `http://127.0.0.1:${port}` }
}

let routes: Record<string, Handler> = {}
let main: Awaited<ReturnType<typeof startServer>>
let other: Awaited<ReturnType<typeof startServer>>
const open: Server[] = []

beforeAll(async () => {
  main = await startServer((req, res) => {
    const route = routes[req.url?.split('?')[0] ?? '']
    if (route) return route(req, res)
    res.writeHead(404).end('nope')
  })
  other = await startServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<p>other</p>'))
  open.push(main.server, other.server)
})
afterAll(() => {
  for (const s of open) s.close()
})
beforeEach(() => {
  main.seen.length = 0
  other.seen.length = 0
  routes = {}
})

const html =
  (body: string | Buffer, type = 'text/html; charset=utf-8', extra: Record<string, string> = {}): Handler =>
  (_req, res) =>
    res.writeHead(200, { 'content-type': type, ...extra }).end(body)

async function failure(p: Promise<unknown>): Promise<ApiError> {
  try {
    await p
  } catch (e) {
    expect(e).toBeInstanceOf(ApiError)
    return e as ApiError
  }
  throw new Error('expected a failure')
}

const open_ = { allowPrivateNetwork: true, timeoutMs: 5000 }
const guarded = { allowPrivateNetwork: false, timeoutMs: 5000 }

describe('with allowPrivateNetwork', () => {
  test('reads a loopback page and decodes it', async () => {
    routes['/a'] = html('<html><title>Hi</title><p>café</p></html>')
    const r = await safeFetch(`${main.base}/a`, open_)
    expect(r).toMatchObject({ url: `${main.base}/a`, status: 200, contentType: 'html', charset: 'utf-8' })
    expect(r.text).toContain('café')
  })

  test('follows redirects and reports the final URL', async () => {
    routes['/r'] = (_q, res) => res.writeHead(302, { location: `${other.base}/final` }).end()
    const r = await safeFetch(`${main.base}/r`, open_)
    expect(r.url).toBe(`${other.base}/final`)
    expect(other.seen).toEqual(['/final'])
  })

  test.each(['gzip', 'br', 'deflate', 'deflate-raw'])('decodes %s bodies', async (coding) => {
    const plain = Buffer.from(`<html><body><p>${'compressed '.repeat(200)}</p></body></html>`)
    const packed = { gzip: zlib.gzipSync, br: zlib.brotliCompressSync, deflate: zlib.deflateSync, 'deflate-raw': zlib.deflateRawSync }[coding]!(plain)
    routes['/z'] = html(packed, 'text/html', { 'content-encoding': coding === 'deflate-raw' ? 'deflate' : coding })
    const r = await safeFetch(`${main.base}/z`, open_)
    expect(r.body.equals(plain)).toBe(true)
  })
})

describe('private-network guard', () => {
  // Every way of writing a loopback address; the server must never see a request.
  test.each([
    'http://127.0.0.1:PORT/',
    'http://2130706433:PORT/',
    'http://0x7f000001:PORT/',
    'http://0177.0.0.1:PORT/',
    'http://127.1:PORT/',
    'http://[::1]:PORT/',
    'http://[::ffff:127.0.0.1]:PORT/',
    'http://[::ffff:7f00:1]:PORT/',
    'http://0.0.0.0:PORT/',
    'http://0:PORT/',
    'http://localhost:PORT/',
  ])('refuses %s before connecting', async (pattern) => {
    const e = await failure(safeFetch(pattern.replace('PORT', String(other.port)), guarded))
    expect(e.code).toBe('invalid_request')
    expect(e.message).toMatch(/^url resolves to a private or reserved address/)
    expect(other.seen).toEqual([])
  })

  // Judged as data only: no test sends a packet to a non-loopback address.
  test.each([
    ['10.0.0.1', false],
    ['172.16.5.4', false],
    ['192.168.1.1', false],
    ['169.254.169.254', false],
    ['100.64.0.1', false],
    ['0.0.0.0', false],
    ['255.255.255.255', false],
    ['224.0.0.1', false],
    ['fd00::1', false],
    ['fe80::1', false],
    ['::1', false],
    ['::', false],
    ['::ffff:10.0.0.1', false],
    ['::ffff:169.254.169.254', false],
    ['64:ff9b::a00:1', false],
    ['2002:7f00:1::', false],
    ['8.8.8.8', true],
    ['2606:4700:4700::1111', true],
    ['::ffff:8.8.8.8', true],
    // IPv6 forms that embed an IPv4 address are classed by it (address-policy.ts says why for each).
    ['::127.0.0.1', false], // IPv4-compatible, as written and as the URL parser writes it
    ['::7f00:1', false],
    ['[::7f00:1]', false],
    ['::10.0.0.1', false],
    ['::169.254.169.254', false],
    ['::8.8.8.8', true],
    ['::808:808', true],
    ['::ffff:0:127.0.0.1', false], // IPv4-translated (SIIT)
    ['::ffff:0:808:808', true],
    ['64:ff9b::127.0.0.1', false], // NAT64 well-known prefix
    ['64:ff9b::c0a8:101', false],
    ['64:ff9b::8.8.8.8', true],
    ['64:ff9b:1::8.8.8.8', false], // NAT64 local use: never
    ['64:ff9b:1:0:0:0:808:808', false],
    ['::1:0:0:0', false], // the rest of 0000::/8
    ['2002:a00:1::1', false], // 6to4 of 10.0.0.1
    ['2002:a9fe:a9fe::', false],
    ['2002:808:808::1', true],
    ['2001:0:808:808:0:0:80ff:fffe', false], // Teredo: client 127.0.0.1 (inverted), server 8.8.8.8
    ['2001:0:a00:1:0:0:f7f7:f7f7', false], // server 10.0.0.1, client 8.8.8.8
    ['2001:0:808:808:0:0:f7f7:f7f7', true],
    ['2001:4860:4860::8888', true],
    ['not-an-ip', false],
  ])('isPublicAddress(%s) is %s', (address, expected) => {
    expect(isPublicAddress(address)).toBe(expected)
  })

  // The first hop is allowed by a test policy (only `main`'s port), so the refusal below can
  // only come from re-checking the redirect target.
  const onlyMain = () => ({ allowPrivateNetwork: false, timeoutMs: 5000, addressPolicy: (t: { port: number }) => t.port === main.port })
  test.each(['http://127.0.0.1:PORT/x', 'http://2130706433:PORT/x', 'http://[::1]:PORT/x', 'http://[::ffff:127.0.0.1]:PORT/x', 'http://localhost:PORT/x'])(
    'refuses a redirect to %s',
    async (pattern) => {
      routes['/hop'] = (_q, res) => res.writeHead(301, { location: pattern.replace('PORT', String(other.port)) }).end()
      const e = await failure(safeFetch(`${main.base}/hop`, onlyMain()))
      expect(e.code).toBe('invalid_request')
      expect(main.seen).toEqual(['/hop'])
      expect(other.seen).toEqual([])
    },
  )

  test('the default policy is publicOnly and the test policy really allows the first hop', async () => {
    routes['/ok'] = html('<p>fine</p>')
    expect((await safeFetch(`${main.base}/ok`, onlyMain())).status).toBe(200)
    expect(publicOnly({ address: '127.0.0.1', port: main.port, hostname: '127.0.0.1' })).toBe(false)
  })

  test('a proxy does not bypass the guard', async () => {
    const tunnels: string[] = []
    const proxy = createServer()
    proxy.on('connect', (req, socket) => {
      tunnels.push(req.url ?? '')
      const [h, p] = (req.url ?? '').split(':')
      const up = netConnect(Number(p), h!, () => {
        socket.write('HTTP/1.1 200 Connection established\r\n\r\n')
        up.pipe(socket).pipe(up)
      })
    })
    proxy.listen(0, '127.0.0.1')
    await once(proxy, 'listening')
    open.push(proxy)
    const proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`
    const e = await failure(safeFetch(`${other.base}/p`, { ...guarded, proxyUrl }))
    expect(e.code).toBe('invalid_request')
    expect(tunnels).toEqual([])
    const r = await safeFetch(`${other.base}/p`, { ...open_, proxyUrl })
    expect(r.text).toContain('other')
    expect(tunnels).toEqual([`127.0.0.1:${other.port}`])
  })
})

describe('failures', () => {
  test.each(['file:///etc/passwd', 'ftp://example.com/', 'not a url', 'http://user:pw@example.com/'])('refuses %s as invalid_request', async (url) => {
    expect((await failure(safeFetch(url, guarded))).code).toBe('invalid_request')
  })

  test('a redirect it will not follow is the page’s failure (upstream_error), not the caller’s', async () => {
    routes['/f'] = (_q, res) => res.writeHead(302, { location: 'file:///etc/passwd' }).end()
    routes['/c'] = (_q, res) => res.writeHead(302, { location: 'http://user:pw@127.0.0.1/' }).end()
    const scheme = await failure(safeFetch(`${main.base}/f`, open_))
    expect([scheme.code, scheme.message, scheme.opts.retryAfterSeconds]).toEqual(['upstream_error', 'page redirected to an unsupported scheme (file)', 5])
    expect((await failure(safeFetch(`${main.base}/c`, open_))).message).toBe('page redirected to a URL with credentials')
    expect(isTransportFailure(scheme)).toBe(false)
  })

  test('isTransportFailure tells "no answer" from an answer refused', async () => {
    const closed = await startServer(() => {})
    await new Promise<void>((resolve) => closed.server.close(() => resolve()))
    expect(isTransportFailure(await failure(safeFetch(closed.base, open_)))).toBe(true)
    expect(isTransportFailure(await failure(safeFetch(`${main.base}/missing`, open_)))).toBe(false)
  })

  test('stops after maxRedirects', async () => {
    routes['/loop'] = (_q, res) => res.writeHead(302, { location: '/loop' }).end()
    const e = await failure(safeFetch(`${main.base}/loop`, { ...open_, maxRedirects: 3 }))
    expect(e.message).toBe('more than 3 redirects')
    expect(main.seen).toHaveLength(4)
  })

  test('HTTP errors are upstream_error', async () => {
    const e = await failure(safeFetch(`${main.base}/missing`, open_))
    expect([e.code, e.message]).toEqual(['upstream_error', 'page answered HTTP 404'])
  })

  test('a stalled page times out as upstream_timeout', async () => {
    routes['/slow'] = (_q, res) => {
      res.writeHead(200, { 'content-type': 'text/html' })
      res.write('<p>start')
      setTimeout(() => res.end('</p>'), 3000).unref()
    }
    const started = Date.now()
    const e = await failure(safeFetch(`${main.base}/slow`, { ...open_, timeoutMs: 300 }))
    expect(e.code).toBe('upstream_timeout')
    expect(Date.now() - started).toBeLessThan(2000)
  })

  test('bodies past maxBytes fail, raw or decompressed', async () => {
    routes['/big'] = (_q, res) => {
      res.writeHead(200, { 'content-type': 'text/html' }) // chunked: no content-length to trust
      res.end('x'.repeat(50_000))
    }
    routes['/bomb'] = html(zlib.gzipSync(Buffer.alloc(5_000_000)), 'text/html', { 'content-encoding': 'gzip' })
    for (const path of ['/big', '/bomb']) {
      const e = await failure(safeFetch(`${main.base}${path}`, { ...open_, maxBytes: 10_000 }))
      expect(e.message).toMatch(/^page is larger than/)
    }
  })

  test('more than two content codings are refused before the body is read; two are undone', async () => {
    const page = Buffer.from('<p>stacked</p>')
    let stacked = page
    for (let i = 0; i < 3; i++) stacked = zlib.gzipSync(stacked)
    routes['/three'] = html(stacked, 'text/html', { 'content-encoding': 'gzip, gzip, gzip' })
    routes['/two'] = html(zlib.brotliCompressSync(zlib.gzipSync(page)), 'text/html', { 'content-encoding': 'gzip, br' })
    routes['/zstd'] = html(page, 'text/html', { 'content-encoding': 'zstd' })
    const e = await failure(safeFetch(`${main.base}/three`, open_))
    expect([e.code, e.message]).toEqual(['upstream_error', 'page is sent with 3 content codings (gzip, gzip, gzip); at most 2 are decoded'])
    expect(isTransportFailure(e)).toBe(false)
    expect((await safeFetch(`${main.base}/two`, open_)).text).toBe('<p>stacked</p>')
    expect((await failure(safeFetch(`${main.base}/zstd`, open_))).message).toBe('unsupported content encoding zstd')
  })

  test('unsupported types are upstream_error naming the type', async () => {
    routes['/img'] = html(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0]), 'image/png')
    const e = await failure(safeFetch(`${main.base}/img`, open_))
    expect([e.code, e.message]).toEqual(['upstream_error', 'unsupported content type image/png'])
  })
})

describe('options for callers that read status and bytes themselves (robots.txt)', () => {
  test('acceptErrorStatus returns a 4xx/5xx answer with an empty body instead of throwing', async () => {
    routes['/down'] = (_q, res) => res.writeHead(503, { 'content-type': 'text/html' }).end('<p>down</p>')
    const r = await safeFetch(`${main.base}/down`, { ...open_, acceptErrorStatus: true })
    expect([r.status, r.body.length, r.text]).toEqual([503, 0, ''])
    expect((await safeFetch(`${main.base}/missing`, { ...open_, acceptErrorStatus: true })).status).toBe(404)
  })

  test('anyContentType reads a body whatever its type says', async () => {
    routes['/img'] = html('User-agent: *\nDisallow: /', 'image/png')
    const r = await safeFetch(`${main.base}/img`, { ...open_, anyContentType: true })
    expect([r.contentType, r.text]).toEqual(['text', 'User-agent: *\nDisallow: /'])
  })
})

describe('content sniffing and charsets', () => {
  test('a PDF served as octet-stream is a pdf', async () => {
    routes['/doc'] = html(Buffer.from('%PDF-1.4\n%...'), 'application/octet-stream')
    const r = await safeFetch(`${main.base}/doc`, open_)
    expect(r.contentType).toBe('pdf')
    expect(r.text).toBeUndefined()
  })

  test('a PDF header within the first 1024 bytes counts, in a body typed as PDF or untyped, never in markup', async () => {
    const banner = `${'GPL Ghostscript banner line\n'.repeat(30)}%PDF-1.7\n%...`
    routes['/pdf'] = html(banner, 'application/pdf')
    routes['/bin'] = html(banner, 'application/octet-stream')
    routes['/late'] = html(`${' '.repeat(1024)}x%PDF-1.7`, 'application/pdf')
    routes['/page'] = html('<html><body>about the %PDF-1.7 header</body></html>', 'application/pdf')
    routes['/txt'] = html('notes on the %PDF-1.7 header', 'text/plain')
    expect((await safeFetch(`${main.base}/pdf`, open_)).contentType).toBe('pdf')
    expect((await safeFetch(`${main.base}/bin`, open_)).contentType).toBe('pdf')
    expect((await safeFetch(`${main.base}/txt`, open_)).contentType).toBe('text')
    for (const path of ['/late', '/page']) {
      expect((await failure(safeFetch(`${main.base}${path}`, open_))).message).toBe('unsupported content type application/pdf (body is not a PDF)')
    }
  })

  test('an empty PDF body is a pdf (read as an empty page), not a refusal', async () => {
    routes['/empty'] = html('', 'application/pdf')
    routes['/blank'] = html(' \r\n', 'application/pdf')
    expect((await safeFetch(`${main.base}/empty`, open_)).contentType).toBe('pdf')
    expect((await safeFetch(`${main.base}/blank`, open_)).contentType).toBe('pdf')
  })

  test('xhtml and plain text', async () => {
    routes['/x'] = html('<?xml version="1.0"?><html xmlns="http://www.w3.org/1999/xhtml"><p>x</p></html>', 'application/xhtml+xml')
    routes['/t'] = html('just text', 'text/plain')
    routes['/u'] = html('<!DOCTYPE html><p>untyped</p>', '')
    expect((await safeFetch(`${main.base}/x`, open_)).contentType).toBe('xhtml')
    expect((await safeFetch(`${main.base}/t`, open_)).contentType).toBe('text')
    expect((await safeFetch(`${main.base}/u`, open_)).contentType).toBe('html')
  })

  test.each([
    [
      'header windows-1252',
      Buffer.from([0x3c, 0x70, 0x3e, 0x93, 0x63, 0x61, 0x66, 0xe9, 0x94]),
      'text/html; charset=windows-1252',
      '\u201ccafé\u201d',
      'windows-1252',
    ],
    ['header iso-8859-2', Buffer.from([0x3c, 0x70, 0x3e, 0xb3, 0xf3, 0x64, 0xbc]), 'text/html; charset=ISO-8859-2', 'łódź', 'iso-8859-2'],
    ['meta shift_jis', Buffer.concat([Buffer.from('<meta charset="Shift_JIS"><p>'), Buffer.from([0x93, 0xfa, 0x96, 0x7b])]), 'text/html', '日本', 'shift_jis'],
    [
      'http-equiv gbk',
      Buffer.concat([Buffer.from('<meta http-equiv="Content-Type" content="text/html; charset=gb2312"><p>'), Buffer.from([0xd6, 0xd0, 0xce, 0xc4])]),
      'text/html',
      '中文',
      'gbk',
    ],
    ['BOM beats header', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('<p>ünï</p>')]), 'text/html; charset=iso-8859-1', 'ünï', 'utf-8'],
    ['undeclared invalid utf-8', Buffer.from([0x3c, 0x70, 0x3e, 0x63, 0x61, 0x66, 0xe9]), 'text/html', 'café', 'windows-1252'],
  ])('%s', async (_name, body, type, expected, charset) => {
    routes['/c'] = html(body, type)
    const r = await safeFetch(`${main.base}/c`, open_)
    expect(r.text).toContain(expected)
    expect(r.charset).toBe(charset)
  })
})
