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
 * (loopback, private, linkLocal, carrierGradeNat, uniqueLocal, unspecified, reserved, 6to4,
 * teredo, rfc6052 NAT64...) so "only `unicast`" refuses them all, including IPv6 forms that embed
 * an IPv4 address. IPv4-mapped IPv6 (`::ffff:127.0.0.1`) is unwrapped first: the kernel would
 * connect it to the IPv4 address.
 */
export function isPublicAddress(address: string): boolean {
  const bare = stripBrackets(address)
  if (!isIP(bare)) return false
  let ip: ipaddr.IPv4 | ipaddr.IPv6 = ipaddr.parse(bare)
  if (ip.kind() === 'ipv6' && (ip as ipaddr.IPv6).isIPv4MappedAddress()) ip = (ip as ipaddr.IPv6).toIPv4Address()
  return ip.range() === 'unicast'
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
