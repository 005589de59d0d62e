/**
 * Whether an error means the database or Redis is not answering (down, restarting, unreachable,
 * out of connections) rather than a bug: such a call is a 503 `unavailable` with Retry-After,
 * never a 500, and it recovers on its own once the server is back (pg's pool and ioredis both
 * reconnect by themselves).
 */
export function isOutage(err: unknown): boolean {
  for (let e = err as OutageLike | undefined, depth = 0; e && depth < 5; e = e.cause as OutageLike | undefined, depth++) {
    if (typeof e !== 'object') return false
    if (typeof e.code === 'string' && (NETWORK_CODES.has(e.code) || PG_CODES.has(e.code) || e.code.startsWith('08') || e.code === 'SQLITE_BUSY')) {
      return true
    }
    if (e.name === 'MaxRetriesPerRequestError') return true
    if (typeof e.message === 'string' && MESSAGES.some((m) => e?.message?.includes(m))) return true
  }
  return false
}

interface OutageLike {
  code?: unknown
  name?: string
  message?: string
  cause?: unknown
}

/** Socket errors while reaching PostgreSQL or Redis. */
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN'])

/**
 * PostgreSQL SQLSTATEs of a server going away or not taking connections (class 08, connection
 * exceptions, is matched by prefix): admin/crash shutdown, starting up, too many connections.
 */
const PG_CODES = new Set(['57P01', '57P02', '57P03', '53300'])

/** Errors the drivers raise without a code. */
const MESSAGES = [
  // pg / pg-pool
  'timeout exceeded when trying to connect',
  'Connection terminated',
  'Client has encountered a connection error and is not queryable',
  'Client was closed and is not queryable',
  'Connection ended',
  // a database closed for maintenance (ALTER DATABASE … ALLOW_CONNECTIONS false)
  'is not currently accepting connections',
  // ioredis with enableOfflineQueue: false
  "Stream isn't writeable",
  'Connection is closed',
]
