import type { FastifyBaseLogger } from 'fastify'
import type { Redis } from 'ioredis'
import type { ResponseCache } from './cache/response-cache.ts'
import type { Config } from './config.ts'
import type { Engines } from './engines/registry.ts'
import type { UpstreamClient } from './engines/upstream/upstream-client.ts'
import type { KeyCache } from './http/auth.ts'
import type { Limiter } from './http/rate-limit.ts'
import type { Renderer } from './net/browser/renderer.ts'
import type { ReaderPool } from './reader/reader.pool.ts'
import type { Signals } from './signals/signals.ts'
import type { RobotsCache } from './site/robots/robots.cache.ts'
import type { Store } from './store/database.ts'

/**
 * The shapes the composition root (services.ts) hands down: declared here, below every feature,
 * so that routes and workers name them without importing the root that builds them.
 */

/** What routes and job handlers are handed: the services plus a logger and the shared constants. */
export type AppDeps = Services & { log: FastifyBaseLogger; cacheTtlMs: number; usdPerCredit: number }

/** Everything long-lived that routes and workers share, opened once from the Config. */
export interface Services {
  config: Config
  store: Store
  redis: Redis | null
  cache: ResponseCache
  limiter: Limiter
  keys: KeyCache
  /** Cross-process hints: key changes, queued work, crawl cancels, proxy cool-downs (src/signals). */
  signals: Signals
  upstream: UpstreamClient
  engines: Engines
  /** Headless Chromium for pages that need JavaScript (docs/rendering.md); launched at first use. */
  renderer: Renderer
  /** robots.txt per origin, shared by map and crawl. */
  robots: RobotsCache
  /** Reader threads for page reading (TRAWL_READER_THREADS); started by `serve` and `worker`, or at the first read. */
  reader: ReaderPool
  close(): Promise<void>
}
