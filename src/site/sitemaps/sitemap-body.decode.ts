import zlib from 'node:zlib'

/**
 * The sitemaps protocol caps a file at 50 MB uncompressed; a little headroom for sloppy
 * generators, and a hard stop for gzip bombs (a few KB can expand to gigabytes).
 */
export const MAX_SITEMAP_BYTES = 64 * 1024 * 1024

/** A body whose gzip layers expand past the cap: nothing useful can be read from it. */
export class SitemapTooLargeError extends Error {}

const isGzip = (b: Buffer) => b.length >= 3 && b[0] === 0x1f && b[1] === 0x8b && b[2] === 0x08

/**
 * Undoes gzip by its magic bytes, not by headers or names: `.xml.gz` files are served as
 * application/octet-stream, as gzip over Content-Encoding: gzip (two layers once the fetcher undid
 * one), and some `.gz` names hold plain XML. Truncated streams give what was inflated so far.
 */
export function gunzipLayers(body: Buffer, maxBytes = MAX_SITEMAP_BYTES): Buffer {
  let out = body
  for (let layer = 0; layer < 3 && isGzip(out); layer++) {
    try {
      out = zlib.gunzipSync(out, { maxOutputLength: maxBytes, finishFlush: zlib.constants.Z_SYNC_FLUSH })
    } catch (e) {
      if (e instanceof RangeError || (e as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') {
        throw new SitemapTooLargeError(`sitemap expands past ${Math.round(maxBytes / 1048576)} MB`)
      }
      throw new Error('sitemap looks gzip-compressed but does not inflate', { cause: e })
    }
  }
  return out
}

function decoderFor(label: string | undefined): TextDecoder | undefined {
  if (!label) return undefined
  try {
    return new TextDecoder(label)
  } catch {
    return undefined
  }
}

/**
 * Sitemaps must be UTF-8, but feeds and old generators declare other charsets: the BOM wins, then
 * the XML declaration (it travels with the file), then the header; UTF-8 otherwise.
 */
export function decodeSitemapText(bytes: Buffer, contentType?: string): string {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return new TextDecoder('utf-8').decode(bytes.subarray(3))
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return new TextDecoder('utf-16le').decode(bytes.subarray(2))
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return new TextDecoder('utf-16be').decode(bytes.subarray(2))
  const head = bytes.subarray(0, 256).toString('latin1')
  const declared = /^\s*<\?xml[^>]*\bencoding\s*=\s*["']([\w.:-]+)["']/i.exec(head)?.[1]
  const header = /charset\s*=\s*["']?([\w.:-]+)/i.exec(contentType ?? '')?.[1]
  // A UTF-16 label on bytes we could read as ASCII to find it is a lie; decode as UTF-8.
  const decoder = [declared, header].map(decoderFor).find((d) => d && !d.encoding.startsWith('utf-16'))
  return (decoder ?? new TextDecoder('utf-8')).decode(bytes)
}
