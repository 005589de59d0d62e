import { contentCodings, DecodedTooLargeError, decodeContent, tooManyCodings, unsupportedCoding } from '../../net/body-decode.ts'

/** Raised when a page is larger than the cap, before or after decompression. */
export class BodyTooLargeError extends Error {
  constructor(readonly limit: number) {
    super(`response body over ${limit} bytes`)
  }
}

/** Raised for a Content-Encoding we did not ask for and cannot decode, or for more codings than we undo (body-decode.ts). */
export class UnsupportedEncodingError extends Error {}

/** Only what we can decode: a server must not pick zstd for us. */
export const ACCEPT_ENCODING = 'gzip, deflate, br'

/** A response body as the transports give it: chunks, and a way to stop reading. */
type BodyStream = AsyncIterable<Buffer | Uint8Array> & { destroy(err?: Error): unknown }
type ResponseHeaders = Record<string, string | string[] | undefined>

/**
 * Reads, decompresses and decodes a response body. The cap applies to the bytes on the wire and
 * again to the decompressed bytes, so a small gzip bomb cannot expand past it.
 */
export async function readTextBody(body: BodyStream, headers: ResponseHeaders, maxBytes: number, signal?: AbortSignal): Promise<string> {
  return decodeText(await readBody(body, headers, maxBytes, signal), header(headers, 'content-type'))
}

/**
 * readTextBody without the charset decoding: the decompressed bytes. More than two codings, or one
 * we cannot undo, is refused before the body is read; decoding streams through node:zlib off the
 * event loop (body-decode.ts) and stops when `signal` (the request's deadline) does.
 */
export async function readBody(body: BodyStream, headers: ResponseHeaders, maxBytes: number, signal?: AbortSignal): Promise<Buffer> {
  const codings = contentCodings(header(headers, 'content-encoding'))
  const tooMany = tooManyCodings(codings, 'response')
  const unsupported = unsupportedCoding(codings)
  if (tooMany || unsupported) {
    abandon(body)
    throw new UnsupportedEncodingError(tooMany ?? `unsupported content-encoding ${unsupported}`)
  }
  const raw = await readCapped(body, header(headers, 'content-length'), maxBytes, () => body.destroy())
  try {
    return await decodeContent(raw, codings, maxBytes, signal)
  } catch (err) {
    throw err instanceof DecodedTooLargeError ? new BodyTooLargeError(maxBytes) : err
  }
}

/**
 * Collects a body chunk by chunk, refusing it as soon as the declared length or the bytes read
 * pass `maxBytes`; `abandon` drops the rest (the loop's early exit cancels a web stream too).
 */
export async function readCapped(
  body: AsyncIterable<Uint8Array>,
  contentLength: string | undefined,
  maxBytes: number,
  abandon: () => unknown,
): Promise<Buffer> {
  const declared = Number(contentLength)
  if (contentLength && Number.isFinite(declared) && declared > maxBytes) {
    abandon()
    throw new BodyTooLargeError(maxBytes)
  }
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of body) {
    size += chunk.byteLength
    if (size > maxBytes) {
      abandon()
      throw new BodyTooLargeError(maxBytes)
    }
    chunks.push(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength))
  }
  return Buffer.concat(chunks)
}

/** Charset from Content-Type, else from an HTML <meta> near the top, else UTF-8. */
export function decodeText(bytes: Buffer, contentType: string | undefined): string {
  const label = charsetOf(contentType) ?? sniffMetaCharset(bytes) ?? 'utf-8'
  try {
    return new TextDecoder(label).decode(bytes)
  } catch {
    return new TextDecoder('utf-8').decode(bytes) // unknown label: UTF-8 is the web's default
  }
}

function charsetOf(contentType: string | undefined): string | undefined {
  const m = contentType?.match(/charset\s*=\s*"?([\w.:-]+)"?/i)
  return m?.[1]
}

function sniffMetaCharset(bytes: Buffer): string | undefined {
  const head = bytes.subarray(0, 2048).toString('latin1')
  const m = head.match(/<meta[^>]+charset\s*=\s*["']?([\w.:-]+)/i)
  return m?.[1]
}

/** Drops a body not read: a stream reports the abort as an error event nobody needs. */
function abandon(body: { destroy(err?: Error): unknown }) {
  ;(body as { on?: (event: string, listener: () => void) => unknown }).on?.('error', () => {})
  body.destroy()
}

function header(headers: ResponseHeaders, name: string): string | undefined {
  const v = headers[name]
  return Array.isArray(v) ? v.join(', ') : v
}
