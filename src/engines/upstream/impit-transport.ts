import { createRequire } from 'node:module'
import type { Browser, Impit, ImpitResponse } from 'impit'
import { srcFile } from '../../paths.ts'
import { planBrowserRequest } from './browser-headers.ts'
import { BodyTooLargeError, readCapped, UnsupportedEncodingError } from './response-body.ts'
import { TransportError, type TransportRequest, type TransportResponse, type UpstreamTransport } from './upstream-transport.ts'

export interface ImpitTransportOptions {
  /** Accept any certificate (impit's ignoreTlsErrors). Tests only: never set from configuration. */
  insecureTls?: boolean
}

type ImpitModule = typeof import('impit')
let impitModule: ImpitModule | undefined
/** The native binding (about 9 MB) is loaded at the first engine request, not at start. */
function loadImpit(): ImpitModule {
  impitModule ??= createRequire(srcFile('engines/upstream/'))('impit') as ImpitModule
  return impitModule
}

/** Codings impit decodes itself (it asks for them in the browser's Accept-Encoding). */
const DECODED = new Set(['gzip', 'deflate', 'br', 'zstd'])
const PROXY_SCHEMES = new Set(['http:', 'https:', 'socks4:', 'socks5:', 'socks5h:'])
/** What a redirect's body may cost to read out so its connection is reused; past it, dropped. */
const DISCARD_LIMIT = 128 * 1024

/**
 * Engine traffic through impit (Apify's Rust client with browser TLS and HTTP/2 fingerprints):
 * the ClientHello, ALPN and HTTP/2 settings of a real Chrome or Firefox, with headers to match
 * (browser-headers.ts decides which profile and which headers). One Impit instance per proxy and
 * profile, made at first use and kept: each holds its connection pool. Redirects are never
 * followed here (the client classifies every hop), cookies are not kept (engines send their own),
 * HTTP/3 stays off (impit cannot proxy it, and a browser only tries it after Alt-Svc).
 *
 * Bodies: impit decodes gzip, deflate, br and zstd itself and leaves Content-Encoding and the
 * (compressed) Content-Length in the headers, so the body is never decoded a second time here:
 * Content-Encoding is dropped from the headers handed on, and any other coding is refused as
 * UnsupportedEncodingError. Impit exposes the body as a ReadableStream that yields decoded chunks
 * as they arrive, so the cap is enforced incrementally: the declared length first (a compressed
 * length over the cap is refused too, as the undici path does), then the decoded bytes read, and
 * the stream is cancelled (closing the connection) the moment they pass the cap.
 */
export function createImpitTransport(options: ImpitTransportOptions = {}): UpstreamTransport {
  const clients = new Map<string, Impit>()

  function clientFor(proxyUrl: string | null, browser: Browser): Impit {
    const key = `${browser} ${proxyUrl ?? ''}`
    let client = clients.get(key)
    if (!client) {
      // Impit quietly connects directly when it cannot use a proxy URL: refuse instead.
      if (proxyUrl && !PROXY_SCHEMES.has(new URL(proxyUrl).protocol)) {
        throw new TransportError('ERR_PROXY_SCHEME', 'unsupported proxy scheme')
      }
      let Impit: ImpitModule['Impit']
      try {
        Impit = loadImpit().Impit
      } catch (err) {
        // No binary for this platform (or optional dependencies omitted): say so on every attempt.
        throw new TransportError('ERR_IMPIT_UNAVAILABLE', 'impit could not be loaded', { cause: err })
      }
      client = new Impit({
        browser,
        ...(proxyUrl ? { proxyUrl } : {}),
        followRedirects: false,
        ignoreTlsErrors: options.insecureTls === true,
        http3: false,
      })
      clients.set(key, client)
    }
    return client
  }

  return {
    name: 'impit',
    async send(req: TransportRequest): Promise<TransportResponse> {
      const plan = planBrowserRequest(req.headers)
      const client = clientFor(req.proxyUrl, plan.browser)
      let res: ImpitResponse
      try {
        res = await client.fetch(req.url, {
          method: req.method,
          headers: plan.headers,
          ...(req.body !== undefined ? { body: req.body } : {}),
          signal: req.signal,
          timeout: req.timeoutMs,
          redirect: 'manual',
        })
      } catch (err) {
        throw impitFailure(err)
      }
      const headers: Record<string, string> = {}
      for (const [name, value] of res.headers) if (name !== 'set-cookie') headers[name] = value
      // Each Set-Cookie is its own header line: kept as a list, never joined (engine-session.ts).
      const setCookie = res.headers.getSetCookie()
      const codings = (headers['content-encoding'] ?? '')
        .split(',')
        .map((s) => s.trim().toLowerCase())
        .filter((s) => s && s !== 'identity')
      const decoded = codings.length === 1 && DECODED.has(codings[0] ?? '')
      if (decoded) delete headers['content-encoding']
      return {
        status: res.status,
        headers: setCookie.length > 0 ? { ...headers, 'set-cookie': setCookie } : headers,
        async bytes(maxBytes) {
          if (codings.length > 0 && !decoded) {
            await res.body.cancel().catch(() => {})
            throw new UnsupportedEncodingError(`unsupported content-encoding ${codings.join(', ')}`)
          }
          try {
            return await readCapped(chunksOf(res.body), headers['content-length'], maxBytes, () => {})
          } catch (err) {
            throw impitFailure(err)
          }
        },
        async discard() {
          await readCapped(chunksOf(res.body), undefined, DISCARD_LIMIT, () => {}).catch(() => {})
        },
      }
    },
    async close() {
      // Impit has no close: an instance's connections go with it when it is collected.
      clients.clear()
    },
  }
}

/** Reads a web stream; leaving early (cap passed, error) cancels it, which closes the connection. */
async function* chunksOf(stream: ReadableStream<Uint8Array>): AsyncGenerator<Uint8Array> {
  const reader = stream.getReader()
  let done = false
  try {
    for (;;) {
      const next = await reader.read()
      if (next.done) {
        done = true
        return
      }
      yield next.value
    }
  } finally {
    if (!done) await reader.cancel().catch(() => {})
    reader.releaseLock()
  }
}

/**
 * Impit's failures as Node-style codes for the client's failure verdict. Impit throws its own
 * classes (ConnectError, TimeoutError, RemoteProtocolError, ...) whose messages hold the Rust
 * error's debug text (hyper, rustls, std::io kinds); body-stream failures are plain Errors with
 * reqwest's text. Only Rust tokens are matched (never free text, which can hold the URL):
 *
 *   TimeoutError (and ConnectTimeout, ReadTimeout...), `TimedOut`  -> ETIMEDOUT (a timeout)
 *   `dns error`, `failed to lookup address`                        -> ENOTFOUND
 *   `kind: ConnectionRefused`                                      -> ECONNREFUSED
 *   `InvalidCertificate(...)` (rustls)                             -> ERR_TLS_CERT_INVALID
 *   `InvalidMessage(`, `AlertReceived(`, `PeerIncompatible(`, ...  -> EPROTO (TLS handshake)
 *   ProxyAuthRequired                                              -> ERR_PROXY_AUTH
 *   ProxyTunnelError, `Tunnel...` (CONNECT refused or cut)         -> ERR_PROXY_TUNNEL
 *   RemoteProtocolError (closed before an answer), `ConnectionReset`,
 *   `IncompleteMessage`, `UnexpectedEof`, `BrokenPipe`             -> ECONNRESET
 *   `kind: Decode` (a corrupt gzip/br/zstd body)                   -> Z_DATA_ERROR (as zlib's)
 *   `Parse(` (not HTTP), other protocol errors                     -> ERR_HTTP_PROTOCOL
 * Anything else keeps no code ("connection failed"). The abort of a signal rejects with the
 * signal's reason, passed on as it is, as are the body cap's own errors.
 */
export function impitFailure(err: unknown): unknown {
  if (!(err instanceof Error)) return err
  if (err instanceof BodyTooLargeError || err instanceof UnsupportedEncodingError || err instanceof TransportError) return err
  if (!isImpitError(err)) return err
  const code = impitErrorCode(err)
  return new TransportError(code, `engine request failed${code ? ` (${code})` : ''}`, { cause: err })
}

const TIMEOUT_CLASSES = new Set(['TimeoutError', 'ConnectTimeout', 'ReadTimeout', 'WriteTimeout', 'PoolTimeout'])

/** Impit's own classes, or the plain Errors its body stream rejects with. */
function isImpitError(err: Error): boolean {
  if (impitModule && err instanceof impitModule.ImpitError) return true
  return err.constructor === Error && /^(Error reading response stream|impit:)|reqwest::Error/.test(err.message)
}

export function impitErrorCode(err: Error): string | undefined {
  const text = err.message
  if (TIMEOUT_CLASSES.has(err.name) || /\bTimedOut\b/.test(text)) return 'ETIMEDOUT'
  if (/"dns error"|failed to lookup address/.test(text)) return 'ENOTFOUND'
  if (/kind: ConnectionRefused/.test(text)) return 'ECONNREFUSED'
  if (/InvalidCertificate\(/.test(text)) return 'ERR_TLS_CERT_INVALID'
  if (/InvalidMessage\(|AlertReceived\(|PeerIncompatible\(|PeerMisbehaved\(|NoCertificatesPresented|HandshakeFailure/.test(text)) return 'EPROTO'
  if (err.name === 'ProxyAuthRequired') return 'ERR_PROXY_AUTH'
  if (err.name === 'ProxyTunnelError' || /\bTunnel[A-Z]\w*/.test(text)) return 'ERR_PROXY_TUNNEL'
  if (err.name === 'RemoteProtocolError' || /kind: ConnectionReset|IncompleteMessage|kind: UnexpectedEof|kind: ConnectionAborted|kind: BrokenPipe/.test(text)) {
    return 'ECONNRESET'
  }
  if (/kind: Decode/.test(text)) return 'Z_DATA_ERROR'
  if (/\bParse\(/.test(text) || err.name.endsWith('ProtocolError')) return 'ERR_HTTP_PROTOCOL'
  return undefined
}
