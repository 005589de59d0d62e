/**
 * How the upstream client sends one HTTP request: the part that differs between a browser-grade
 * TLS client (impit, the default for engine traffic) and Node's own (undici). The client above
 * it owns everything else: host mapping, redirects (always manual: each hop is classified),
 * proxy rotation, block detection and the deadline.
 */

export interface TransportRequest {
  method: 'GET' | 'POST'
  /** The URL actually requested (after TRAWL_UPSTREAM_HOSTS mapping). */
  url: string
  /** Lower-case names. No Accept-Encoding: each transport asks only for what it can decode. */
  headers: Record<string, string>
  body?: string
  /** Forward proxy for this request (may hold credentials); null for a direct connection. */
  proxyUrl: string | null
  signal: AbortSignal
  /** Deadline for headers and body of this one request. */
  timeoutMs: number
}

export interface TransportResponse {
  status: number
  /** Lower-case names. Content-Encoding is gone when the transport has already decoded it. */
  headers: Record<string, string | string[] | undefined>
  /**
   * The whole body, decompressed, never more than `maxBytes` held: BodyTooLargeError past it
   * (declared length or bytes read), UnsupportedEncodingError for a coding nobody asked for.
   */
  bytes(maxBytes: number): Promise<Buffer>
  /** Drops the body unread (a redirect's), freeing the connection. */
  discard(): Promise<void>
}

export interface UpstreamTransport {
  readonly name: 'impit' | 'undici' | (string & {})
  send(req: TransportRequest): Promise<TransportResponse>
  close(): Promise<void>
}

/**
 * A failure of the transport with a Node-style code (ECONNREFUSED, ENOTFOUND, ETIMEDOUT, EPROTO,
 * ...): the upstream client's failure verdict reads only the code, never the message, since
 * messages can name mapped test addresses or proxy hosts.
 */
export class TransportError extends Error {
  constructor(
    readonly code: string | undefined,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options)
    this.name = 'TransportError'
  }
}
