import { createServer, request, type Server } from 'node:http'
import { type AddressInfo, connect } from 'node:net'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { type AddressPolicy, publicOnly } from '../address-policy.ts'
import { type GuardProxy, REFUSED_HEADER, startGuardProxy } from './guard-proxy.ts'

/** The proxy alone, without a browser: what it forwards, what it refuses, and how it says so. */

let target: Server
let targetPort = 0
let hits = 0
let proxy: GuardProxy

beforeAll(async () => {
  target = createServer((req, res) => {
    hits++
    res.writeHead(200, { 'content-type': 'text/plain' }).end(`hello ${req.url} host=${req.headers.host}`)
  })
  await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve))
  targetPort = (target.address() as AddressInfo).port
  // The public-only rule plus one loopback port standing in for a public site.
  const policy: AddressPolicy = (t) => publicOnly(t) || (t.address === '127.0.0.1' && t.port === targetPort)
  proxy = await startGuardProxy({ policy })
})
afterAll(async () => {
  await proxy?.close()
  await new Promise<void>((resolve) => target?.close(() => resolve()))
})

const port = () => Number(new URL(proxy.url).port)

/** A plain-http request in absolute form, as a browser sends it to an HTTP proxy. */
function viaProxy(url: string): Promise<{ status: number; refused: boolean; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: port(), path: url, headers: { host: new URL(url).host } }, (res) => {
      let body = ''
      res.on('data', (c) => (body += c))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, refused: res.headers[REFUSED_HEADER] === '1', body }))
    })
    req.on('error', reject)
    req.end()
  })
}

/** The proxy's answer to a CONNECT line. */
function connectLine(authority: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port(), '127.0.0.1', () => socket.write(`CONNECT ${authority} HTTP/1.1\r\nHost: ${authority}\r\n\r\n`))
    socket.once('data', (d) => {
      resolve(d.toString('latin1'))
      socket.destroy()
    })
    socket.on('error', reject)
  })
}

describe('guard proxy', () => {
  test('plain http to an allowed address is forwarded with its Host header', async () => {
    const res = await viaProxy(`http://127.0.0.1:${targetPort}/page?q=1`)
    expect(res).toMatchObject({ status: 200, refused: false })
    expect(res.body).toBe(`hello /page?q=1 host=127.0.0.1:${targetPort}`)
  })

  test('every refused form is a 403 with the refusal header, and nothing reaches the target', async () => {
    const before = hits
    for (const url of [`http://localhost:1/`, `http://127.0.0.1:1/`, `http://[::1]:${targetPort}/`, `http://0.0.0.0:${targetPort}/`, 'http://10.0.0.1/']) {
      expect(await viaProxy(url), url).toMatchObject({ status: 403, refused: true })
    }
    expect(await connectLine('localhost:443')).toMatch(new RegExp(`^HTTP/1.1 403 .*\\r\\n${REFUSED_HEADER}: 1`, 's'))
    expect(await connectLine('[::1]:443')).toMatch(/^HTTP\/1.1 403/)
    expect(hits).toBe(before)
    expect(proxy.refused).toBeGreaterThanOrEqual(7)
  })

  test('CONNECT to an allowed address opens a tunnel', async () => {
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(port(), '127.0.0.1', () => socket.write(`CONNECT 127.0.0.1:${targetPort} HTTP/1.1\r\nHost: 127.0.0.1:${targetPort}\r\n\r\n`))
      let buffer = ''
      socket.on('data', (d) => {
        buffer += d.toString('latin1')
        if (buffer.startsWith('HTTP/1.1 200') && !buffer.includes('hello')) {
          if (buffer.endsWith('\r\n\r\n')) socket.write(`GET /tunnelled HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`)
        }
      })
      socket.on('end', () => resolve(buffer))
      socket.on('error', reject)
    })
    expect(answer).toMatch(/^HTTP\/1.1 200 Connection Established/)
    expect(answer).toContain('hello /tunnelled')
  })

  test('a malformed CONNECT target is a 400', async () => {
    expect(await connectLine('no-port-here')).toMatch(/^HTTP\/1.1 400/)
  })
})
