import type { Redis } from 'ioredis'

/**
 * One shared Redis connection for cache and rate limits. Commands fail fast while Redis is down
 * (no offline queue), so callers fall back instead of hanging.
 */
export async function connectRedis(url: string): Promise<Redis> {
  // Loaded only when Redis is configured (about 20 MB resident otherwise carried for nothing).
  const { Redis } = await import('ioredis')
  const client = new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 2000,
    lazyConnect: false,
  })
  client.on('error', () => {}) // reconnects on its own; /healthz reports the outage
  return client
}
