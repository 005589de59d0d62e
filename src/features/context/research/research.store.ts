import type { Db, Tx } from '../../../store/database.ts'
import type { ResearchJobRow } from '../../../store/schema.ts'

/** SQL for research jobs. Rules live in research.service.ts and research.worker.ts. */

export const insertResearch = (db: Db | Tx, row: ResearchJobRow) => db.insertInto('research_jobs').values(row).execute()

export const findResearch = (db: Db | Tx, accountId: string, id: string) =>
  db.selectFrom('research_jobs').selectAll().where('account_id', '=', accountId).where('id', '=', id).executeTakeFirst()

export const findResearchById = (db: Db | Tx, id: string) => db.selectFrom('research_jobs').selectAll().where('id', '=', id).executeTakeFirst()

/** What the events stream polls: the status and the steps, without the sources and result. */
export const findResearchProgress = (db: Db | Tx, accountId: string, id: string) =>
  db.selectFrom('research_jobs').select(['status', 'steps', 'expires_at']).where('account_id', '=', accountId).where('id', '=', id).executeTakeFirst()

export const updateResearch = (db: Db | Tx, id: string, patch: Partial<ResearchJobRow>) =>
  db.updateTable('research_jobs').set(patch).where('id', '=', id).execute()

/** The cancel flag alone: what a running job polls (DELETE may have set it from any process). */
export async function readResearchCancel(db: Db | Tx, id: string): Promise<number | undefined> {
  const row = await db.selectFrom('research_jobs').select('cancel_requested').where('id', '=', id).executeTakeFirst()
  return row?.cancel_requested
}

/**
 * Saves a running job's state and adds what its last step used, only while this worker holds the
 * lease and never past the reservation; false otherwise (a worker that lost its lease writes nothing).
 */
export async function saveLeasedResearch(
  db: Db | Tx,
  id: string,
  workerId: string,
  state: Pick<ResearchJobRow, 'steps' | 'sources' | 'meta'>,
  addMc: number,
): Promise<boolean> {
  const result = await db
    .updateTable('research_jobs')
    .set((eb) => ({ ...state, credits_used_mc: eb('credits_used_mc', '+', addMc) }))
    .where('id', '=', id)
    .where('lease_owner', '=', workerId)
    .where('status', '=', 'running')
    .where((eb) => eb(eb('credits_used_mc', '+', addMc), '<=', eb.ref('credits_reserved_mc')))
    .executeTakeFirst()
  return Number(result.numUpdatedRows) === 1
}

/** Ended jobs past their 24 hours. */
export async function pruneExpiredResearch(db: Db, now: number): Promise<number> {
  const result = await db.deleteFrom('research_jobs').where('expires_at', '<', now).executeTakeFirst()
  return Number(result.numDeletedRows)
}
