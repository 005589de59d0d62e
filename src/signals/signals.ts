import { randomBytes } from 'node:crypto'
import { z } from 'zod'

/**
 * Small typed messages between the processes of one deployment (API processes and `trawl worker`s
 * on one database): a key changed, work was queued, a crawl was canceled, a proxy was penalised.
 * A signal is a hint that saves waiting; every receiver also has a slower way to learn the same
 * thing (key cache TTL, job polls, the crawl's safety poll), so a lost message costs latency only.
 */
export const Signal = z.discriminatedUnion('type', [
  /** A key was rotated, revoked or had its limits changed: drop it from every key cache. */
  z.object({ type: z.literal('key-changed'), keyId: z.string() }),
  /** An account's plan, rate or member limit changed: drop all its keys. */
  z.object({ type: z.literal('account-keys-changed'), accountId: z.string() }),
  /** Work of this job kind was queued (or became due): idle runners of that kind look now. */
  z.object({ type: z.literal('job-queued'), kind: z.string() }),
  /** DELETE /v1/crawl/{id} flagged a crawl: the worker running it reads the flag now and stops at its next step. */
  z.object({ type: z.literal('crawl-canceled'), crawlId: z.string() }),
  /**
   * A proxy's cool-down as the process that saw the failure computed it (`until` 0: healthy again).
   * `proxy` is a hash of the proxy URL, which may hold credentials; `engine` null: the proxy itself.
   */
  z.object({
    type: z.literal('proxy-penalty'),
    proxy: z.string(),
    engine: z.string().nullable(),
    failures: z.number().int().min(0),
    until: z.number(),
  }),
])
export type Signal = z.infer<typeof Signal>
export type SignalType = Signal['type']
export type SignalOf<T extends SignalType> = Extract<Signal, { type: T }>

export type Transport = 'redis' | 'postgres' | 'memory'

export interface Signals {
  /** How signals leave this process: Redis pub/sub, PostgreSQL LISTEN/NOTIFY, or nowhere. */
  readonly transport: Transport
  /**
   * Delivers to this process's handlers at once (synchronously), then to every other process.
   * Never rejects: a message that could not be sent is logged and left to the receivers' polls.
   */
  publish(signal: Signal): Promise<void>
  /** Handlers run for signals from this process and from every other one; returns the unsubscribe. */
  on<T extends SignalType>(type: T, handler: (signal: SignalOf<T>) => void): () => void
  /** Waits for messages still being sent, then stops listening. */
  close(): Promise<void>
}

export interface SignalLog {
  warn(obj: object, msg: string): void
}

/** What a transport gives the hub: sending one encoded message to every other process. */
export interface Wire {
  send(message: string): Promise<void>
  close(): Promise<void>
}

const Envelope = z.object({ o: z.string(), s: z.unknown() })

/**
 * Handlers, local delivery and the message format shared by every transport. Each hub has an
 * origin id: a transport that echoes a process's own messages back (both do) has them dropped,
 * since local handlers already ran at publish time.
 */
export class SignalHub implements Signals {
  readonly origin = randomBytes(8).toString('hex')
  private readonly handlers = new Map<SignalType, Set<(s: Signal) => void>>()
  private readonly sending = new Set<Promise<void>>()
  private wire: Wire | null = null

  constructor(
    readonly transport: Transport,
    private readonly log: SignalLog,
  ) {}

  /** The transport, once connected; until then (and for 'memory') signals stay in the process. */
  attach(wire: Wire) {
    this.wire = wire
  }

  publish(signal: Signal): Promise<void> {
    this.dispatch(signal)
    if (!this.wire) return Promise.resolve()
    const sent = this.wire
      .send(JSON.stringify({ o: this.origin, s: signal }))
      .catch((err) => this.log.warn({ err, signal: signal.type }, 'signal not sent to other processes; they catch up at their next poll or key cache expiry'))
      .finally(() => this.sending.delete(sent))
    this.sending.add(sent)
    return sent
  }

  on<T extends SignalType>(type: T, handler: (signal: SignalOf<T>) => void): () => void {
    let set = this.handlers.get(type)
    if (!set) {
      set = new Set()
      this.handlers.set(type, set)
    }
    const h = handler as (s: Signal) => void
    set.add(h)
    return () => set.delete(h)
  }

  /** A message from the transport: anything malformed, unknown or our own is ignored. */
  receive(message: string) {
    let parsed: unknown
    try {
      parsed = JSON.parse(message)
    } catch {
      return
    }
    const envelope = Envelope.safeParse(parsed)
    if (!envelope.success || envelope.data.o === this.origin) return
    const signal = Signal.safeParse(envelope.data.s)
    if (signal.success) this.dispatch(signal.data)
  }

  async close() {
    await Promise.allSettled([...this.sending])
    const wire = this.wire
    this.wire = null
    await wire?.close()
  }

  private dispatch(signal: Signal) {
    for (const handler of this.handlers.get(signal.type) ?? []) {
      try {
        handler(signal)
      } catch (err) {
        this.log.warn({ err, signal: signal.type }, 'signal handler failed')
      }
    }
  }
}

/** One process alone (SQLite without Redis): signals reach this process's handlers only. */
export function memorySignals(log: SignalLog = silent): Signals {
  return new SignalHub('memory', log)
}

export const silent: SignalLog = { warn() {} }

/** Proxy cool-downs (engines/upstream/proxy-pool.ts) carried as `proxy-penalty` signals. */
export function proxyPenaltyShare(signals: Signals) {
  return {
    publish: (change: Omit<SignalOf<'proxy-penalty'>, 'type'>) => void signals.publish({ type: 'proxy-penalty', ...change }),
    subscribe: (apply: (change: Omit<SignalOf<'proxy-penalty'>, 'type'>) => void) => {
      signals.on('proxy-penalty', ({ type: _, ...change }) => apply(change))
    },
  }
}
