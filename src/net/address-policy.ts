import { isIP } from 'node:net'
import ipaddr from 'ipaddr.js'

/** Where a connection is about to go; the port lets tests allow one loopback server and refuse another. */
export interface ConnectTarget {
  address: string
  port: number
  hostname: string
}

/** Decides whether a connection may be opened. Runs for every connection, so every redirect hop. */
export type AddressPolicy = (target: ConnectTarget) => boolean

export const stripBrackets = (host: string) => (host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host)

/**
 * True only for globally routable unicast addresses. ipaddr.js names every special range
 * (loopback, private, linkLocal, carrierGradeNat, uniqueLocal, unspecified, reserved...) and only
 * `unicast` passes. An IPv6 address that embeds an IPv4 address is classed by what it embeds
 * (`embeddedIPv4`), since that is where the packets end up.
 */
export function isPublicAddress(address: string): boolean {
  const bare = stripBrackets(address)
  if (!isIP(bare)) return false
  const ip = ipaddr.parse(hexTail(bare))
  if (ip.kind() === 'ipv4') return ip.range() === 'unicast'
  const embedded = embeddedIPv4(ip as ipaddr.IPv6)
  if (embedded === 'refused') return false
  if (embedded) return embedded.every((v4) => v4.range() === 'unicast')
  return ip.range() === 'unicast'
}

/**
 * `::a.b.c.d` written with its IPv4 tail in hex (`::7f00:1`, as the WHATWG URL parser writes it).
 * ipaddr.js reads a dotted tail after a bare `::` as IPv4-mapped (`::127.0.0.1` becomes
 * `::ffff:7f00:1`), which is not the address the kernel is given.
 */
function hexTail(address: string): string {
  const m = /^(.*:)(\d+)\.(\d+)\.(\d+)\.(\d+)(%.*)?$/.exec(address)
  if (!m) return address
  const [a, b, c, d] = m.slice(2, 6).map(Number) as [number, number, number, number]
  return `${m[1]}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}${m[6] ?? ''}`
}

const v4 = (hi: number, lo: number) => new ipaddr.IPv4([hi >> 8, hi & 0xff, lo >> 8, lo & 0xff])

/**
 * The IPv4 address(es) an IPv6 address leads to, each of which must be public; `refused` for a
 * form whose IPv4 address cannot be told and for the rest of 0000::/8, which the IETF keeps
 * reserved; null for an IPv6 address that embeds none.
 *
 * - IPv4-mapped `::ffff:a.b.c.d` (RFC 4291 2.5.5.2): the kernel connects to a.b.c.d itself.
 * - IPv4-translated `::ffff:0:a.b.c.d` (RFC 6145 SIIT): a translator delivers it to a.b.c.d.
 * - IPv4-compatible `::a.b.c.d` (RFC 4291 2.5.5.1, deprecated): an automatic tunnel (sit) sends
 *   it to a.b.c.d. Classed by a.b.c.d; `::` and `::1` sit in this range too and embed 0.0.0.0 and
 *   0.0.0.1, which are refused anyway.
 * - NAT64 well-known prefix `64:ff9b::/96` (RFC 6052): the translator connects to the last 32 bits.
 *   A DNS64 network answers every IPv4-only site in it, so a public embedded address is read.
 * - NAT64 local-use `64:ff9b:1::/48` (RFC 8215): refused whatever it holds. The network picks a
 *   prefix length from /48 to /96 and the IPv4 address sits in other bits for each, so which
 *   address the translator would reach cannot be told from the address alone.
 * - 6to4 `2002:AABB:CCDD::/48` (RFC 3056): packets are tunnelled to AA.BB.CC.DD (by this host's
 *   6to4 interface, or a relay).
 * - Teredo `2001:0:SSSS:SSSS:flags:port:CCCC:CCCC` (RFC 4380): packets go to the client's public
 *   address (the last 32 bits, inverted) through its server (bits 32-63); both must be public.
 */
function embeddedIPv4(ip: ipaddr.IPv6): ipaddr.IPv4[] | 'refused' | null {
  const p = ip.parts
  if (p[0]! < 0x100) {
    const last = [v4(p[6]!, p[7]!)]
    const zero64 = p[0] === 0 && p[1] === 0 && p[2] === 0 && p[3] === 0
    if (zero64 && p[4] === 0 && (p[5] === 0 || p[5] === 0xffff)) return last // compatible, mapped
    if (zero64 && p[4] === 0xffff && p[5] === 0) return last // translated
    if (p[0] === 0x64 && p[1] === 0xff9b && p[2] === 0 && p[3] === 0 && p[4] === 0 && p[5] === 0) return last // NAT64
    return 'refused' // the rest of 0000::/8 (reserved by the IETF), 64:ff9b:1::/48 among it
  }
  if (p[0] === 0x2002) return [v4(p[1]!, p[2]!)]
  if (p[0] === 0x2001 && p[1] === 0) return [v4(p[2]!, p[3]!), v4(~p[6]! & 0xffff, ~p[7]! & 0xffff)]
  return null
}

export const publicOnly: AddressPolicy = (t) => isPublicAddress(t.address)
export const allowAll: AddressPolicy = () => true

/** The one wording of the refusal, so the route and the tests agree on it. */
export const PRIVATE_ADDRESS_MESSAGE = 'url resolves to a private or reserved address; only public internet addresses can be read'

/** Marks a refusal inside undici's connect path so safeFetch can tell it from a network failure. */
export class BlockedAddressError extends Error {
  readonly code = 'ERR_TRAWL_BLOCKED_ADDRESS'
  constructor(readonly target: ConnectTarget) {
    super(`refused connection to ${target.address} (${target.hostname})`)
  }
}
