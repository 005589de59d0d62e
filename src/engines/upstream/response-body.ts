import { brotliDecompress, gunzip, inflate, inflateRaw, type ZlibOptions } from 'node:zlib'

/** Raised when a page is larger than the cap, before or after decompression. */
export class BodyTooLargeError extends Error {
  constructor(readonly limit: number) {
    super(`response body over ${limit} bytes`)
  }
}

/** Raised for a Content-Encoding we did not ask for and cannot decode. */
export class UnsupportedEncodingError extends Error {}

type Inflate = (buf: Buffer, opts: ZlibOptions, cb: (err: Error | null, out: Buffer) => void) => void

/** Only what we can decode: a server must not pick zstd for us. */
export const ACCEPT_ENCODING = 'gzip, deflate, br'

/**
 * Reads, decompresses and decodes a response body. The cap applies to the bytes on the wire and
 * again to the decompressed bytes, so a small gzip bomb cannot expand past it.
 */
export async function readTextBody(
  body: AsyncIterable<Buffer | Uint8Array> & { destroy(err?: Error): unknown },
  headers: Record<string, string | string[] | undefined>,
  maxBytes: number,
): Promise<string> {
  return decodeText(await readBody(body, headers, maxBytes), header(headers, 'content-type'))
}

/** readTextBody without the charset decoding: the decompressed bytes. */
export async function readBody(
  body: AsyncIterable<Buffer | Uint8Array> & { destroy(err?: Error): unknown },
  headers: Record<string, string | string[] | undefined>,
  maxBytes: number,
): Promise<Buffer> {
  const raw = await readCapped(body, header(headers, 'content-length'), maxBytes, () => body.destroy())
  return decompress(raw, header(headers, 'content-encoding'), maxBytes)
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

async function decompress(raw: Buffer, encoding: string | undefined, maxBytes: number): Promise<Buffer> {
  // Encodings are listed in the order applied, so they are undone last first.
  const codings = (encoding ?? '')
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter((s) => s && s !== 'identity')
    .reverse()
  let out = raw
  for (const coding of codings) {
    if (out.length === 0) return out // e.g. a 204 or empty error page that still names gzip
    if (coding === 'gzip' || coding === 'x-gzip') out = await run(gunzip, out, maxBytes)
    else if (coding === 'br') out = await run(brotliDecompress, out, maxBytes)
    else if (coding === 'deflate') {
      // "deflate" should be zlib-wrapped, but some servers send raw deflate streams.
      out = await run(inflate, out, maxBytes).catch((e) => {
        if (e instanceof BodyTooLargeError) throw e
        return run(inflateRaw, out, maxBytes)
      })
    } else throw new UnsupportedEncodingError(`unsupported content-encoding ${coding}`)
  }
  return out
}

function run(fn: Inflate, input: Buffer, maxBytes: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    fn(input, { maxOutputLength: maxBytes }, (err, out) => {
      if (!err) return resolve(out)
      reject((err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE' ? new BodyTooLargeError(maxBytes) : err)
    })
  })
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

function header(headers: Record<string, string | string[] | undefined>, name: string): string | undefined {
  const v = headers[name]
  return Array.isArray(v) ? v.join(', ') : v
}
