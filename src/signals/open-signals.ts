import type { Redis } from 'ioredis'
import type { Config } from '../config.ts'
import type { Store } from '../store/database.ts'
import { notify, postgresSignals } from './notify.store.ts'
import { redisSignals, SIGNAL_CHANNEL } from './redis.signals.ts'
import { memorySignals, SignalHub, type SignalLog, type Signals, silent } from './signals.ts'

/**
 * The process's signals: Redis pub/sub when TRAWL_REDIS_URL is set, else PostgreSQL LISTEN/NOTIFY
 * when the store is PostgreSQL, else in-process only (SQLite alone: one process, or processes that
 * learn of each other's changes at their polls).
 */
export async function openSignals(config: Pick<Config, 'databaseUrl'>, store: Store, redis: Redis | null, log: SignalLog = silent): Promise<Signals> {
  return redis ? await redisSignals(redis, log) : store.dialect === 'postgres' ? await postgresSignals(store, config.databaseUrl, log) : memorySignals(log)
}

/**
 * Signals that only go out, for a short-lived command (`trawl keys revoke`): a Redis connection of
 * its own or NOTIFY through the store, no listening. `close()` waits until what was published is sent.
 */
export async function openPublisher(config: Pick<Config, 'redisUrl'>, store: Store, log: SignalLog = silent): Promise<Signals> {
  const hub = new SignalHub(config.redisUrl ? 'redis' : store.dialect === 'postgres' ? 'postgres' : 'memory', log)
  if (config.redisUrl) {
    const { Redis } = await import('ioredis')
    const redis = new Redis(config.redisUrl, { maxRetriesPerRequest: 1, connectTimeout: 2000, lazyConnect: true })
    redis.on('error', () => {})
    hub.attach({
      send: async (message) => {
        if (redis.status === 'wait') await redis.connect()
        await redis.publish(SIGNAL_CHANNEL, message)
      },
      close: async () => {
        redis.disconnect()
      },
    })
  } else if (store.dialect === 'postgres') {
    hub.attach({ send: (message) => notify(store, message), close: async () => {} })
  }
  return hub
}
