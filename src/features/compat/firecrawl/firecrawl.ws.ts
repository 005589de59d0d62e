import { createHash } from 'node:crypto'
import type { IncomingMessage } from 'node:http'
import type { Duplex } from 'node:stream'
import type { FastifyInstance } from 'fastify'
import type { AppDeps } from '../../../deps.ts'
import { isApiError } from '../../../errors.ts'
import type { AuthContext } from '../../../http/auth.ts'
import type { CrawlTask } from '../../crawl/crawl.response.ts'
import { getCrawl } from '../../crawl/crawl.service.ts'
import { crawlDocuments, crawlStatus } from './firecrawl.service.ts'

/**
 * The crawl status WebSocket Firecrawl's SDK watcher opens (`watcher(id).start()`): the same path as
 * GET /v2/crawl/{id} in ws(s)://, the key as the subprotocol. Like Firecrawl's server it sends
 * `{type: "catchup", data: <status>}` at once, `{type: "document", data}` for pages as they come
 * (Trawl's crawls hand over their pages when they end), a last catchup with the final status, and
 * closes with `{"type":"done"}`; errors are `{type: "error", error}` and a close code
 * (3000 key refused, 1008 no such crawl). Only text frames are sent; the server reads just the
 * client's close and ping frames. RFC 6455, no extensions, no dependency.
 */

const GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11'
const PATH = /^\/compat\/firecrawl\/v2\/crawl\/([A-Za-z0-9-]{1,64})\/?(?:\?.*)?$/
const POLL_MS = 1000
/** A crawl ends within 30 minutes; the socket never outlives that by much. */
const MAX_LIFETIME_MS = 35 * 60_000
const MAX_INBOUND_BYTES = 64 * 1024

type Message = { type: 'catchup'; data: unknown } | { type: 'document'; data: unknown } | { type: 'error'; error: string }

function frame(opcode: number, payload: Buffer): Buffer {
  const len = payload.length
  let header: Buffer
  if (len < 126) header = Buffer.from([0x80 | opcode, len])
  else if (len < 65_536) {
    header = Buffer.alloc(4)
    header[0] = 0x80 | opcode
    header[1] = 126
    header.writeUInt16BE(len, 2)
  } else {
    header = Buffer.alloc(10)
    header[0] = 0x80 | opcode
    header[1] = 127
    header.writeBigUInt64BE(BigInt(len), 2)
  }
  return Buffer.concat([header, payload])
}

/** A close frame: 2-byte code and a reason of at most 123 bytes. */
function closeFrame(code: number, reason: string): Buffer {
  let text = Buffer.from(reason)
  if (text.length > 123) text = Buffer.from(JSON.stringify({ type: 'error' }))
  const payload = Buffer.alloc(2 + text.length)
  payload.writeUInt16BE(code, 0)
  text.copy(payload, 2)
  return frame(0x8, payload)
}

function refuseHandshake(socket: Duplex, status: number, message: string) {
  const body = JSON.stringify({ success: false, error: message })
  socket.end(
    `HTTP/1.1 ${status} ${status === 404 ? 'Not Found' : 'Bad Request'}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  )
}

/** The key as Firecrawl's SDK sends it (the subprotocol), or as Bearer / ?api_key= for other clients. */
function keyOf(req: IncomingMessage): { key?: string; protocol?: string } {
  const protocol = String(req.headers['sec-websocket-protocol'] ?? '')
    .split(',')[0]
    ?.trim()
  if (protocol) return { key: protocol, protocol }
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(String(req.headers.authorization ?? ''))?.[1]
  if (bearer) return { key: bearer }
  const query = new URL(req.url ?? '/', 'http://x').searchParams.get('api_key')
  return { key: query ?? undefined }
}

/** `selfUrl(host)`: the absolute URL of /compat/firecrawl/v2/crawl as the client reached it (for `next`). */
export function crawlStatusWebSocket(app: FastifyInstance, deps: AppDeps, selfUrl: (host: string | undefined) => string) {
  const open = new Set<Duplex>()
  app.addHook('preClose', async () => {
    for (const socket of open) {
      if (socket.writable) socket.write(closeFrame(1001, JSON.stringify({ type: 'error', error: 'the server is restarting' })))
      socket.end()
    }
  })

  app.server.on('upgrade', (req: IncomingMessage, socket: Duplex) => {
    const match = PATH.exec(req.url ?? '')
    if (!match) {
      // Nothing else here speaks WebSocket: say so instead of leaving the connection hanging.
      if (app.server.listenerCount('upgrade') === 1) refuseHandshake(socket, 404, `no WebSocket at ${(req.url ?? '/').split('?')[0]}`)
      return
    }
    const wsKey = String(req.headers['sec-websocket-key'] ?? '')
    if (
      req.method !== 'GET' ||
      String(req.headers.upgrade ?? '').toLowerCase() !== 'websocket' ||
      req.headers['sec-websocket-version'] !== '13' ||
      !/^[A-Za-z0-9+/]{22}==$/.test(wsKey)
    ) {
      refuseHandshake(socket, 400, 'not a WebSocket version 13 handshake')
      return
    }
    const { key, protocol } = keyOf(req)
    const accept = createHash('sha1')
      .update(wsKey + GUID)
      .digest('base64')
    socket.write(
      `HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\n${protocol ? `Sec-WebSocket-Protocol: ${protocol}\r\n` : ''}\r\n`,
    )
    open.add(socket)
    void serve(socket, match[1]!, key, `${selfUrl(req.headers.host)}/${match[1]}`).catch((err) => {
      deps.log.warn({ err }, 'crawl status socket failed')
      socket.destroy()
    })
  })

  async function serve(socket: Duplex, id: string, key: string | undefined, self: string) {
    let closed = false
    const timers: NodeJS.Timeout[] = []
    const finish = () => {
      if (closed) return
      closed = true
      for (const t of timers) clearTimeout(t)
      open.delete(socket)
    }
    const send = (msg: Message) => {
      if (!closed && socket.writable) socket.write(frame(0x1, Buffer.from(JSON.stringify(msg))))
    }
    const close = (code: number, reason: object) => {
      if (!closed && socket.writable) socket.end(closeFrame(code, JSON.stringify(reason)))
      finish()
    }
    const fail = (code: number, error: string) => {
      send({ type: 'error', error })
      close(code, { type: 'error', error })
    }
    socket.on('close', finish)
    socket.on('error', finish)
    readClientFrames(socket, (code) => close(code, { type: 'done' }))
    timers.push(setTimeout(() => fail(1000, 'watch time exceeded; poll GET /v2/crawl/{id}'), MAX_LIFETIME_MS))

    let auth: AuthContext
    try {
      if (!key) throw new Error('missing API key: send it as the WebSocket subprotocol, as Firecrawl’s SDK does')
      auth = await deps.keys.resolve(key)
      await deps.limiter.consume(auth.keyId, auth.rps)
    } catch (err) {
      return fail(3000, err instanceof Error ? err.message : 'unauthorized')
    }

    const sent = new Set<string>()
    const tick = async (first: boolean) => {
      if (closed) return
      let view: CrawlTask
      try {
        view = (await getCrawl(deps.store, auth.accountId, id)) as CrawlTask
      } catch (err) {
        if (isApiError(err) && err.code === 'not_found') return fail(1008, 'Job not found')
        return fail(1011, 'crawl status could not be read; poll GET /v2/crawl/{id}')
      }
      const ended = view.status !== 'queued' && view.status !== 'running'
      const status = () => crawlStatus(view, { self, limit: 100_000 })
      if (first) send({ type: 'catchup', data: status() })
      for (const doc of crawlDocuments(view)) {
        const docKey = JSON.stringify(doc)
        if (sent.has(docKey)) continue
        sent.add(docKey)
        if (!first) send({ type: 'document', data: doc })
      }
      if (ended) {
        if (!first) send({ type: 'catchup', data: status() })
        return close(1000, { type: 'done' })
      }
      timers.push(setTimeout(() => void tick(false), POLL_MS))
    }
    await tick(true)
  }
}

/** Reads the client's frames: answers ping with pong, close with close; the rest is ignored. */
function readClientFrames(socket: Duplex, onClose: (code: number) => void) {
  let buffered = Buffer.alloc(0)
  socket.on('data', (chunk: Buffer) => {
    buffered = Buffer.concat([buffered, chunk])
    if (buffered.length > MAX_INBOUND_BYTES) return onClose(1009)
    while (buffered.length >= 2) {
      const opcode = buffered[0]! & 0x0f
      const masked = (buffered[1]! & 0x80) !== 0
      let len = buffered[1]! & 0x7f
      let offset = 2
      if (len === 126) {
        if (buffered.length < 4) return
        len = buffered.readUInt16BE(2)
        offset = 4
      } else if (len === 127) {
        if (buffered.length < 10) return
        len = Number(buffered.readBigUInt64BE(2))
        offset = 10
      }
      const maskAt = offset
      if (masked) offset += 4
      if (buffered.length < offset + len) return
      const payload = Buffer.from(buffered.subarray(offset, offset + len))
      if (masked) for (let i = 0; i < payload.length; i++) payload[i]! ^= buffered[maskAt + (i % 4)]!
      buffered = buffered.subarray(offset + len)
      if (opcode === 0x8) return onClose(payload.length >= 2 ? payload.readUInt16BE(0) : 1000)
      if (opcode === 0x9 && socket.writable) socket.write(frame(0xa, payload))
    }
  })
}
