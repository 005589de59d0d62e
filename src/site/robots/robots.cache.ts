import { parseHttpUrl } from '../../net/safe-fetch.ts'
import { fetchRobotsFile, type LoadedRobots, type LoadRobotsOptions, type RobotsFile, type RobotsStatus, robotsRules } from './robots.load.ts'

/** A fetched file with the time it was fetched, as the processes of a deployment share it. */
export interface StoredRobots extends RobotsFile {
  fetchedAt: number
}

/** Where processes share fetched robots.txt files (robots.redis.ts); failures only mean fetching again. */
export interface SharedRobots {
  get(origin: string): Promise<StoredRobots | null>
  set(origin: string, file: StoredRobots, ttlMs: number): Promise<void>
}

export interface RobotsCacheOptions extends LoadRobotsOptions {
  /** How long a found or unavailable (4xx) robots.txt is reused; default 1 hour. */
  ttlMs?: number
  /** How long a 5xx or unreachable answer is reused; default 5 minutes, so a site that recovers is read again soon. */
  errorTtlMs?: number
  /** Origins kept; the least recently used is dropped past it. Default 1,000. */
  maxEntries?: number
  /** Clock, for tests of expiry. */
  now?: () => number
  /** Shared with the other processes (Redis): a site's robots.txt is then fetched once per TTL per deployment. */
  shared?: SharedRobots
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
 * one fetch. With `shared` (Redis), a file another process fetched is used until its TTL ends
 * instead of fetching it again.
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
    const file = this.file(origin)
    const entry: Entry = { expiresAt: Number.POSITIVE_INFINITY, value: file.then((f) => robotsRules(f, this.opts.userAgent)) }
    this.entries.set(origin, entry)
    file.then(
      (f) => {
        entry.expiresAt = f.fetchedAt + this.ttlFor(f.status)
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

  private ttlFor(status: RobotsStatus): number {
    return status === 'found' || status === 'not_found' ? this.ttlMs : this.errorTtlMs
  }

  /** The shared copy while it is fresh, else a fetch (then shared). */
  private async file(origin: string): Promise<StoredRobots> {
    const shared = this.opts.shared
    const hit = shared ? await shared.get(origin).catch(() => null) : null
    if (hit && hit.fetchedAt + this.ttlFor(hit.status) > this.now()) return hit
    const file: StoredRobots = { ...(await fetchRobotsFile(origin, this.opts)), fetchedAt: this.now() }
    if (shared) await shared.set(origin, file, this.ttlFor(file.status)).catch(() => {})
    return file
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
