/**
 * Reading Google Maps' positional JSON: the XSSI prefix, the `{"c":..,"d":".."}` envelope, and
 * index paths that may miss anywhere. Maps payloads are protobuf messages serialised as nested
 * arrays, so fields are addressed by position and any of them can be absent or moved.
 */

/** `0x<feature>:0x<customer>`, Google's feature id (fid, "data_id"). */
export const FID_PATTERN = /^0x[0-9a-f]{1,16}:0x[0-9a-f]{1,16}$/i

const XSSI_PREFIX = ")]}'"
const ENVELOPE_SUFFIX = '/*""*/'

/** The value at `path` inside nested arrays, or undefined when any step is missing or not an array. */
export function at(value: unknown, ...path: number[]): unknown {
  let cur = value
  for (const i of path) {
    if (!Array.isArray(cur) || i < 0 || i >= cur.length) return undefined
    cur = cur[i]
  }
  return cur ?? undefined
}

export function strAt(value: unknown, ...path: number[]): string | undefined {
  const v = at(value, ...path)
  return typeof v === 'string' && v.trim() !== '' ? v : undefined
}

export function numAt(value: unknown, ...path: number[]): number | undefined {
  const v = at(value, ...path)
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined
}

export function arrAt(value: unknown, ...path: number[]): unknown[] | undefined {
  const v = at(value, ...path)
  return Array.isArray(v) ? v : undefined
}

/**
 * Parses a Maps JSON response. Accepts the raw `)]}'`-prefixed array, the same with the prefix
 * already stripped, and the `{"c":0,"d":")]}'\n[...]"}/*""*\/` envelope Google uses when the
 * request asks for it. Undefined when the body is not Maps JSON (an HTML page, a truncation).
 */
export function parseMapsJson(body: string): unknown {
  let text = body.trim()
  if (text.endsWith(ENVELOPE_SUFFIX)) text = text.slice(0, -ENVELOPE_SUFFIX.length).trimEnd()
  if (text.startsWith(XSSI_PREFIX)) text = text.slice(XSSI_PREFIX.length).trimStart()
  if (!text.startsWith('[') && !text.startsWith('{')) return undefined
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    return undefined
  }
  if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) {
    const inner = (parsed as Record<string, unknown>).d
    return typeof inner === 'string' ? parseMapsJson(inner) : undefined
  }
  return parsed
}

/**
 * Some payloads carry strings that were escaped twice ("placeid\u003dChIJ…" as literal text);
 * decode those escapes so URLs come out usable.
 */
export function unescapeLiteral(s: string): string {
  return s.replace(/\\u([0-9a-fA-F]{4})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)))
}

/** The customer id (cid) inside a fid: its second half as an unsigned 64-bit number, in decimal. */
export function cidFromFid(fid: string): string | undefined {
  if (!FID_PATTERN.test(fid)) return undefined
  const hex = fid.slice(fid.indexOf(':') + 3)
  const cid = BigInt(`0x${hex}`)
  return cid > 0n ? cid.toString() : undefined
}

/** The second half of a fid for a cid ("0x…" lower-case hex), or undefined for a malformed cid. */
export function cidHex(cid: string): string | undefined {
  if (!/^\d{1,20}$/.test(cid)) return undefined
  const n = BigInt(cid)
  return n > 0n && n < 1n << 64n ? `0x${n.toString(16)}` : undefined
}
