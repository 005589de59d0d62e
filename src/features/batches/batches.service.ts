import { randomUUID } from 'node:crypto'
import { lockAccount } from '../../billing/credits.store.ts'
import { charge } from '../../billing/credits.ts'
import { toCredits } from '../../billing/money.ts'
import { PRICES } from '../../billing/prices.ts'
import type { AppDeps } from '../../deps.ts'
import { ApiError, isApiError } from '../../errors.ts'
import type { AuthContext } from '../../http/auth.ts'
import { countActiveJobs } from '../../jobs/jobs.store.ts'
import { wakeJobs } from '../../jobs/runner.ts'
import type { Store } from '../../store/database.ts'
import type { BatchJobRow } from '../../store/schema.ts'
import { webhookDeliveryStatus } from '../../webhooks/webhooks.service.ts'
import { BATCH_ENDPOINT_TABLE, type BatchEndpoint } from './batches.endpoints.ts'
import type { BatchJob } from './batches.response.ts'
import type { BatchParams } from './batches.schema.ts'
import { findBatchJob, insertBatchJobs } from './batches.store.ts'

/** The job kind's name: what `wakeJobs(signals, BATCH_JOB)` wakes. */
export const BATCH_JOB = 'batch'
/** Batch jobs an account may have queued or running at once. */
export const MAX_ACTIVE_BATCH_JOBS = 10_000
/** A batch job's result is kept 24 hours. */
export const BATCH_RESULT_TTL_MS = 24 * 3600_000
/** Ledger label of a batch's charge and its jobs' refunds. */
export const BATCH_LEDGER_ENDPOINT = '/v1/batches'

/** A batch job costs half the realtime price (billing/prices.ts). */
export const batchPriceMc = (realtimeMc: number) => Math.round(realtimeMc * PRICES.batchFactor)

type ErrorEntry = ReturnType<ApiError['toBody']>

const withoutKey = ({ api_key: _key, ...entry }: Record<string, unknown>) => entry

const iso = (ms: number | null) => (ms == null ? null : new Date(ms).toISOString())

/** A batch job's wire form (BatchJob in the OpenAPI document). */
export function toBatchJobView(row: BatchJobRow, baseUrl: string, webhookStatus: BatchJob['webhook_status']): BatchJob {
  const finished = row.status === 'done' || row.status === 'failed'
  return {
    id: row.id,
    status: row.status,
    endpoint: BATCH_ENDPOINT_TABLE[row.endpoint as BatchEndpoint]?.path ?? `/v1/${row.endpoint}`,
    created_at: new Date(row.created_at).toISOString(),
    completed_at: iso(row.completed_at),
    // Until the job ends, what the queue charged for it; then what it cost (0 when failed).
    credits_used: toCredits(finished ? row.credits_used_mc : row.credits_charged_mc),
    poll_url: `${baseUrl}/v1/batches/${row.id}`,
    webhook_url: row.webhook_url,
    webhook_status: webhookStatus,
    error: row.error ? (JSON.parse(row.error) as { code: string; message: string }) : null,
    result: row.status === 'done' && row.result != null ? JSON.parse(row.result) : null,
  }
}

/**
 * POST /v1/batches: every entry validated as its realtime endpoint would validate it; the valid
 * ones queued as jobs and charged half their realtime hold, all in one transaction with the
 * 10,000-job cap, so a refused call (402, 403, 429) queues and charges nothing.
 */
export async function createBatch(deps: AppDeps, auth: AuthContext, params: BatchParams, requestId: string) {
  const endpoint = BATCH_ENDPOINT_TABLE[params.endpoint]
  const now = Date.now()
  const batchId = randomUUID()
  const rows: BatchJobRow[] = []
  const entries: (BatchJobRow | ErrorEntry)[] = params.requests.map((entry, i) => {
    try {
      if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) {
        throw new ApiError(
          'invalid_request',
          `each request must be a JSON object with the fields of ${endpoint.path}${Array.isArray(entry) ? ', not an array' : ''}`,
        )
      }
      const prepared = endpoint.prepare(deps, auth, entry as Record<string, unknown>)
      const row: BatchJobRow = {
        id: randomUUID(),
        batch_id: batchId,
        account_id: auth.accountId,
        key_id: auth.keyId,
        // The job's own id for its result meta and ledger rows, traceable to the call that queued it.
        request_id: `${requestId}_${i}`,
        endpoint: params.endpoint,
        // As sent, less credentials: the job validates it again when it runs.
        request: JSON.stringify(withoutKey(entry as Record<string, unknown>)),
        status: 'queued',
        run_at: now,
        lease_owner: null,
        lease_expires_at: null,
        attempts: 0,
        result: null,
        error: null,
        credits_charged_mc: batchPriceMc(prepared.realtimeHoldMc),
        credits_used_mc: 0,
        webhook_url: params.webhook_url ?? null,
        webhook_delivery_id: null,
        created_at: now,
        completed_at: null,
        expires_at: null,
      }
      rows.push(row)
      return row
    } catch (err) {
      if (!isApiError(err)) throw err
      return err.toBody(requestId)
    }
  })

  const totalMc = rows.reduce((sum, r) => sum + r.credits_charged_mc, 0)
  let balanceMc: number | null = null
  if (rows.length > 0) {
    balanceMc = await deps.store.transaction(async (tx) => {
      const account = await lockAccount(tx, auth.accountId)
      if (!account) throw new ApiError('unauthorized', 'API key belongs to a deleted account')
      const active = await countActiveJobs(tx, 'batch_jobs', auth.accountId)
      if (active + rows.length > MAX_ACTIVE_BATCH_JOBS) {
        throw new ApiError(
          'rate_limited',
          `at most ${MAX_ACTIVE_BATCH_JOBS.toLocaleString('en-US')} batch jobs may be queued or running per account; ${active} are, and this batch adds ${rows.length}; nothing was queued`,
          { retryAfterSeconds: 60 },
        )
      }
      // The whole batch or nothing: one charge of the total, with every limit checked in the realtime order.
      const balance = await charge(deps.store, auth, totalMc, requestId, BATCH_LEDGER_ENDPOINT, tx).catch((err: unknown) => {
        if (!isApiError(err)) throw err
        throw new ApiError(err.code, `${err.message} (a batch of ${rows.length} jobs at half the realtime price); nothing was queued`, err.opts)
      })
      await insertBatchJobs(tx, rows)
      return balance
    })
    wakeJobs(deps.signals, BATCH_JOB)
  }
  const batches = entries.map((e) => ('id' in e ? toBatchJobView(e, deps.config.baseUrl, null) : e))
  return { batches, chargedMc: totalMc, balanceMc }
}

/** GET /v1/batches/{id}: 404 for a job that does not exist, is another account's, or is past its 24 hours. */
export async function getBatchJob(store: Store, baseUrl: string, accountId: string, id: string): Promise<BatchJob> {
  const row = await findBatchJob(store.db, accountId, id)
  if (!row || (row.expires_at != null && row.expires_at <= Date.now())) {
    throw new ApiError('not_found', `batch job ${id} does not exist, belongs to another account, or its result expired (kept 24 hours)`)
  }
  const webhook = row.webhook_delivery_id ? await webhookDeliveryStatus(store, row.webhook_delivery_id) : null
  return toBatchJobView(row, baseUrl, webhook)
}
