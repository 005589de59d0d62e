import type { Db, Tx } from '../../store/database.ts'
import type { MonitorRow, MonitorRunRow } from '../../store/schema.ts'

/** SQL for monitors, their run history and their seen-link hashes. Rules live in monitors.service.ts and monitors.worker.ts. */

/** Run rows (counts, no results) are kept this long; their results only 24 hours. */
export const RUN_HISTORY_MS = 30 * 86_400_000

export const insertMonitor = (db: Db | Tx, row: MonitorRow) => db.insertInto('monitors').values(row).execute()

export const findMonitor = (db: Db | Tx, accountId: string, id: string) =>
  db.selectFrom('monitors').selectAll().where('account_id', '=', accountId).where('id', '=', id).executeTakeFirst()

export const findMonitorById = (db: Db | Tx, id: string) => db.selectFrom('monitors').selectAll().where('id', '=', id).executeTakeFirst()

export const listMonitors = (db: Db | Tx, accountId: string) =>
  db.selectFrom('monitors').selectAll().where('account_id', '=', accountId).orderBy('created_at').orderBy('id').execute()

export async function countMonitors(db: Db | Tx, accountId: string): Promise<number> {
  const row = await db
    .selectFrom('monitors')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('account_id', '=', accountId)
    .executeTakeFirstOrThrow()
  return Number(row.n)
}

export async function updateMonitor(db: Db | Tx, id: string, patch: Partial<MonitorRow>, only?: { status?: MonitorRow['status'][] }) {
  let q = db.updateTable('monitors').set(patch).where('id', '=', id)
  if (only?.status) q = q.where('status', 'in', only.status)
  const result = await q.executeTakeFirst()
  return Number(result.numUpdatedRows) === 1
}

/** Deletes a monitor with its history and seen hashes; false when it was already gone. */
export async function deleteMonitor(tx: Tx, id: string): Promise<boolean> {
  await tx.deleteFrom('monitor_seen').where('monitor_id', '=', id).execute()
  await tx.deleteFrom('monitor_runs').where('monitor_id', '=', id).execute()
  const result = await tx.deleteFrom('monitors').where('id', '=', id).executeTakeFirst()
  return Number(result.numDeletedRows) === 1
}

/** Every queued or running monitor billed on `keyId` is paused (its key was revoked). */
export async function pauseMonitorsOfKey(db: Db | Tx, keyId: string, lastError: string, now: number): Promise<number> {
  const result = await db
    .updateTable('monitors')
    .set({ status: 'paused', last_error: lastError, lease_owner: null, lease_expires_at: null, updated_at: now })
    .where('key_id', '=', keyId)
    .where('status', 'in', ['queued', 'running'])
    .executeTakeFirst()
  return Number(result.numUpdatedRows)
}

/**
 * The fence of a run's final transaction: touches the row only while `workerId` still holds its
 * lease (on PostgreSQL this also locks the row until commit, so no claim or PATCH slips in between).
 * Returns the row as it is now, or undefined when the lease was lost, or the monitor was paused or deleted.
 */
export async function holdLease(tx: Tx, id: string, workerId: string): Promise<MonitorRow | undefined> {
  const result = await tx
    .updateTable('monitors')
    .set((eb) => ({ lease_expires_at: eb.ref('lease_expires_at') }))
    .where('id', '=', id)
    .where('lease_owner', '=', workerId)
    .where('status', '=', 'running')
    .executeTakeFirst()
  if (Number(result.numUpdatedRows) !== 1) return undefined
  return findMonitorById(tx, id)
}

export const insertRun = (tx: Tx, row: MonitorRunRow) => tx.insertInto('monitor_runs').values(row).execute()

export const findRun = (db: Db | Tx, id: string) => db.selectFrom('monitor_runs').select('id').where('id', '=', id).executeTakeFirst()

/** Newest first (by due time), optionally only those due before `beforeMs`. */
export function listRuns(db: Db | Tx, monitorId: string, limit: number, beforeMs?: number) {
  let q = db.selectFrom('monitor_runs').selectAll().where('monitor_id', '=', monitorId)
  if (beforeMs !== undefined) q = q.where('due_at', '<', beforeMs)
  return q.orderBy('due_at', 'desc').limit(limit).execute()
}

/** The newest run that queued a monitor.results delivery: its delivery id. */
export async function lastDeliveryOf(db: Db | Tx, monitorId: string): Promise<string | null> {
  const row = await db
    .selectFrom('monitor_runs')
    .select('webhook_delivery_id')
    .where('monitor_id', '=', monitorId)
    .where('webhook_delivery_id', 'is not', null)
    .orderBy('due_at', 'desc')
    .limit(1)
    .executeTakeFirst()
  return row?.webhook_delivery_id ?? null
}

/** Which of `hashes` were already reported under `baseline`. */
export async function seenHashes(tx: Tx, monitorId: string, baseline: number, hashes: string[]): Promise<Set<string>> {
  if (hashes.length === 0) return new Set()
  const rows = await tx
    .selectFrom('monitor_seen')
    .select('link_hash')
    .where('monitor_id', '=', monitorId)
    .where('baseline', '=', baseline)
    .where('link_hash', 'in', hashes)
    .execute()
  return new Set(rows.map((r) => r.link_hash))
}

/** True when nothing was reported yet under `baseline` (the run is the baseline's first). */
export async function nothingSeen(tx: Tx, monitorId: string, baseline: number): Promise<boolean> {
  const row = await tx
    .selectFrom('monitor_seen')
    .select('link_hash')
    .where('monitor_id', '=', monitorId)
    .where('baseline', '=', baseline)
    .limit(1)
    .executeTakeFirst()
  return row === undefined
}

export async function addSeen(tx: Tx, monitorId: string, baseline: number, hashes: string[]) {
  if (hashes.length === 0) return
  await tx
    .insertInto('monitor_seen')
    .values(hashes.map((link_hash) => ({ monitor_id: monitorId, baseline, link_hash })))
    .onConflict((oc) => oc.columns(['monitor_id', 'baseline', 'link_hash']).doNothing())
    .execute()
}

/** Hashes of an older baseline never count again. */
export const dropOldSeen = (db: Db | Tx, monitorId: string, baseline: number) =>
  db.deleteFrom('monitor_seen').where('monitor_id', '=', monitorId).where('baseline', '<', baseline).execute()

/**
 * Run history housekeeping: results past their 24 hours are cleared (the run keeps its counts), and
 * run rows older than 30 days are removed. Returns the number of rows changed.
 */
export async function pruneExpiredMonitorRuns(db: Db, now: number): Promise<number> {
  const cleared = await db.updateTable('monitor_runs').set({ results: null }).where('expires_at', '<=', now).where('results', 'is not', null).executeTakeFirst()
  const old = db
    .selectFrom('monitor_runs')
    .select('id')
    .where('completed_at', '<', now - RUN_HISTORY_MS)
    .limit(500)
  const removed = await db.deleteFrom('monitor_runs').where('id', 'in', old).executeTakeFirst()
  return Number(cleared.numUpdatedRows) + Number(removed.numDeletedRows)
}
