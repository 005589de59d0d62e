import zlib from 'node:zlib'
import { ApiError } from '../errors.ts'

export type ContentKind = 'html' | 'xhtml' | 'pdf' | 'text'

const TEXT_MIMES = new Set(['application/json', 'application/ld+json', 'application/javascript'])

/** `text/html; charset=UTF-8` -> `text/html`. */
export const mimeOf = (contentType: string | undefined) => (contentType ?? '').split(';')[0]!.trim().toLowerCase()

function charsetParam(contentType: string | undefined): string | undefined {
  const m = /charset\s*=\s*["']?([\w.:-]+)/i.exec(contentType ?? '')
  return m?.[1]?.toLowerCase()
}

const UNTYPED = new Set(['', 'application/octet-stream', 'binary/octet-stream'])

/** Nothing but whitespace (PDF's own includes NUL): a body with nothing to read. */
export function isBlankBody(body: Buffer): boolean {
  for (const b of body) if (b !== 0x20 && b !== 0x09 && b !== 0x0a && b !== 0x0c && b !== 0x0d && b !== 0x00) return false
  return true
}

/**
 * Classifies a body by its bytes first and its header second: servers often label PDFs and HTML
 * as application/octet-stream, and some send HTML error pages as application/pdf.
 */
export function sniffContentKind(body: Buffer, contentType: string | undefined): ContentKind {
  const head = body.subarray(0, 1024).toString('latin1')
  if (/^\s*%PDF-/.test(head)) return 'pdf'
  const mime = mimeOf(contentType)
  const start = head
    .replace(/^\uFEFF|^\xEF\xBB\xBF/, '')
    .trimStart()
    .slice(0, 512)
    .toLowerCase()
  const looksHtml = /^(<!doctype html|<html|<head|<body|<!--|<meta|<title|<div|<p[ >]|<script|<style|<link)/.test(start)
  const looksXhtml = start.startsWith('<?xml') && /<html[\s>]/.test(head.toLowerCase())
  // PDF readers accept the header anywhere in the first 1024 bytes (a tool's banner may come first).
  // Only in a body typed as PDF or not typed at all, and not in markup: a page may mention "%PDF-".
  if ((mime === 'application/pdf' || UNTYPED.has(mime)) && head.includes('%PDF-') && !start.startsWith('<')) return 'pdf'
  if (mime === 'application/pdf') {
    // An empty PDF is an empty page (as an empty HTML page is), not a broken one.
    if (isBlankBody(body)) return 'pdf'
    throw new ApiError('upstream_error', 'unsupported content type application/pdf (body is not a PDF)')
  }
  if (mime === 'application/xhtml+xml') return 'xhtml'
  if (mime === 'text/html') return looksXhtml ? 'xhtml' : 'html'
  if (mime === 'text/xml' || mime === 'application/xml') {
    if (looksXhtml) return 'xhtml'
    throw new ApiError('upstream_error', `unsupported content type ${mime}`)
  }
  if (mime.startsWith('text/') || TEXT_MIMES.has(mime)) return looksHtml ? 'html' : 'text'
  if (UNTYPED.has(mime)) {
    if (looksXhtml) return 'xhtml'
    if (looksHtml) return 'html'
    if (looksLikeText(body)) return 'text'
  }
  throw new ApiError('upstream_error', `unsupported content type ${mime || 'unknown'}`)
}

/** No NUL and few control bytes in the first 4 KB: a binary format would have plenty. */
function looksLikeText(body: Buffer): boolean {
  const sample = body.subarray(0, 4096)
  let control = 0
  for (const b of sample) {
    if (b === 0) return false
    if (b < 9 || (b > 13 && b < 32)) control++
  }
  return control <= sample.length / 100
}

// Node 20's TextDecoder decodes windows-1252 as ISO-8859-1 (0x80-0x9F become C1 controls instead
// of curly quotes, dashes and the euro sign); real pages use those bytes constantly, so fix them up.
const CP1252_HIGH =
  '\u20ac\u0081\u201a\u0192\u201e\u2026\u2020\u2021\u02c6\u2030\u0160\u2039\u0152\u008d\u017d\u008f\u0090\u2018\u2019\u201c\u201d\u2022\u2013\u2014\u02dc\u2122\u0161\u203a\u0153\u009d\u017e\u0178'
function decodeWith(encoding: string, body: Buffer): string {
  const text = new TextDecoder(encoding).decode(body)
  if (encoding !== 'windows-1252') return text
  return text.replace(/[\u0080-\u009f]/g, (c) => CP1252_HIGH[c.charCodeAt(0) - 0x80]!)
}

function supported(label: string | undefined): string | undefined {
  if (!label) return undefined
  try {
    return new TextDecoder(label).encoding
  } catch {
    return undefined
  }
}

/** `<meta charset>` or `<meta http-equiv=content-type content="...charset=...">` in the first bytes. */
function metaCharset(body: Buffer): string | undefined {
  const head = body.subarray(0, 4096).toString('latin1')
  const direct = /<meta[^>]+charset\s*=\s*["']?\s*([\w.:-]+)/i.exec(head)
  return direct?.[1]?.toLowerCase()
}

/**
 * Picks the encoding the way browsers do (BOM, then header, then `<meta>`), then decodes.
 * When nothing declares one and the bytes are not valid UTF-8, windows-1252 is what browsers
 * fall back to for Western pages, and it never fails, so the text stays readable.
 */
export function decodeText(body: Buffer, contentType: string | undefined, kind: ContentKind = 'html'): { text: string; charset: string } {
  if (body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf) return { text: new TextDecoder('utf-8').decode(body), charset: 'utf-8' }
  if (body[0] === 0xff && body[1] === 0xfe) return { text: new TextDecoder('utf-16le').decode(body), charset: 'utf-16le' }
  if (body[0] === 0xfe && body[1] === 0xff) return { text: new TextDecoder('utf-16be').decode(body), charset: 'utf-16be' }
  let declared = supported(charsetParam(contentType))
  if (!declared && kind !== 'text') declared = supported(metaCharset(body))
  // A page served as UTF-16 with a <meta> saying so cannot have been parsed that way to find it.
  if (declared?.startsWith('utf-16')) declared = undefined
  if (declared && declared !== 'utf-8') return { text: decodeWith(declared, body), charset: declared }
  try {
    return { text: new TextDecoder('utf-8', { fatal: true }).decode(body), charset: 'utf-8' }
  } catch {
    if (declared === 'utf-8') return { text: new TextDecoder('utf-8').decode(body), charset: 'utf-8' }
    return { text: decodeWith('windows-1252', body), charset: 'windows-1252' }
  }
}

/**
 * Content codings a body may carry one over another. A browser undoes any number; two are all a
 * real server sends (gzip over a pre-compressed file, say), and each coding is a full pass over a
 * body that can grow with every one: a 71 KB page sent with gzip listed 2,000 times held the
 * server 36 s when they were undone.
 */
export const MAX_CONTENT_CODINGS = 2

/** The codings of a Content-Encoding header, in the order they were applied; `identity` dropped. */
export function contentCodings(header: string | undefined): string[] {
  return (header ?? '')
    .toLowerCase()
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s && s !== 'identity')
}

/**
 * Why a body with these codings is refused before anything is decoded, said of `what` (the page,
 * a response): more codings than MAX_CONTENT_CODINGS. Undefined when there are not too many.
 */
export function tooManyCodings(codings: readonly string[], what: string): string | undefined {
  if (codings.length <= MAX_CONTENT_CODINGS) return undefined
  const named = codings.length > 4 ? `${codings.slice(0, 3).join(', ')}, …` : codings.join(', ')
  return `${what} is sent with ${codings.length} content codings (${named}); at most ${MAX_CONTENT_CODINGS} are decoded`
}

/** The first of `codings` that decodeContent cannot undo (gzip, x-gzip, deflate and br it can). */
export const unsupportedCoding = (codings: readonly string[]): string | undefined => codings.find((c) => !DECODERS.has(c))

/** The decoded body passed the cap. */
export class DecodedTooLargeError extends Error {
  constructor(readonly limit: number) {
    super(`decoded body over ${limit} bytes`)
  }
}

const CHUNK = 64 * 1024
type Decoder = zlib.Gunzip | zlib.BrotliDecompress | zlib.Inflate | zlib.InflateRaw
const DECODERS = new Map<string, (first: number) => Decoder>([
  // The flush modes accept truncated streams, which many servers send and browsers display anyway.
  ['gzip', () => zlib.createGunzip({ finishFlush: zlib.constants.Z_SYNC_FLUSH, chunkSize: CHUNK })],
  ['x-gzip', () => zlib.createGunzip({ finishFlush: zlib.constants.Z_SYNC_FLUSH, chunkSize: CHUNK })],
  ['br', () => zlib.createBrotliDecompress({ finishFlush: zlib.constants.BROTLI_OPERATION_FLUSH, chunkSize: CHUNK })],
  // "deflate" is zlib-wrapped by the RFC, but some servers send raw deflate: the first byte tells.
  [
    'deflate',
    (first) =>
      (first & 0x0f) === 8
        ? zlib.createInflate({ finishFlush: zlib.constants.Z_SYNC_FLUSH, chunkSize: CHUNK })
        : zlib.createInflateRaw({ finishFlush: zlib.constants.Z_SYNC_FLUSH, chunkSize: CHUNK }),
  ],
])

/**
 * Undoes `codings` (as contentCodings lists them; last applied, first undone) through node:zlib's
 * streams: each piece is inflated on libuv's thread pool, never on the event loop, the output is
 * refused (DecodedTooLargeError) the moment it passes `maxBytes`, and `signal` (the read's
 * deadline) stops it. Callers check tooManyCodings and unsupportedCoding first; a corrupt stream rejects with zlib's error.
 */
export async function decodeContent(body: Buffer, codings: readonly string[], maxBytes: number, signal?: AbortSignal): Promise<Buffer> {
  const refused = tooManyCodings(codings, 'body') ?? (unsupportedCoding(codings) && `unsupported content encoding ${unsupportedCoding(codings)}`)
  if (refused) throw new Error(refused)
  let out = body
  for (let i = codings.length - 1; i >= 0; i--) {
    if (out.length === 0) break // e.g. a 204 or an empty error page that still names gzip
    const coding = codings[i]!
    const input = out
    out = await inflate(DECODERS.get(coding)!(input[0]!), input, maxBytes, signal).catch((err) => {
      // A raw deflate stream can begin like a zlib header: it gets its own try.
      if (coding !== 'deflate' || (input[0]! & 0x0f) !== 8 || err instanceof DecodedTooLargeError || signal?.aborted) throw err
      return inflate(zlib.createInflateRaw({ finishFlush: zlib.constants.Z_SYNC_FLUSH, chunkSize: CHUNK }), input, maxBytes, signal)
    })
  }
  return out
}

function inflate(stream: Decoder, input: Buffer, maxBytes: number, signal?: AbortSignal): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    let settled = false
    const settle = (err: unknown, value?: Buffer) => {
      if (settled) return
      settled = true
      signal?.removeEventListener('abort', onAbort)
      if (err === null) return resolve(value!)
      stream.destroy()
      reject(err)
    }
    const onAbort = () => settle(signal?.reason ?? new Error('aborted'))
    if (signal?.aborted) return onAbort()
    signal?.addEventListener('abort', onAbort, { once: true })
    stream.on('data', (chunk: Buffer) => {
      size += chunk.length
      if (size > maxBytes) settle(new DecodedTooLargeError(maxBytes))
      else chunks.push(chunk)
    })
    stream.on('end', () => settle(null, Buffer.concat(chunks, size)))
    stream.on('error', (err) => settle(err))
    stream.end(input)
  })
}
