import type { Redis } from 'ioredis'
import { SignalHub, type SignalLog, type Signals } from './signals.ts'

export const SIGNAL_CHANNEL = 'trawl:signals'
const FIRST_SUBSCRIBE_WAIT_MS = 2000

/**
 * Signals over Redis pub/sub: published on the shared connection, received on a second one (a
 * subscribed connection can do nothing else). The subscriber queues its SUBSCRIBE until Redis
 * answers and subscribes again after every reconnect; messages published while it was away are
 * lost, which the receivers' polls cover.
 */
export async function redisSignals(redis: Redis, log: SignalLog): Promise<Signals> {
  const hub = new SignalHub('redis', log)
  const subscriber = redis.duplicate({ enableOfflineQueue: true, maxRetriesPerRequest: null, autoResubscribe: true })
  subscriber.on('error', () => {}) // reconnects on its own; /healthz reports a Redis outage
  subscriber.on('message', (channel: string, message: string) => {
    if (channel === SIGNAL_CHANNEL) hub.receive(message)
  })
  const subscribed = subscriber.subscribe(SIGNAL_CHANNEL)
  // Start-up waits briefly for the subscription, never for a Redis that is down.
  const waited = await Promise.race([
    subscribed.then(
      () => true,
      () => false,
    ),
    new Promise<false>((resolve) => setTimeout(resolve, FIRST_SUBSCRIBE_WAIT_MS, false).unref()),
  ])
  if (!waited) log.warn({}, 'Redis did not accept the signal subscription yet; it is retried in the background')
  hub.attach({
    send: async (message) => {
      await redis.publish(SIGNAL_CHANNEL, message)
    },
    close: async () => {
      subscriber.disconnect()
    },
  })
  return hub
}
