import { ApiError } from '../../errors.ts'
import { parseHttpUrl, safeFetch } from '../../net/safe-fetch.ts'
import { allowAllRules, disallowAllRules, parseRobots, type RobotsRules } from './robots.parse.ts'
import { decodeRobotsBody } from './robots-lines.parse.ts'

/**
 * - found: 2xx, parsed;
 * - not_found: 4xx, too many redirects or an unfollowable 3xx: "unavailable", allow all;
 * - error: 5xx, 429, or a 2xx body we cannot read: disallow all;
 * - unreachable: no answer (refused, reset, timeout, DNS, private address): disallow all.
 */
export type RobotsStatus = 'found' | 'not_found' | 'error' | 'unreachable'

export interface LoadedRobots extends RobotsRules {
  status: RobotsStatus
  /** For crawl stats (`stats.robots`): `found`, `not_found (404)`, `server_error (503): disallow all`… */
  statusText: string
}

/**
 * What fetching a robots.txt came to, before parsing: small, plain data, so robots.cache can share
 * it between processes (Redis) and every process parses it for its own use.
 */
export interface RobotsFile {
  status: RobotsStatus
  statusText: string
  /** `found` only: the decoded text and the URL it was finally read from. */
  text?: string
  url?: string
}

export interface LoadRobotsOptions {
  allowPrivateNetwork: boolean
  timeoutMs: number
  proxyUrl?: string
  /** Our product token in the file's user-agent lines. */
  userAgent?: string
}

// RFC 9309 §2.3.1.2 asks for at least five redirects; Google follows exactly five.
const MAX_REDIRECTS = 5
// Only the first 500 KiB are parsed, but a larger file must not fail the fetch: read up to this.
const MAX_FETCH_BYTES = 4 * 1024 * 1024

/**
 * Fetches `<origin>/robots.txt` through safeFetch (private-network guard on every hop) and applies
 * RFC 9309 §2.3.1's status rules. Every fetch failure becomes a status with its rules; only an
 * `origin` that is not an http(s) URL throws (invalid_request).
 * The rules found apply to `origin` even when the file was reached by a redirect elsewhere.
 */
export async function loadRobots(origin: string, opts: LoadRobotsOptions): Promise<LoadedRobots> {
  return robotsRules(await fetchRobotsFile(origin, opts), opts.userAgent)
}

/** The rules a fetched file stands for: parsed when found, allow all when unavailable, else disallow all. */
export function robotsRules(file: RobotsFile, userAgent = 'Trawl'): LoadedRobots {
  const { status, statusText } = file
  if (status === 'found') return { ...parseRobots(file.text ?? '', file.url ?? '', userAgent), status, statusText }
  return { ...(status === 'not_found' ? allowAllRules() : disallowAllRules()), status, statusText }
}

/** The fetch half of `loadRobots`: status rules applied, nothing parsed. */
export async function fetchRobotsFile(origin: string, opts: LoadRobotsOptions): Promise<RobotsFile> {
  const robotsUrl = `${parseHttpUrl(origin).origin}/robots.txt`
  let res: Awaited<ReturnType<typeof safeFetch>>
  try {
    res = await safeFetch(robotsUrl, {
      allowPrivateNetwork: opts.allowPrivateNetwork,
      timeoutMs: opts.timeoutMs,
      proxyUrl: opts.proxyUrl,
      maxBytes: MAX_FETCH_BYTES,
      maxRedirects: MAX_REDIRECTS,
      acceptErrorStatus: true,
      anyContentType: true,
      headers: { accept: 'text/plain, */*;q=0.5' },
    })
  } catch (e) {
    return fromFetchError(e)
  }
  const { status } = res
  if (status >= 200 && status < 300) {
    return { status: 'found', statusText: 'found', text: decodeRobotsBody(res.body), url: res.url }
  }
  // Google treats 429 as a server error, and we follow it: a site asking us to slow down is not
  // inviting a full crawl, which "4xx: allow all" would start.
  if (status === 429) return { status: 'error', statusText: 'rate_limited (429): disallow all' }
  if (status >= 500) return { status: 'error', statusText: `server_error (${status}): disallow all` }
  // 4xx, and a 3xx safeFetch could not follow (no Location): the file is unavailable.
  return { status: 'not_found', statusText: `not_found (${status})` }
}

function fromFetchError(e: unknown): RobotsFile {
  const message = e instanceof Error ? e.message : String(e)
  // §2.3.1.2: past the redirect limit the file may be treated as unavailable.
  if (e instanceof ApiError && message.startsWith('more than ')) {
    return { status: 'not_found', statusText: 'not_found (too many redirects)' }
  }
  // The server answered but its body is unusable (too large, broken compression): not "unreachable",
  // yet we cannot tell what it forbids, so nothing is allowed.
  if (e instanceof ApiError && (message.startsWith('page is larger') || message.includes('content encoding') || message.includes('decompressed'))) {
    return { status: 'error', statusText: `error (${message}): disallow all` }
  }
  return { status: 'unreachable', statusText: `unreachable (${unreachableReason(e)}): disallow all` }
}

function unreachableReason(e: unknown): string {
  if (e instanceof ApiError && e.code === 'upstream_timeout') return 'timeout'
  if (e instanceof ApiError && e.code === 'invalid_request') return 'private address'
  for (let cur = e, depth = 0; cur && depth < 5; cur = (cur as { cause?: unknown }).cause, depth++) {
    const code = (cur as { code?: unknown }).code
    if (code === 'ECONNREFUSED') return 'connection refused'
    if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET') return 'connection reset'
    if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'host not found'
  }
  return e instanceof Error ? e.message.slice(0, 200) : 'fetch failed'
}
