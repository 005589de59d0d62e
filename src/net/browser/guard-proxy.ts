import { lookup } from 'node:dns/promises'
import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import { type AddressInfo, connect, isIP, type Socket } from 'node:net'
import { type AddressPolicy, BlockedAddressError, stripBrackets } from '../address-policy.ts'

/**
 * The browser's only way out: an HTTP forward proxy (CONNECT tunnels for https:, wss: and ws:, and
 * absolute-form requests for plain http:) on 127.0.0.1. Every connection the browser asks for is
 * resolved here, every resolved address is judged by the same AddressPolicy as safeFetch, and the
 * connection is opened to the address that was judged: Chromium never resolves a name itself
 * (behind an HTTP proxy it hands the proxy the host name), so there is no second DNS answer to
 * rebind to. A refusal is a 403 carrying REFUSED_HEADER, so the renderer can tell "the page is on
 * a private address" from a page that answers 403.
 */

export const REFUSED_HEADER = 'x-trawl-refused'

export interface GuardProxy {
  /** http://127.0.0.1:<port>, for --proxy-server. */
  url: string
  /** Connections refused by the policy since start (tests and /healthz read it). */
  readonly refused: number
  /**
   * Why the last connection to `host` failed, if it did: Chromium reports every failed tunnel as
   * ERR_TUNNEL_CONNECTION_FAILED, whether the address was refused, DNS found nothing (offline) or
   * the connect failed, and the renderer must not call an offline machine a private address.
   */
  failureFor(host: string): TunnelFailure | undefined
  close(): Promise<void>
}

export interface TunnelFailure {
  kind: 'refused' | 'dns' | 'connect'
  /** For people: `www.example.com resolves to 10.0.0.1`, `getaddrinfo ENOTFOUND www.example.com`, `connect ECONNREFUSED 1.2.3.4:443`. */
  detail: string
}

export interface GuardProxyOptions {
  policy: AddressPolicy
  /** Connect timeout towards the target. */
  connectTimeoutMs?: number
}

/**
 * Resolves `host` and returns the address to connect to, or throws BlockedAddressError. The rule is
 * safeFetch's: a name is refused when any of its records is refused (a name answering both public
 * and private addresses is a rebinding attempt), and the first record is the one connected to.
 */
export async function resolveChecked(rawHost: string, port: number, policy: AddressPolicy): Promise<string> {
  const host = stripBrackets(rawHost)
  if (isIP(host)) {
    if (!policy({ address: host, port, hostname: host })) throw new BlockedAddressError({ address: host, port, hostname: host })
    return host
  }
  const records = await lookup(host, { all: true })
  const bad = records.find((r) => !policy({ address: r.address, port, hostname: host }))
  if (bad) throw new BlockedAddressError({ address: bad.address, port, hostname: host })
  const first = records[0]
  if (!first) throw Object.assign(new Error(`no address for ${host}`), { code: 'ENOTFOUND' })
  return first.address
}

/** `host:port` of a CONNECT line (`[::1]:443` for IPv6). */
function parseAuthority(authority: string): { host: string; port: number } | null {
  const m = /^(\[[^\]]+\]|[^:]+):(\d{1,5})$/.exec(authority)
  if (!m) return null
  const port = Number(m[2])
  return port > 0 && port < 65536 ? { host: m[1]!, port } : null
}

const HOP_BY_HOP = ['proxy-connection', 'proxy-authorization', 'connection', 'keep-alive', 'te', 'trailer', 'transfer-encoding', 'upgrade']

function refusal(reason: string): string {
  const body = `refused by Trawl's address policy: ${reason}\n`
  return `HTTP/1.1 403 Forbidden\r\n${REFUSED_HEADER}: 1\r\ncontent-type: text/plain\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`
}

const badGateway = 'HTTP/1.1 502 Bad Gateway\r\ncontent-length: 0\r\nconnection: close\r\n\r\n'

/** What the proxy's handlers share: the policy, the connect timeout, the open sockets, the refusals. */
interface ProxyState {
  policy: AddressPolicy
  connectTimeoutMs: number
  refused: number
  track(socket: Socket): void
  /** The last failure per host, newest last; at most FAILURES_KEPT hosts. */
  failures: Map<string, TunnelFailure>
}

const FAILURES_KEPT = 256

function noteFailure(state: ProxyState, host: string, failure: TunnelFailure | null) {
  const key = stripBrackets(host).toLowerCase()
  state.failures.delete(key)
  if (!failure) return
  state.failures.set(key, failure)
  if (state.failures.size > FAILURES_KEPT) state.failures.delete(state.failures.keys().next().value!)
}

const failureOf = (e: unknown, host: string): TunnelFailure =>
  e instanceof BlockedAddressError
    ? { kind: 'refused', detail: `${e.target.hostname} resolves to ${e.target.address}` }
    : { kind: 'dns', detail: (e as Error).message || `no address for ${host}` }

export async function startGuardProxy(opts: GuardProxyOptions): Promise<GuardProxy> {
  const sockets = new Set<Socket>()
  const state: ProxyState = {
    policy: opts.policy,
    connectTimeoutMs: opts.connectTimeoutMs ?? 15_000,
    refused: 0,
    failures: new Map(),
    track: (s) => {
      sockets.add(s)
      s.once('close', () => sockets.delete(s))
    },
  }
  const server: Server = createServer((req, res) => forwardHttp(state, req, res))
  // https:, wss: and (in Chromium) ws: go through CONNECT tunnels.
  server.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) => tunnel(state, req, client, head))
  server.on('upgrade', (req: IncomingMessage, client: Socket, head: Buffer) => replayUpgrade(state, req, client, head))
  server.on('connection', state.track)

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => resolve())
  })
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    get refused() {
      return state.refused
    },
    failureFor: (host) => state.failures.get(stripBrackets(host).toLowerCase()),
    async close() {
      for (const s of sockets) s.destroy()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}

/** Opens a checked TCP connection, or writes the refusal/failure to `client` and returns null. */
async function openChecked(state: ProxyState, host: string, port: number, client: Socket): Promise<Socket | null> {
  let address: string
  try {
    address = await resolveChecked(host, port, state.policy)
  } catch (e) {
    noteFailure(state, host, failureOf(e, host))
    if (e instanceof BlockedAddressError) {
      state.refused++
      client.end(refusal(`${e.target.hostname} resolves to ${e.target.address}`))
    } else client.end(badGateway)
    return null
  }
  return await new Promise<Socket | null>((resolve) => {
    const upstream = connect({ host: address, port, timeout: state.connectTimeoutMs })
    state.track(upstream)
    const fail = (err?: Error) => {
      noteFailure(state, host, { kind: 'connect', detail: err?.message ?? `connect to ${address}:${port} timed out` })
      upstream.destroy()
      if (!client.destroyed) client.end(badGateway)
      resolve(null)
    }
    upstream.once('timeout', () => fail())
    upstream.once('error', fail)
    upstream.once('connect', () => {
      noteFailure(state, host, null)
      upstream.removeListener('error', fail)
      upstream.removeListener('timeout', fail)
      upstream.setTimeout(0)
      upstream.on('error', () => client.destroy())
      client.on('error', () => upstream.destroy())
      client.once('close', () => upstream.destroy())
      upstream.once('close', () => client.destroy())
      resolve(upstream)
    })
  })
}

/**
 * Absolute-form request: plain http through the proxy. Each request is judged on its own, even on
 * a kept-alive browser connection, since consecutive requests may go to different hosts.
 */
function forwardHttp(state: ProxyState, req: IncomingMessage, res: ServerResponse) {
  let target: URL
  try {
    target = new URL(req.url ?? '')
  } catch {
    return res.writeHead(400).end()
  }
  if (target.protocol !== 'http:') return res.writeHead(400).end()
  const port = Number(target.port) || 80
  resolveChecked(target.hostname, port, state.policy).then(
    (address) => {
      const headers: Record<string, string | string[] | undefined> = { ...req.headers, host: target.host }
      for (const h of HOP_BY_HOP) delete headers[h]
      const upstream = httpRequest(
        {
          host: address,
          port,
          method: req.method,
          path: `${target.pathname}${target.search}`,
          headers,
          setHost: false,
          agent: false,
          timeout: state.connectTimeoutMs,
        },
        (up) => {
          const out = { ...up.headers }
          for (const h of HOP_BY_HOP) delete out[h]
          res.writeHead(up.statusCode ?? 502, out)
          up.pipe(res)
          up.on('error', () => res.destroy())
        },
      )
      upstream.on('timeout', () => upstream.destroy(new Error('connect timeout')))
      upstream.on('error', () => (res.headersSent ? res.destroy() : res.writeHead(502, { 'content-length': '0' }).end()))
      res.on('close', () => upstream.destroy())
      req.pipe(upstream)
    },
    (e) => {
      noteFailure(state, target.hostname, failureOf(e, target.hostname))
      if (e instanceof BlockedAddressError) {
        state.refused++
        res.writeHead(403, { [REFUSED_HEADER]: '1', 'content-type': 'text/plain', connection: 'close' }).end(`refused by Trawl's address policy\n`)
      } else res.writeHead(502, { 'content-length': '0' }).end()
    },
  )
}

/** A CONNECT tunnel to the checked address of its authority. */
function tunnel(state: ProxyState, req: IncomingMessage, client: Socket, head: Buffer) {
  state.track(client)
  client.on('error', () => client.destroy())
  const authority = parseAuthority(req.url ?? '')
  if (!authority) return client.end('HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\nconnection: close\r\n\r\n')
  void openChecked(state, authority.host, authority.port, client).then((upstream) => {
    if (!upstream) return
    client.write('HTTP/1.1 200 Connection Established\r\n\r\n')
    if (head.length > 0) upstream.write(head)
    upstream.pipe(client)
    client.pipe(upstream)
  })
}

/** An absolute-form Upgrade (a ws: request not tunnelled): replayed to the checked address. */
function replayUpgrade(state: ProxyState, req: IncomingMessage, client: Socket, head: Buffer) {
  state.track(client)
  client.on('error', () => client.destroy())
  let target: URL
  try {
    target = new URL(req.url ?? '')
  } catch {
    return client.end('HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\nconnection: close\r\n\r\n')
  }
  const port = Number(target.port) || 80
  void openChecked(state, target.hostname, port, client).then((upstream) => {
    if (!upstream) return
    const lines = [`${req.method} ${target.pathname}${target.search} HTTP/1.1`]
    for (let i = 0; i < req.rawHeaders.length; i += 2) {
      const name = req.rawHeaders[i]!
      if (name.toLowerCase() === 'proxy-connection' || name.toLowerCase() === 'proxy-authorization') continue
      lines.push(`${name}: ${req.rawHeaders[i + 1]}`)
    }
    upstream.write(`${lines.join('\r\n')}\r\n\r\n`)
    if (head.length > 0) upstream.write(head)
    upstream.pipe(client)
    client.pipe(upstream)
  })
}
