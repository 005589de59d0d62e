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
  client.on('error', () => {}) // reconnects on its own; /healthz reports the outage, watchRedis logs it
  // Start-up waits a moment for the first connection, so that an unreachable Redis is said at once.
  await new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer)
      client.off('ready', done)
      resolve()
    }
    const timer = setTimeout(done, 2000)
    client.once('ready', done)
  })
  return client
}

/** The URL with its password hidden, for logs. */
export function redactedUrl(url: string): string {
  try {
    const u = new URL(url)
    if (u.password) u.password = '***'
    return u.toString()
  } catch {
    return '(unparsable URL)'
  }
}

interface StateLog {
  warn(msg: string): void
  info(msg: string): void
}

/**
 * Says when Redis (TRAWL_REDIS_URL) is unreachable and when it is back, once per change: the
 * server keeps serving meanwhile (cache, rate limits and signals fall back), so without this an
 * outage would only show in /healthz.
 */
export function watchRedis(client: Redis, url: string, log: StateLog): void {
  const where = `Redis at TRAWL_REDIS_URL=${redactedUrl(url)}`
  let up = client.status === 'ready'
  let lastError = ''
  client.on('error', (err: Error) => {
    lastError = err.message
  })
  if (!up)
    log.warn(
      `${where} is unreachable${lastError ? ` (${lastError})` : ''}: serving without it (cache in the database, rate limits in memory) and retrying in the background`,
    )
  client.on('ready', () => {
    if (!up) log.info(`${where} is reachable: cache, rate limits and signals use it again`)
    up = true
  })
  client.on('close', () => {
    if (up) log.warn(`${where} closed the connection${lastError ? ` (${lastError})` : ''}: serving without it and retrying in the background`)
    up = false
  })
}
