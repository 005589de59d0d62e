import { isIP } from 'node:net'
import ipaddr from 'ipaddr.js'
import { ApiError } from '../../errors.ts'
import { stripBrackets } from '../../net/address-policy.ts'

/**
 * DNS-rebinding guard for /mcp (the MCP transport spec asks servers to check Origin, and a local
 * server to check Host). A page on evil.example whose name is re-pointed at this server's address
 * reaches it with `Host: evil.example` and `Origin: http://evil.example`; both are refused.
 *
 * - Host must name this server: the host of TRAWL_BASE_URL or TRAWL_APP_URL, the address it is
 *   bound to (TRAWL_HOST, unless a wildcard), or a loopback name or address (localhost,
 *   127.0.0.0/8, ::1). The port is not compared: proxies and port mappings change it.
 * - Origin, when sent (browsers send it; desktop clients and SDKs do not), must be exactly the
 *   origin of TRAWL_BASE_URL or TRAWL_APP_URL.
 */
export function hostOriginGuard(config: { baseUrl: string; appUrl: string; host: string }) {
  const hosts = new Set<string>()
  const origins = new Set<string>()
  for (const address of [config.baseUrl, config.appUrl]) {
    const url = new URL(address)
    hosts.add(stripBrackets(url.hostname).toLowerCase())
    origins.add(url.origin.toLowerCase())
  }
  const bound = stripBrackets(config.host).toLowerCase()
  if (bound && bound !== '0.0.0.0' && bound !== '::') hosts.add(bound)

  return (host: string | undefined, origin: string | undefined) => {
    const name = host ? hostnameOf(host) : null
    if (!name) throw new ApiError('forbidden', 'a Host header is required on /mcp')
    if (!hosts.has(name) && !isLoopback(name)) {
      throw new ApiError(
        'forbidden',
        `Host ${host} is not an address of this server; /mcp answers requests for ${[...hosts].join(', ')} or a loopback address (set TRAWL_BASE_URL to the address clients use)`,
      )
    }
    if (origin !== undefined && !origins.has(normalOrigin(origin))) {
      throw new ApiError('forbidden', `Origin ${origin} may not call /mcp; only pages served from ${[...origins].join(' or ')} may`)
    }
  }
}

function hostnameOf(host: string): string | null {
  try {
    return stripBrackets(new URL(`http://${host}`).hostname).toLowerCase()
  } catch {
    return null
  }
}

function normalOrigin(origin: string): string {
  try {
    return new URL(origin).origin.toLowerCase()
  } catch {
    return origin.toLowerCase()
  }
}

export function isLoopback(name: string): boolean {
  if (name === 'localhost' || name.endsWith('.localhost')) return true
  if (!isIP(name)) return false
  let ip: ipaddr.IPv4 | ipaddr.IPv6 = ipaddr.parse(name)
  if (ip.kind() === 'ipv6' && (ip as ipaddr.IPv6).isIPv4MappedAddress()) ip = (ip as ipaddr.IPv6).toIPv4Address()
  return ip.range() === 'loopback'
}
