import type { FastifyBaseLogger } from 'fastify'
import type { Redis } from 'ioredis'
import { connectRedis } from './cache/redis.ts'
import { CACHE_TTL_MS, databaseCache, type ResponseCache, redisCache, withMemory } from './cache/response-cache.ts'
import type { Config } from './config.ts'
import { redisHealthShare } from './engines/health.redis.ts'
import { createEngines, type Engines } from './engines/registry.ts'
import { createUpstreamClient, type UpstreamClient } from './engines/upstream/upstream-client.ts'
import type { RobotsCache } from './features/crawl/robots/robots.cache.ts'
import { createRobotsCache } from './features/crawl/site.discovery.ts'
import { KeyCache } from './http/auth.ts'
import { createLimiter, type Limiter } from './http/rate-limit.ts'
import { openStore, type Store } from './store/database.ts'
import { serverSecret } from './store/server-secrets.ts'

/** What routes and job handlers are handed: the services plus a logger and the shared constants. */
export type AppDeps = Services & { log: FastifyBaseLogger; cacheTtlMs: number; usdPerCredit: number }

export function appDeps(services: Services, log: FastifyBaseLogger): AppDeps {
  return { ...services, log, cacheTtlMs: CACHE_TTL_MS, usdPerCredit: services.config.usdPerCredit }
}

/** Everything long-lived that routes and workers share, opened once from the Config. */
export interface Services {
  config: Config
  store: Store
  redis: Redis | null
  cache: ResponseCache
  limiter: Limiter
  keys: KeyCache
  upstream: UpstreamClient
  engines: Engines
  /** robots.txt per origin, shared by map and crawl. */
  robots: RobotsCache
  close(): Promise<void>
}

export async function openServices(config: Config): Promise<Services> {
  const store = await openStore(config.databaseUrl)
  const redis = config.redisUrl ? connectRedis(config.redisUrl) : null
  const upstream = createUpstreamClient(config)
  const reviewsTokenSecret = await serverSecret(store, 'reviews_page_token')
  const engines = createEngines(upstream, {
    reviewsTokenSecret,
    braveApiKey: config.braveApiKey,
    cooldownMs: config.engineCooldownMs,
    consensusDeadlineMs: config.upstreamTimeoutMs,
    share: redis ? redisHealthShare(redis, () => {}) : undefined,
  })
  // Other processes' engine health, read in the background so no search waits on Redis for it.
  const healthSync = redis ? setInterval(() => engines.health.refresh().catch(() => {}), 2000).unref() : null
  return {
    config,
    store,
    redis,
    cache: withMemory(redis ? redisCache(redis) : databaseCache(store)),
    limiter: createLimiter(redis),
    keys: new KeyCache(store, config.keyCacheMs),
    upstream,
    engines,
    robots: createRobotsCache(config),
    async close() {
      if (healthSync) clearInterval(healthSync)
      await upstream.close()
      redis?.disconnect()
      await store.close()
    },
  }
}
