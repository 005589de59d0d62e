import { randomUUID } from 'node:crypto'
import type { AuthContext } from '../http/auth.ts'
import { cancelQueuedJob, type HeldJobTable } from '../jobs/jobs.store.ts'
import type { Store, Tx } from '../store/database.ts'
import type { HeldJobRow } from '../store/schema.ts'
import { refund } from './credits.ts'

/**
 * A job paid for up front (crawls, research): the worst case is held when it is queued, and its end
 * (or a cancel before it starts) refunds what it held and did not use.
 */
interface HeldJobStart {
  auth: AuthContext
  requestId: string
  /** The normalised request, stored as JSON. */
  request: unknown
  reservedMc: number
  webhookUrl?: string
}

/** The job's row as it is queued, due now; the feature adds its own progress columns. */
export function queuedHeldJob({ auth, requestId, request, reservedMc, webhookUrl }: HeldJobStart): HeldJobRow {
  const now = Date.now()
  return {
    id: randomUUID(),
    account_id: auth.accountId,
    key_id: auth.keyId,
    request_id: requestId,
    request: JSON.stringify(request),
    status: 'queued',
    run_at: now,
    lease_owner: null,
    lease_expires_at: null,
    attempts: 0,
    cancel_requested: 0,
    result: null,
    error: null,
    credits_reserved_mc: reservedMc,
    credits_used_mc: 0,
    webhook_url: webhookUrl ?? null,
    webhook_delivery_id: null,
    created_at: now,
    started_at: null,
    completed_at: null,
    expires_at: null,
  }
}

/**
 * Gives back what the job held and did not use, as a refund of the call that queued it (a job that
 * used nothing stops counting as a request). `tx`: the transaction that ends the job.
 */
export async function refundUnused(store: Store, row: HeldJobRow, endpoint: string, tx?: Tx) {
  const unused = row.credits_reserved_mc - row.credits_used_mc
  if (unused <= 0) return
  const charge = { at: row.created_at, requestId: row.request_id, endpoint, wholeCharge: row.credits_used_mc === 0 }
  await refund(store, { accountId: row.account_id, keyId: row.key_id }, unused, charge, tx)
}

/** Cancels a job that is still queued and refunds its hold; false when a worker claimed it first. */
export async function cancelBeforeStart(store: Store, table: HeldJobTable, row: HeldJobRow, endpoint: string, resultTtlMs: number): Promise<boolean> {
  const now = Date.now()
  const canceled = await cancelQueuedJob(store.db, table, row.id, {
    completed_at: now,
    expires_at: now + resultTtlMs,
    error: JSON.stringify({ code: 'canceled', message: 'canceled before it started' }),
  })
  if (canceled) await refundUnused(store, row, endpoint)
  return canceled
}
