import { sql } from 'kysely'
import type { Store } from '../store/database.ts'

/**
 * Background work (crawls, batches, monitors, webhook deliveries) lives in rows of each feature's
 * own table, with these columns: `id`, `status` ('queued' | 'running' | ...), `run_at`,
 * `lease_owner`, `lease_expires_at`, `attempts`. A worker claims due rows with a lease; a worker that
 * dies simply lets its lease expire and another claims the row again. PostgreSQL skips rows another
 * worker is claiming (FOR UPDATE SKIP LOCKED); SQLite has one writer at a time, so the same UPDATE
 * is already exclusive there.
 */
export interface ClaimOptions {
  workerId: string
  leaseMs: number
  limit: number
  now?: number
}

export async function claimDue(store: Store, table: string, opts: ClaimOptions): Promise<string[]> {
  return (await claimDueWith(store, table, opts)).map((r) => r.id)
}

/**
 * claimDue, also returning one more column of each claimed row (the runner's: its request id, for
 * log lines).
 */
export async function claimDueWith(store: Store, table: string, opts: ClaimOptions, column?: string): Promise<{ id: string; value?: string | null }[]> {
  const now = opts.now ?? Date.now()
  const t = sql.table(table)
  const lock = store.dialect === 'postgres' ? sql`for update skip locked` : sql``
  const result = await sql<{ id: string; value?: string | null }>`
    update ${t} set status = 'running', lease_owner = ${opts.workerId}, lease_expires_at = ${now + opts.leaseMs}, attempts = attempts + 1
    where id in (
      select id from ${t}
      where (status = 'queued' and run_at <= ${now}) or (status = 'running' and lease_expires_at < ${now})
      order by run_at
      limit ${opts.limit}
      ${lock}
    )
    returning id${column ? sql`, ${sql.ref(column)} as value` : sql``}`.execute(store.db)
  return result.rows
}

/** Extends a lease the worker still holds; false means it was lost (expired and claimed elsewhere). */
export async function renewLease(store: Store, table: string, id: string, workerId: string, leaseMs: number): Promise<boolean> {
  try {
    const result = await sql`
      update ${sql.table(table)} set lease_expires_at = ${Date.now() + leaseMs}
      where id = ${id} and lease_owner = ${workerId} and status = 'running'`.execute(store.leases ?? store.db)
    return Number(result.numAffectedRows) === 1
  } catch (err) {
    // PostgreSQL's lease connections give up on a row lock after a second (database.ts): the row is
    // held by this worker's own transaction (the job ending, a crawl paying for a page), which no
    // claim can get past either (SKIP LOCKED), so the lease is still ours.
    if ((err as { code?: string }).code === LOCK_NOT_AVAILABLE) return true
    throw err
  }
}

const LOCK_NOT_AVAILABLE = '55P03'

/** Ends a lease with a final (or queued-again) status, only if this worker still holds it. */
export async function releaseLease(store: Store, table: string, id: string, workerId: string, status: string): Promise<boolean> {
  const result = await sql`
    update ${sql.table(table)} set status = ${status}, lease_owner = null, lease_expires_at = null
    where id = ${id} and lease_owner = ${workerId}`.execute(store.db)
  return Number(result.numAffectedRows) === 1
}

/**
 * Back to the queue, due now, for a job its handler left unfinished on a graceful stop; fenced on
 * the lease like releaseLease, and only while still 'running' (a handler that ended it keeps its end).
 */
export async function requeueLeased(store: Store, table: string, id: string, workerId: string): Promise<boolean> {
  const result = await sql`
    update ${sql.table(table)} set status = 'queued', run_at = ${Date.now()}, lease_owner = null, lease_expires_at = null
    where id = ${id} and lease_owner = ${workerId} and status = 'running'`.execute(store.db)
  return Number(result.numAffectedRows) === 1
}

export interface QueueCounts {
  /** Due ('queued' with run_at passed) and not yet claimed. */
  queued: number
  /** Claimed by a worker ('running'), whether or not its lease is still alive. */
  running: number
  /** run_at of the longest-waiting due row, or null when none waits. */
  oldestDueAt: number | null
}

/**
 * The queue of one job table (the lease columns above). Reads what the claim reads: the
 * (status, run_at) index every job table has. Scheduled rows not yet due (a monitor's next run, a
 * webhook retry's backoff) are not waiting, so they are not counted.
 */
export async function queueCounts(store: Store, table: string, now: number): Promise<QueueCounts> {
  const result = await sql<{ status: string; n: number | string; oldest: number | string | null }>`
    select status, count(*) as n, min(run_at) as oldest from ${sql.table(table)}
    where (status = 'queued' and run_at <= ${now}) or status = 'running'
    group by status`.execute(store.db)
  const counts: QueueCounts = { queued: 0, running: 0, oldestDueAt: null }
  for (const row of result.rows) {
    // PostgreSQL returns count(*) and bigint as strings.
    if (row.status === 'queued') {
      counts.queued = Number(row.n)
      counts.oldestDueAt = row.oldest == null ? null : Number(row.oldest)
    } else {
      counts.running = Number(row.n)
    }
  }
  return counts
}
