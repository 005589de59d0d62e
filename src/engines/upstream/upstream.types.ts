/** Shapes shared by the upstream client and the engines that use it. */
import type { EngineGate } from '../gates/gate.types.ts'

export type AttemptOutcome = 'ok' | 'blocked' | 'timeout' | 'error'

/** A route entry: an upstream attempt, or a provider `auto` / `consensus` skipped (blocked or drifting). */
export type RouteOutcome = AttemptOutcome | 'skipped'

/**
 * One try at fetching an engine page through one route (direct or one proxy).
 * The list of these becomes `meta.route` in search responses, so it never carries
 * proxy credentials or the mapped test address.
 */
export interface RouteAttempt {
  engine: string
  /** The provider's route this attempt was made for (`wml`, `browser`, `html`, …); absent for verticals. */
  route?: string
  /** The engine host asked for (before TRAWL_UPSTREAM_HOSTS mapping). */
  host: string
  /** Proxy pool name, or null for a direct connection. */
  pool: string | null
  /** `host:port` of the proxy used; never its credentials. */
  proxy?: string
  /** HTTP status of the last response in this attempt, when one came back. */
  status?: number
  outcome: RouteOutcome
  reason?: string
  ms: number
}

/** What a block detector sees. `body` is empty when the block was a redirect that was not followed. */
export interface BlockCheckInput {
  status: number
  url: string
  body: string
}

export type BlockDetector = (r: BlockCheckInput) => null | { reason: string }

export interface FetchPageRequest {
  engine: string
  url: string
  headers?: Record<string, string>
  /** Sent as a POST of this form (application/x-www-form-urlencoded) instead of a GET. */
  form?: Record<string, string>
  /** Engine-specific captcha / consent / "unusual traffic" detection; a hit counts as blocked. */
  detectBlock?: BlockDetector
  /** Aborting it stops the fetch; the abort reason is rethrown as is (it is not an upstream failure). */
  signal?: AbortSignal
  /** Overall deadline for all attempts; defaults to config.upstreamTimeoutMs. */
  timeoutMs?: number
  /** Draw the page in the browser (its scripts run) instead of fetching it: the `browser` routes. */
  render?: boolean
  /** The engine's proof-of-work gate: a challenge it recognises is solved and the request asked again. */
  gate?: EngineGate
}

/**
 * The headless browser as the upstream client uses it (net/browser/renderer.ts): one kept
 * context per session key (an engine host), so consent and cookies carry over between searches.
 */
export interface EngineBrowser {
  readonly available: boolean
  render(
    url: string,
    opts: {
      timeoutMs: number
      signal?: AbortSignal
      session?: { key: string; userAgent?: string }
      /** Sent on the navigation and the page's other requests to its origin, this render only (X-Forwarded-Host to a mapped upstream). */
      extraHeaders?: Record<string, string>
    },
  ): Promise<{ url: string; status: number; html: string }>
}

export interface FetchedPage {
  status: number
  /** Final URL as the engine sees it (engine host, after redirects), not the mapped test address. */
  url: string
  body: string
  attempts: RouteAttempt[]
}

export interface ProxyHealth {
  pool: string
  proxy: string
  healthy: boolean
  consecutiveFailures: number
  /** ISO time when the cool-down ends; null when healthy. */
  coolingUntil: string | null
  lastOutcome: AttemptOutcome | null
  /** Engines that blocked this proxy, with the end of that engine's cool-down. */
  blockedBy: Record<string, string>
}
