import { parseHttpUrl } from '../../../net/safe-fetch.ts'
import { type LoadedRobots, type LoadRobotsOptions, loadRobots } from './robots.load.ts'

export interface RobotsCacheOptions extends LoadRobotsOptions {
  /** How long a found or unavailable (4xx) robots.txt is reused; default 1 hour. */
  ttlMs?: number
  /** How long a 5xx or unreachable answer is reused; default 5 minutes, so a site that recovers is read again soon. */
  errorTtlMs?: number
  /** Origins kept; the least recently used is dropped past it. Default 1,000. */
  maxEntries?: number
  /** Clock, for tests of expiry. */
  now?: () => number
}

interface Entry {
  /** Infinity while the fetch is in flight: it is shared, never started twice. */
  expiresAt: number
  value: Promise<LoadedRobots>
}

/**
 * robots.txt rules per origin, shared by every crawl and map call in the process. RFC 9309 §2.4
 * lets a crawler cache the file and asks it not to keep it past 24 hours; an hour keeps a long
 * crawl on one copy while picking up edits the same day. Concurrent lookups for one origin share
 * one fetch. (In-process only: each worker process fetches a site's robots.txt once per TTL.)
 */
export class RobotsCache {
  private readonly entries = new Map<string, Entry>()
  private readonly ttlMs: number
  private readonly errorTtlMs: number
  private readonly maxEntries: number
  private readonly now: () => number

  constructor(private readonly opts: RobotsCacheOptions) {
    this.ttlMs = opts.ttlMs ?? 60 * 60 * 1000
    this.errorTtlMs = opts.errorTtlMs ?? 5 * 60 * 1000
    this.maxEntries = opts.maxEntries ?? 1000
    this.now = opts.now ?? Date.now
  }

  /** The rules for the origin of `url` (any URL on the site); fetched at most once per TTL. */
  get(url: string): Promise<LoadedRobots> {
    const origin = parseHttpUrl(url).origin
    const hit = this.entries.get(origin)
    if (hit && hit.expiresAt > this.now()) {
      // Re-insert so Map order is least-recently-used first.
      this.entries.delete(origin)
      this.entries.set(origin, hit)
      return hit.value
    }
    const entry: Entry = { expiresAt: Number.POSITIVE_INFINITY, value: loadRobots(origin, this.opts) }
    this.entries.set(origin, entry)
    entry.value.then(
      (robots) => {
        const ttl = robots.status === 'found' || robots.status === 'not_found' ? this.ttlMs : this.errorTtlMs
        entry.expiresAt = this.now() + ttl
      },
      // loadRobots only throws for a non-URL origin, which parseHttpUrl already refused; if it ever
      // does, the next lookup must try again rather than reuse the failure.
      () => {
        if (this.entries.get(origin) === entry) this.entries.delete(origin)
      },
    )
    while (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value!)
    return entry.value
  }

  /** Whether our agent may fetch `url`, by its own origin's robots.txt. */
  async isAllowed(url: string): Promise<boolean> {
    return (await this.get(url)).isAllowed(url)
  }

  get size(): number {
    return this.entries.size
  }

  clear(): void {
    this.entries.clear()
  }
}
