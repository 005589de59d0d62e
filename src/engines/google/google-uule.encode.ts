/**
 * Google's `uule` location parameter (version "w"): "w+" followed by the base64 of a small
 * protobuf message — role 2, producer 32, canonical name as field 4. For names under 64 bytes
 * this is the familiar "w+CAIQICI" + length key + base64(name).
 */
export function encodeUule(canonicalName: string): string {
  const name = new TextEncoder().encode(canonicalName)
  const message = [0x08, 0x02, 0x10, 0x20, 0x22, ...varint(name.length), ...name]
  return `w+${Buffer.from(message).toString('base64url')}`
}

/**
 * The coordinates form of `uule` (version "a"): "a+" and the base64 of a small text message
 * naming a point, as Chrome sends for a device's location (role 1, producer 12); the form
 * SerpApi's public converter writes too. `radius:-1` leaves the area to Google.
 */
export function encodeUuleCoordinates(lat: number, lng: number, nowMs = Date.now()): string {
  const e7 = (degrees: number) => Math.round(degrees * 1e7)
  const text = `role:1\nproducer:12\nprovenance:6\ntimestamp:${nowMs * 1000}\nlatlng{\nlatitude_e7:${e7(lat)}\nlongitude_e7:${e7(lng)}\n}\nradius:-1\n`
  return `a+${Buffer.from(text).toString('base64url')}`
}

/** Reads the canonical name back out of a "w+" uule, or undefined when it is not one. */
export function decodeUule(uule: string): string | undefined {
  const m = /^w[+ ](.+)$/.exec(uule)
  if (!m?.[1]) return undefined
  const bytes = Buffer.from(m[1].replace(/\+/g, '-').replace(/\//g, '_'), 'base64url')
  let i = 0
  while (i < bytes.length) {
    const tag = bytes[i++] ?? 0
    if (tag === 0x22) {
      const [len, next] = readVarint(bytes, i)
      return bytes.subarray(next, next + len).toString('utf8')
    }
    // Fields 1 and 2 are varints: skip them.
    i = readVarint(bytes, i)[1]
  }
  return undefined
}

function varint(n: number): number[] {
  const out: number[] = []
  let v = n
  while (v > 0x7f) {
    out.push((v & 0x7f) | 0x80)
    v >>>= 7
  }
  out.push(v)
  return out
}

function readVarint(bytes: Uint8Array, start: number): [number, number] {
  let value = 0
  let shift = 0
  let i = start
  while (i < bytes.length) {
    const b = bytes[i++] ?? 0
    value |= (b & 0x7f) << shift
    if (!(b & 0x80)) break
    shift += 7
  }
  return [value, i]
}
