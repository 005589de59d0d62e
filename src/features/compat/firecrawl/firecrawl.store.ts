import type { Db } from '../../../store/database.ts'

/** SQL of the Firecrawl shape: a batch scrape is the jobs of one Trawl batch (batch_jobs.batch_id). */

export const batchIdOfJob = async (db: Db, accountId: string, jobId: string) =>
  (await db.selectFrom('batch_jobs').select('batch_id').where('account_id', '=', accountId).where('id', '=', jobId).executeTakeFirst())?.batch_id

/** The batch's jobs in the order their URLs were sent (request ids end in _<index>). */
export async function jobsOfBatch(db: Db, accountId: string, batchId: string) {
  const rows = await db.selectFrom('batch_jobs').selectAll().where('account_id', '=', accountId).where('batch_id', '=', batchId).execute()
  const index = (requestId: string) => Number(requestId.slice(requestId.lastIndexOf('_') + 1)) || 0
  return rows.sort((a, b) => index(a.request_id) - index(b.request_id))
}
