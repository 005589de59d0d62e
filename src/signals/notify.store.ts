import { sql } from 'kysely'
import type pg from 'pg'
import { loadPg, type Store } from '../store/database.ts'
import { SignalHub, type SignalLog, type Signals } from './signals.ts'

export const NOTIFY_CHANNEL = 'trawl_signals'
const RECONNECT_MS = 1000

/** One NOTIFY to every process listening on the database. */
export async function notify(store: Store, message: string) {
  await sql`select pg_notify(${NOTIFY_CHANNEL}, ${message})`.execute(store.db)
}

/**
 * Signals over PostgreSQL LISTEN/NOTIFY, for deployments on PostgreSQL without Redis. NOTIFY goes
 * through the store's pool; LISTEN needs a connection of its own, held for the process's life and
 * opened again a second after it breaks (notifications sent meanwhile are lost; polls cover them).
 * Payloads are a few hundred bytes, far under NOTIFY's 8000-byte limit.
 */
export async function postgresSignals(store: Store, databaseUrl: string, log: SignalLog): Promise<Signals> {
  const hub = new SignalHub('postgres', log)
  let closed = false
  let client: pg.Client | null = null
  let retry: NodeJS.Timeout | null = null

  const { Client } = await loadPg()
  const listen = async () => {
    const c = new Client({ connectionString: databaseUrl, connectionTimeoutMillis: 5000 })
    c.on('notification', (n) => {
      if (n.channel === NOTIFY_CHANNEL && n.payload) hub.receive(n.payload)
    })
    c.on('error', () => reconnect(c))
    c.on('end', () => reconnect(c))
    try {
      await c.connect()
      await c.query(`LISTEN ${NOTIFY_CHANNEL}`)
    } catch (err) {
      c.end().catch(() => {})
      throw err
    }
    if (closed) {
      await c.end().catch(() => {})
      return
    }
    client = c
  }

  const reconnect = (broken: pg.Client) => {
    if (closed || client !== broken) return
    client = null
    broken.end().catch(() => {})
    const attempt = () => {
      retry = null
      if (closed) return
      listen().catch((err) => {
        log.warn({ err }, 'could not LISTEN for signals; retrying')
        retry = setTimeout(attempt, RECONNECT_MS)
        retry.unref()
      })
    }
    retry = setTimeout(attempt, RECONNECT_MS)
    retry.unref()
  }

  // The first LISTEN is part of start-up: the database is reachable, or openStore already failed.
  await listen()
  hub.attach({
    send: (message) => notify(store, message),
    close: async () => {
      closed = true
      if (retry) clearTimeout(retry)
      const c = client
      client = null
      await c?.end().catch(() => {})
    },
  })
  return hub
}
