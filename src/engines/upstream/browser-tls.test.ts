/**
 * Proof that engine traffic presents a browser's TLS handshake and page reading does not.
 *
 * A loopback TCP server reads the first TLS record of every connection (the ClientHello), keeps
 * its cipher suites, extension types, supported groups and ALPN, and then hands the socket to a
 * TLS server (HTTP/2 with HTTP/1.1 fallback) with a self-signed certificate (testdata/), so the
 * request completes and its headers can be checked too.
 */
import { once } from 'node:events'
import { readFileSync } from 'node:fs'
import { createSecureServer, type Http2SecureServer } from 'node:http2'
import { createServer as createNetServer, type Server as NetServer, type Socket } from 'node:net'
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest'
import { safeFetch } from '../../net/safe-fetch.ts'
import { impitErrorCode } from './impit-transport.ts'
import { createUpstreamClient, type UpstreamClient, type UpstreamClientOptions } from './upstream-client.ts'
import { UpstreamError } from './upstream-error.ts'

interface ClientHello {
  ciphers: number[]
  extensions: number[]
  groups: number[]
  alpn: string[]
}

interface Seen {
  httpVersion: string
  /** Header names and values in wire order, pseudo-headers included. */
  raw: string[]
}

/** Parses a TLS record holding a ClientHello (RFC 8446 §4.1.2). */
function parseClientHello(record: Buffer): ClientHello {
  if (record[0] !== 0x16 || record[5] !== 0x01) throw new Error('not a ClientHello')
  let p = 5 + 4 + 2 + 32 // record header, handshake header, legacy_version, random
  p += 1 + (record[p] ?? 0) // session id
  const cipherBytes = record.readUInt16BE(p)
  p += 2
  const ciphers: number[] = []
  for (let i = 0; i < cipherBytes; i += 2) ciphers.push(record.readUInt16BE(p + i))
  p += cipherBytes
  p += 1 + (record[p] ?? 0) // compression methods
  const end = p + 2 + record.readUInt16BE(p)
  p += 2
  const extensions: number[] = []
  let groups: number[] = []
  let alpn: string[] = []
  while (p < end) {
    const type = record.readUInt16BE(p)
    const data = record.subarray(p + 4, p + 4 + record.readUInt16BE(p + 2))
    extensions.push(type)
    if (type === 10) groups = Array.from({ length: data.readUInt16BE(0) / 2 }, (_, i) => data.readUInt16BE(2 + 2 * i))
    if (type === 16) {
      alpn = []
      for (let q = 2; q < data.length; q += 1 + (data[q] ?? 0)) alpn.push(data.subarray(q + 1, q + 1 + (data[q] ?? 0)).toString('latin1'))
    }
    p += 4 + data.length
  }
  return { ciphers, extensions, groups, alpn }
}

/** RFC 8701 GREASE values: 0x0a0a, 0x1a1a, ... 0xfafa. */
const isGrease = (v: number) => (v & 0x0f0f) === 0x0a0a && v >> 8 === (v & 0xff)

/** Chrome's cipher suites, in Chrome's order (after its leading GREASE value). */
const CHROME_CIPHERS = [0x1301, 0x1302, 0x1303, 0xc02b, 0xc02f, 0xc02c, 0xc030, 0xcca9, 0xcca8, 0xc013, 0xc014, 0x009c, 0x009d, 0x002f, 0x0035]
/**
 * Chrome's extensions (Chrome shuffles their order on every connection, so the set is compared);
 * no server_name (0) since the target is an IP address. Among them, only a browser sends
 * status_request (5), signed_certificate_timestamp (18), compress_certificate (27), ALPS (17613)
 * and an ECH GREASE (65037).
 */
const CHROME_EXTENSIONS = [5, 10, 11, 13, 16, 18, 23, 27, 35, 43, 45, 51, 17613, 65037, 65281]
const X25519_MLKEM768 = 0x11ec
const CHROME_138_UA = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/138.0.0.0 Safari/537.36'
const FIREFOX_UA = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:141.0) Gecko/20100101 Firefox/141.0'
const PRESTO_UA = 'Opera/9.80 (Android 4.1.2; Linux; Opera Mobi/ADR-1305251841) Presto/2.11.355 Version/12.10'
const NOKIA_UA = 'Nokia6230/2.0 (05.50) Profile/MIDP-2.0 Configuration/CLDC-1.1'
const CHROME_151_UA = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/151.0.0.0 Safari/537.36'

const testdata = new URL('./testdata/', import.meta.url)
const hellos: ClientHello[] = []
const seen: Seen[] = []
const sockets = new Set<Socket>()
let recorder: NetServer
let tlsServer: Http2SecureServer
let base: string

beforeAll(async () => {
  tlsServer = createSecureServer(
    { key: readFileSync(new URL('loopback-tls.key.pem', testdata)), cert: readFileSync(new URL('loopback-tls.cert.pem', testdata)), allowHTTP1: true },
    (req, res) => {
      seen.push({ httpVersion: req.httpVersion, raw: req.rawHeaders })
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<html>over tls</html>')
    },
  )
  recorder = createNetServer((socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
    let buffered = Buffer.alloc(0)
    const onData = (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk])
      if (buffered.length < 5 || buffered.length < 5 + buffered.readUInt16BE(3)) return
      socket.off('data', onData)
      socket.pause()
      hellos.push(parseClientHello(buffered.subarray(0, 5 + buffered.readUInt16BE(3))))
      socket.unshift(buffered) // the TLS server reads the hello again from the start
      tlsServer.emit('connection', socket)
    }
    socket.on('data', onData)
  })
  recorder.listen(0, '127.0.0.1')
  await once(recorder, 'listening')
  const address = recorder.address()
  if (!address || typeof address === 'string') throw new Error('no port')
  base = `https://127.0.0.1:${address.port}`
})

afterAll(async () => {
  for (const s of sockets) s.destroy()
  recorder.close()
  tlsServer.close()
})

const clients: UpstreamClient[] = []
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()))
})

function client(options: UpstreamClientOptions) {
  const c = createUpstreamClient({ upstreamHosts: new Map([['*', base]]), proxyPools: [], upstreamTimeoutMs: 5_000 }, options)
  clients.push(c)
  return c
}

/** One engine request through the upstream client; the hello and request the server saw. */
async function engineRequest(options: UpstreamClientOptions, headers: Record<string, string>) {
  const before = hellos.length
  const page = await client(options).fetchPage({ engine: 'google', url: 'https://www.google.com/search?q=tls', headers })
  expect(page.body).toBe('<html>over tls</html>')
  expect(hellos.length).toBe(before + 1)
  return { hello: hellos.at(-1) as ClientHello, request: seen.at(-1) as Seen }
}

const headerNames = (s: Seen) => s.raw.filter((_, i) => i % 2 === 0)
const headerValue = (s: Seen, name: string) => s.raw[s.raw.findIndex((v, i) => i % 2 === 0 && v === name) + 1]

function expectNodeHello(hello: ClientHello) {
  expect([...hello.ciphers, ...hello.extensions, ...hello.groups].filter(isGrease)).toEqual([])
  expect(hello.ciphers).not.toEqual(CHROME_CIPHERS)
  expect(hello.ciphers.length).toBeGreaterThan(CHROME_CIPHERS.length) // OpenSSL's long default list
  for (const browserOnly of [5, 18, 27, 17613, 65037]) expect(hello.extensions).not.toContain(browserOnly)
  // OpenSSL 3.5 (Node 24) offers X25519MLKEM768 too, but never behind a GREASE group as Chrome does.
  expect(isGrease(hello.groups[0] ?? 0)).toBe(false)
}

describe('engine requests present a browser TLS handshake (impit)', () => {
  test("a Chrome UA gets Chrome's ClientHello, HTTP/2 and Chrome's headers for that version", async () => {
    const { hello, request } = await engineRequest({ insecureTls: true }, { 'User-Agent': CHROME_138_UA, 'Accept-Language': 'de-DE,de;q=0.9' })
    expect(isGrease(hello.ciphers[0] ?? 0)).toBe(true)
    expect(hello.ciphers.slice(1)).toEqual(CHROME_CIPHERS)
    expect(hello.extensions.filter((e) => !isGrease(e)).sort((a, b) => a - b)).toEqual(CHROME_EXTENSIONS)
    expect(isGrease(hello.groups[0] ?? 0)).toBe(true)
    expect(hello.groups[1]).toBe(X25519_MLKEM768)
    expect(hello.alpn).toEqual(['h2', 'http/1.1'])

    expect(request.httpVersion).toBe('2.0')
    // Chrome's pseudo-header order (m, a, s, p), then its navigation headers in its order.
    expect(headerNames(request).filter((n) => n.startsWith(':'))).toEqual([':method', ':authority', ':scheme', ':path'])
    expect(headerNames(request).filter((n) => !n.startsWith(':') && n !== 'x-forwarded-host')).toEqual([
      'sec-ch-ua',
      'sec-ch-ua-mobile',
      'sec-ch-ua-platform',
      'upgrade-insecure-requests',
      'user-agent',
      'accept',
      'sec-fetch-site',
      'sec-fetch-mode',
      'sec-fetch-user',
      'sec-fetch-dest',
      'accept-encoding',
      'accept-language',
      'priority',
    ])
    expect(headerValue(request, 'user-agent')).toBe(CHROME_138_UA)
    expect(headerValue(request, 'sec-ch-ua')).toBe('"Not)A;Brand";v="8", "Chromium";v="138", "Google Chrome";v="138"')
    expect(headerValue(request, 'sec-ch-ua-platform')).toBe('"Windows"')
    expect(headerValue(request, 'accept-language')).toBe('de-DE,de;q=0.9')
  })

  test("a Firefox UA gets Firefox's handshake and no client hints", async () => {
    const { hello, request } = await engineRequest({ insecureTls: true }, { 'User-Agent': FIREFOX_UA })
    expect(hello.ciphers.slice(0, 3)).toEqual([0x1301, 0x1303, 0x1302]) // Firefox's TLS 1.3 order
    expect(hello.extensions).toContain(28) // record_size_limit: Firefox's, not Chrome's
    expect(headerNames(request).filter((n) => n.startsWith(':'))).toEqual([':method', ':path', ':authority', ':scheme'])
    expect(headerValue(request, 'user-agent')).toBe(FIREFOX_UA)
    expect(headerNames(request).some((n) => n.startsWith('sec-ch-ua'))).toBe(false)
  })

  test("another browser's UA is sent as is, with Chrome's handshake but none of Chrome's own headers", async () => {
    const { hello, request } = await engineRequest({ insecureTls: true }, { 'User-Agent': PRESTO_UA, Accept: 'text/html' })
    expect(hello.ciphers.slice(1)).toEqual(CHROME_CIPHERS)
    expect(headerValue(request, 'user-agent')).toBe(PRESTO_UA)
    expect(
      headerNames(request)
        .filter((n) => !n.startsWith(':'))
        .sort(),
    ).toEqual(['accept', 'accept-encoding', 'user-agent', 'x-forwarded-host'])
  })

  test.each([
    ['a WML Nokia', NOKIA_UA],
    ['the Presto', PRESTO_UA],
  ])("%s UA gets Chrome 100's hello (impit's closest to chrome99_android): no post-quantum group, the old ALPS, fixed extension order", async (_, ua) => {
    const { hello, request } = await engineRequest({ insecureTls: true }, { 'User-Agent': ua, Accept: '*/*' })
    expect(isGrease(hello.ciphers[0] ?? 0)).toBe(true)
    expect(hello.ciphers.slice(1)).toEqual(CHROME_CIPHERS)
    const extensions = hello.extensions.filter((e) => !isGrease(e))
    // GREASE extensions first and last, padding (21) and ALPS at its pre-2025 code point (17513), no ECH GREASE.
    expect(isGrease(hello.extensions[0] ?? 0) && isGrease(hello.extensions.at(-2) ?? 0)).toBe(true)
    expect(extensions).toEqual(expect.arrayContaining([21, 17513]))
    expect(extensions).not.toContain(17613)
    expect(extensions).not.toContain(65037)
    expect(isGrease(hello.groups[0] ?? 0)).toBe(true)
    expect(hello.groups.slice(1)).toEqual([0x1d, 0x17, 0x18]) // X25519, P-256, P-384: no X25519MLKEM768
    expect(headerValue(request, 'accept-encoding')).toBe('gzip, deflate, br')
    expect(headerNames(request).some((n) => n.startsWith('sec-'))).toBe(false)
  })

  test("a current Chrome UA (DuckDuckGo's) keeps the post-quantum hello, for contrast", async () => {
    const { hello } = await engineRequest({ insecureTls: true }, { 'User-Agent': CHROME_151_UA })
    expect(hello.groups[1]).toBe(X25519_MLKEM768)
    expect(hello.extensions).toContain(65037)
  })

  test('without insecureTls the self-signed certificate is refused with a TLS reason', async () => {
    const err = await client({})
      .fetchPage({ engine: 'google', url: 'https://www.google.com/search?q=tls', headers: { 'User-Agent': CHROME_138_UA } })
      .then(
        () => null,
        (e: unknown) => e,
      )
    expect(err).toBeInstanceOf(UpstreamError)
    expect((err as UpstreamError).attempts[0]).toMatchObject({ outcome: 'error', reason: 'TLS handshake failed (ERR_TLS_CERT_INVALID)' })
    // undici says the same thing in its own code
    const viaUndici = await client({ transport: 'undici' })
      .fetchPage({ engine: 'google', url: 'https://www.google.com/search?q=tls' })
      .then(
        () => null,
        (e: unknown) => e,
      )
    expect((viaUndici as UpstreamError).attempts[0]).toMatchObject({ outcome: 'error', reason: 'TLS handshake failed (DEPTH_ZERO_SELF_SIGNED_CERT)' })
  })
})

describe("Node's own handshake, for contrast", () => {
  test("the undici transport of the same client sends OpenSSL's ClientHello", async () => {
    const { hello, request } = await engineRequest({ transport: 'undici', insecureTls: true }, { 'User-Agent': CHROME_138_UA })
    expectNodeHello(hello)
    expect(request.httpVersion).toBe('1.1')
  })

  test("page reading (safeFetch, undici over Node TLS) sends OpenSSL's ClientHello", async () => {
    const before = hellos.length
    // The certificate is refused (page reading never relaxes TLS); the hello was sent all the same.
    await safeFetch(`${base}/page`, { allowPrivateNetwork: true, timeoutMs: 5_000 }).catch(() => null)
    expect(hellos.length).toBe(before + 1)
    expectNodeHello(hellos.at(-1) as ClientHello)
  })
})

describe("impit's failures map to the codes the failure verdict reads", () => {
  // Messages as impit 0.14 throws them (captured on loopback), shortened to their distinctive part.
  const cases: [string, string, string | undefined][] = [
    [
      'ConnectError',
      'Failed to connect to the server.\nReason: ConnectError("tcp connect error", 127.0.0.1:1, Os { code: 111, kind: ConnectionRefused })',
      'ECONNREFUSED',
    ],
    [
      'ConnectError',
      'Failed to connect to the server.\nReason: ConnectError("dns error", Custom { error: "failed to lookup address information" })',
      'ENOTFOUND',
    ],
    ['TimeoutError', 'Request timeout (300 ms) exceeded.', 'ETIMEDOUT'],
    ['Error', 'Error reading response stream: reqwest::Error { kind: Decode, source: reqwest::Error { kind: Body, source: TimedOut } }', 'ETIMEDOUT'],
    [
      'ConnectError',
      'Failed to connect to the server.\nReason: Custom { kind: InvalidData, error: InvalidCertificate(Other(OtherError(CaUsedAsEndEntity))) }',
      'ERR_TLS_CERT_INVALID',
    ],
    ['ConnectError', 'Failed to connect to the server.\nReason: Custom { kind: InvalidData, error: InvalidMessage(InvalidContentType) }', 'EPROTO'],
    ['ConnectError', 'Failed to connect to the server.\nReason: hyper_util::client::legacy::Error(Connect, TunnelUnexpectedEof)', 'ERR_PROXY_TUNNEL'],
    ['RemoteProtocolError', 'Remote protocol error occurred.', 'ECONNRESET'],
    ['ConnectError', 'Failed to connect to the server.\nReason: Os { code: 104, kind: ConnectionReset }', 'ECONNRESET'],
    [
      'Error',
      'Error reading response stream: reqwest::Error { kind: Decode, source: Custom { kind: InvalidData, error: "Invalid gzip header" } }',
      'Z_DATA_ERROR',
    ],
    ['HTTPError', 'reqwest::Error { kind: Request, url: "http://127.0.0.1:9/timeout", source: hyper::Error(Parse(Version)) }', 'ERR_HTTP_PROTOCOL'],
    ['ConnectError', 'Failed to connect to the server.', undefined],
  ]
  test.each(cases)('%s: %s', (name, message, code) => {
    const err = new Error(message)
    err.name = name
    expect(impitErrorCode(err)).toBe(code)
  })
})
