import { sql } from 'kysely'
import type { Store } from '../store/database.ts'

export interface QueueCounts {
  /** Due ('queued' with run_at passed) and not yet claimed. */
  queued: number
  /** Claimed by a worker ('running'), whether or not its lease is still alive. */
  running: number
  /** run_at of the longest-waiting due row, or null when none waits. */
  oldestDueAt: number | null
}

/**
 * The queue of one job table (the lease columns of lease.ts). Reads what the claim reads: the
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
