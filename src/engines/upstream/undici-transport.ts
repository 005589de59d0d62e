import type { Dispatcher, ProxyAgent } from 'undici'
import { undici } from '../../net/undici.ts'
import { ACCEPT_ENCODING, readBody } from './response-body.ts'
import type { TransportRequest, TransportResponse, UpstreamTransport } from './upstream-transport.ts'

export interface UndiciTransportOptions {
  /** Accept any certificate. Tests only (a loopback TLS server with a self-signed certificate). */
  insecureTls?: boolean
}

/**
 * Node's own HTTP client: Node's TLS handshake, which Google and Cloudflare-fronted engines can
 * tell from a browser's. Kept for tests that need undici's behaviour and as a fallback
 * (`createUpstreamClient(config, { transport: 'undici' })`). Errors keep undici's own codes
 * (ECONNREFUSED, UND_ERR_HEADERS_TIMEOUT, ...), which the client's failure verdict reads.
 */
export function createUndiciTransport(options: UndiciTransportOptions = {}): UpstreamTransport {
  const tls = options.insecureTls ? { rejectUnauthorized: false } : {}
  const { Agent, ProxyAgent, request } = undici()
  const direct = new Agent({ connect: { timeout: 10_000, ...tls } })
  const proxyAgents = new Map<string, ProxyAgent>()

  function dispatcherFor(proxyUrl: string | null): Dispatcher {
    if (!proxyUrl) return direct
    let agent = proxyAgents.get(proxyUrl)
    if (!agent) {
      // proxyTunnel false: plain-http targets are sent in absolute form, as forward proxies expect
      // (many refuse CONNECT to port 80); https targets are still tunnelled with CONNECT.
      agent = new ProxyAgent({ uri: proxyUrl, proxyTunnel: false, connect: { timeout: 10_000 }, requestTls: tls })
      proxyAgents.set(proxyUrl, agent)
    }
    return agent
  }

  return {
    name: 'undici',
    async send(req: TransportRequest): Promise<TransportResponse> {
      const res = await request(req.url, {
        method: req.method,
        body: req.body,
        headers: { ...req.headers, 'accept-encoding': ACCEPT_ENCODING },
        dispatcher: dispatcherFor(req.proxyUrl),
        signal: req.signal,
        headersTimeout: req.timeoutMs,
        bodyTimeout: req.timeoutMs,
      })
      return {
        status: res.statusCode,
        headers: res.headers,
        bytes: (maxBytes) => readBody(res.body, res.headers, maxBytes, req.signal),
        discard: () => res.body.dump(),
      }
    },
    async close() {
      // Graceful first; an engine that never answers must not hold up shutdown.
      const agents = [direct, ...proxyAgents.values()]
      const graceful = Promise.all(agents.map((a) => a.close()))
      const deadline = new Promise<'late'>((resolve) => setTimeout(() => resolve('late'), 2000).unref())
      if ((await Promise.race([graceful, deadline])) === 'late') await Promise.all(agents.map((a) => a.destroy()))
      proxyAgents.clear()
    },
  }
}
