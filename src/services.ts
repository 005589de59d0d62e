import type { Redis } from 'ioredis'
import { connectRedis } from './cache/redis.ts'
import { databaseCache, type ResponseCache, redisCache, withMemory } from './cache/response-cache.ts'
import type { Config } from './config.ts'
import type { RobotsCache } from './features/crawl/robots/robots.cache.ts'
import { createRobotsCache } from './features/crawl/site.discovery.ts'
import { googleEngine } from './features/search/engines/google/google.engine.ts'
import { googleVerticals } from './features/search/engines/google/google.verticals.ts'
import type { SearchEngine } from './features/search/engines/search-engine.ts'
import { createUpstreamClient, type UpstreamClient } from './features/search/engines/upstream/upstream-client.ts'
import { KeyCache } from './http/auth.ts'
import { createLimiter, type Limiter } from './http/rate-limit.ts'
import { openStore, type Store } from './store/database.ts'
import { serverSecret } from './store/server-secrets.ts'

/** Everything long-lived that routes and workers share, opened once from the Config. */
export interface Services {
  config: Config
  store: Store
  redis: Redis | null
  cache: ResponseCache
  limiter: Limiter
  keys: KeyCache
  upstream: UpstreamClient
  engines: Map<string, SearchEngine>
  /** robots.txt per origin, shared by map and crawl. */
  robots: RobotsCache
  close(): Promise<void>
}

export async function openServices(config: Config): Promise<Services> {
  const store = await openStore(config.databaseUrl)
  const redis = config.redisUrl ? connectRedis(config.redisUrl) : null
  const upstream = createUpstreamClient(config)
  const reviewsTokenSecret = await serverSecret(store, 'reviews_page_token')
  const engines = new Map<string, SearchEngine>([['google', googleEngine(upstream, googleVerticals({ reviewsTokenSecret }))]])
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
      await upstream.close()
      redis?.disconnect()
      await store.close()
    },
  }
}
