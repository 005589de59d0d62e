import { LEASE_COLUMNS, recentJobs } from '../../jobs/jobs.store.ts'
import type { Db, Tx } from '../../store/database.ts'
import type { BatchJobRow } from '../../store/schema.ts'

/** SQL for batch jobs. Rules live in batches.service.ts and batches.worker.ts. */

export async function insertBatchJobs(tx: Tx, rows: BatchJobRow[]) {
  if (rows.length > 0) await tx.insertInto('batch_jobs').values(rows).execute()
}

export const findBatchJob = (db: Db | Tx, accountId: string, id: string) =>
  db.selectFrom('batch_jobs').selectAll().where('account_id', '=', accountId).where('id', '=', id).executeTakeFirst()

export const findBatchJobById = (db: Db | Tx, id: string) => db.selectFrom('batch_jobs').selectAll().where('id', '=', id).executeTakeFirst()

/** The job's batch, when the job is the account's. */
export const batchIdOfJob = async (db: Db, accountId: string, jobId: string) =>
  (await db.selectFrom('batch_jobs').select('batch_id').where('account_id', '=', accountId).where('id', '=', jobId).executeTakeFirst())?.batch_id

/** The batch's jobs in the order their URLs were sent (request ids end in _<index>). */
export async function jobsOfBatch(db: Db, accountId: string, batchId: string) {
  const rows = await db.selectFrom('batch_jobs').selectAll().where('account_id', '=', accountId).where('batch_id', '=', batchId).execute()
  const index = (requestId: string) => Number(requestId.slice(requestId.lastIndexOf('_') + 1)) || 0
  return rows.sort((a, b) => index(a.request_id) - index(b.request_id))
}

/** Every column of a list row: all but the result. */
const BATCH_JOB_LIST_COLUMNS = [
  'id',
  'batch_id',
  'account_id',
  'key_id',
  'request_id',
  'endpoint',
  'request',
  ...LEASE_COLUMNS,
  'error',
  'credits_charged_mc',
  'credits_used_mc',
  'webhook_url',
  'webhook_delivery_id',
  'created_at',
  'completed_at',
  'expires_at',
] as const

/** The account's jobs, newest first, without their results. */
export const recentBatchJobs = (db: Db, accountId: string, limit: number) => recentJobs(db, 'batch_jobs', accountId, limit, BATCH_JOB_LIST_COLUMNS)

/**
 * Whether every job of the batch has ended having used nothing, so that the batch's one charge has
 * been given back whole. Read under the account's row lock, which every job's end takes: the last
 * job of a batch to end sees the others' final state, on PostgreSQL too.
 */
export async function batchUsedNothing(tx: Tx, batchId: string): Promise<boolean> {
  const row = await tx
    .selectFrom('batch_jobs')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('batch_id', '=', batchId)
    .where((eb) => eb.or([eb('status', 'not in', ['done', 'failed']), eb('credits_used_mc', '>', 0)]))
    .executeTakeFirstOrThrow()
  return Number(row.n) === 0
}

export const setBatchJobDelivery = (tx: Tx, id: string, deliveryId: string) =>
  tx.updateTable('batch_jobs').set({ webhook_delivery_id: deliveryId }).where('id', '=', id).execute()

/** Finished jobs past their 24 hours, removed in chunks so one sweep never holds the write lock for long. */
export async function pruneExpiredBatchJobs(db: Db, now: number): Promise<number> {
  let removed = 0
  for (let round = 0; round < 20; round++) {
    const expired = await db.selectFrom('batch_jobs').select('id').where('expires_at', '<', now).limit(1000).execute()
    if (expired.length === 0) break
    await db
      .deleteFrom('batch_jobs')
      .where(
        'id',
        'in',
        expired.map((r) => r.id),
      )
      .execute()
    removed += expired.length
    if (expired.length < 1000) break
  }
  return removed
}
