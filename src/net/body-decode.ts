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
