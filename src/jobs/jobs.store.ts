import { type Kysely, sql, type Updateable } from 'kysely'
import type { Db, Store, Tx } from '../store/database.ts'
import type { HeldJobRow, LeaseColumns, Tables } from '../store/schema.ts'

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

/** The lease columns above, for the lists that select them by name. */
export const LEASE_COLUMNS = ['status', 'run_at', 'lease_owner', 'lease_expires_at', 'attempts'] as const

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

/** The job tables: rows with the lease columns (store/schema.ts LeaseColumns). */
type JobTable = { [T in keyof Tables]: Tables[T] extends LeaseColumns<string> ? T : never }[keyof Tables]

/** An UPDATE of a job's row that touches it only while `workerId` still holds its lease. */
const leasedUpdate = (db: Db | Tx, table: JobTable, id: string, workerId: string) =>
  // Kysely cannot type one statement over a table chosen at run time; the callers' types are T's.
  (db as Kysely<any>)
    .updateTable(table as string)
    .where('id', '=', id)
    .where('lease_owner', '=', workerId)
    .where('status', '=', 'running')

/**
 * Ends a running job's lease, with its outcome in the same statement, only while `workerId` still
 * holds it: false when it was lost (expired and claimed elsewhere), so a stale worker never
 * overwrites the newer owner's outcome and the caller's transaction must write nothing else.
 */
export async function endLease<T extends JobTable>(db: Db | Tx, table: T, id: string, workerId: string, outcome: Updateable<Tables[T]>): Promise<boolean> {
  const result = await leasedUpdate(db, table, id, workerId)
    .set({ ...outcome, lease_owner: null, lease_expires_at: null })
    .executeTakeFirst()
  return Number(result.numUpdatedRows) === 1
}

/**
 * endLease for a held job, adding `addMc` (work billed at its end) to what it used, and returning
 * the row as ended; null when the lease was lost. It is the first statement of the transaction that
 * ends the job: on PostgreSQL it locks the row until the commit, so a takeover's claim skips it
 * (SKIP LOCKED) and nothing is read before the lock that the refund could be computed from; on
 * SQLite it takes the write lock.
 */
export async function endHeldJob<T extends HeldJobTable>(
  tx: Tx,
  table: T,
  id: string,
  workerId: string,
  outcome: Updateable<Tables[T]>,
  addMc = 0,
): Promise<Tables[T] | null> {
  const row = await leasedUpdate(tx, table, id, workerId)
    .set((eb) => ({ ...outcome, credits_used_mc: eb('credits_used_mc', '+', addMc), lease_owner: null, lease_expires_at: null }))
    .returningAll()
    .executeTakeFirst()
  return (row as Tables[T] | undefined) ?? null
}

/** The job tables whose rows belong to an account. */
type AccountJobTable = { [T in keyof Tables]: Tables[T] extends LeaseColumns<string> & { account_id: string } ? T : never }[keyof Tables]

/** An account's jobs still waiting or in flight: what its caps on active jobs count. */
export async function countActiveJobs(db: Db | Tx, table: AccountJobTable, accountId: string): Promise<number> {
  const row = await db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('account_id', '=', accountId)
    .where('status', 'in', ['queued', 'running'])
    .executeTakeFirstOrThrow()
  return Number(row.n)
}

/**
 * An account's jobs, newest first, without their (large) results: `columns` are every other column
 * of the table. A list shows each job's state; the job's own GET its result.
 */
export async function recentJobs<T extends AccountJobTable, C extends keyof Tables[T] & string>(
  db: Db,
  table: T,
  accountId: string,
  limit: number,
  columns: readonly C[],
): Promise<(Pick<Tables[T], C> & { result: null })[]> {
  const rows = await (db as Kysely<any>)
    .selectFrom(table as string)
    .select(columns)
    .where('account_id', '=', accountId)
    .orderBy('created_at', 'desc')
    .limit(limit)
    .execute()
  return rows.map((r) => ({ ...r, result: null })) as (Pick<Tables[T], C> & { result: null })[]
}

/** The tables of jobs paid for with a hold (store/schema.ts HeldJobRow): crawls and research. */
export type HeldJobTable = { [T in keyof Tables]: Tables[T] extends HeldJobRow ? T : never }[keyof Tables]

/**
 * Cancels a held job that is still queued; false when it is not (a worker may have claimed it a
 * moment ago), so only one of them ends it and the refund is made once.
 */
export async function cancelQueuedJob(
  db: Db | Tx,
  table: HeldJobTable,
  id: string,
  patch: Pick<HeldJobRow, 'completed_at' | 'expires_at' | 'error'>,
): Promise<boolean> {
  const result = await db
    .updateTable(table)
    .set({ status: 'canceled', ...patch })
    .where('id', '=', id)
    .where('status', '=', 'queued')
    .executeTakeFirst()
  return Number(result.numUpdatedRows) === 1
}
