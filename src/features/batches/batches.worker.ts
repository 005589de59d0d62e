import type { Billing } from '../../billing/billed-lookup.ts'
import { lockAccount } from '../../billing/credits.store.ts'
import { refund } from '../../billing/credits.ts'
import { toCredits } from '../../billing/money.ts'
import { PRICES } from '../../billing/prices.ts'
import type { AppDeps } from '../../deps.ts'
import { ApiError, isApiError } from '../../errors.ts'
import { endLease } from '../../jobs/jobs.store.ts'
import { type JobContext, type JobKind, requestQueuedTiming, wakeJobs } from '../../jobs/runner.ts'
import type { BatchJobRow } from '../../store/schema.ts'
import { enqueueWebhook, WEBHOOK_JOB } from '../../webhooks/webhooks.service.ts'
import { authForKeyId } from '../accounts/accounts.service.ts'
import { BATCH_ENDPOINT_TABLE, type BatchEndpoint } from './batches.endpoints.ts'
import { BATCH_JOB, BATCH_LEDGER_ENDPOINT, BATCH_RESULT_TTL_MS } from './batches.service.ts'
import { batchUsedNothing, findBatchJobById, setBatchJobDelivery } from './batches.store.ts'

/**
 * Jobs in flight at once in one process: enough to hide upstream latency (about 1 s a search:
 * 10,000 jobs in about 10 minutes), few enough not to look like a flood to an engine.
 */
export const BATCH_JOBS_PER_WORKER = 16
/** Tries of a job whose lookup failed upstream (after the lookup's own engine and proxy retries). */
export const BATCH_MAX_TRIES = 3
/** Delay before try n+1 (n = 1, 2): long enough for a block to lift, short enough for the 15-minute target. */
const RETRY_DELAYS_MS = [10_000, 30_000]
/** A job claimed this often without ending (its workers kept dying on it) is failed rather than tried forever. */
const MAX_CLAIMS = 10

const PREPAID: Billing = { mode: 'prepaid', factor: PRICES.batchFactor }

type JobError = { code: string; message: string }

class LeaseLost extends Error {}

/** 503 upstream_* (and unavailable) may pass; anything the request itself got wrong will not. */
const retryable = (err: unknown) => !isApiError(err) || err.status === 503

function jobErrorOf(err: unknown): JobError {
  if (isApiError(err)) return err.toJSON()
  return { code: 'internal', message: 'the job failed unexpectedly; its credits were refunded' }
}

/**
 * Runs queued batch jobs on the job runner (jobs/runner.ts). A job acts as the key that queued it
 * (revoked: the job fails, refunded), runs the realtime lookup without realtime billing (it was
 * charged when queued), and ends in one transaction fenced on its lease: the final state, the
 * refund of what it did not use, and the batch.completed delivery. A worker killed mid-job leaves a
 * lease that expires; the next claim runs the job again, and since nothing is billed until that
 * fenced end, nothing is billed twice.
 */
export function batchJobKind(deps: AppDeps): JobKind {
  const { store, signals, log, config } = deps

  const execute = async (id: string, ctx: JobContext) => {
    const row = await findBatchJobById(store.db, id)
    if (!row || row.lease_owner !== ctx.workerId || row.status !== 'running') return
    if (ctx.interrupted()) return
    if (row.attempts > MAX_CLAIMS) {
      return end(row, ctx, { error: { code: 'internal', message: `the job was interrupted ${row.attempts - 1} times; its credits were refunded` } })
    }
    let outcome: { result: string; usedMc: number }
    try {
      const auth = await authForKeyId(store, row.key_id)
      const endpoint = BATCH_ENDPOINT_TABLE[row.endpoint as BatchEndpoint]
      if (!endpoint) throw new ApiError('invalid_request', `endpoint ${row.endpoint} is not a batch endpoint`)
      // Validated again with the key as it is now (fallback switch, engine table), exactly as at POST.
      const prepared = endpoint.prepare(deps, auth, JSON.parse(row.request) as Record<string, unknown>)
      outcome = await prepared.run(row.request_id, PREPAID)
    } catch (err) {
      // Stopping, or the lease was lost: the runner puts the job back (or another worker owns it).
      if (ctx.interrupted()) return
      if (retryable(err) && row.attempts < BATCH_MAX_TRIES) return retryLater(row, ctx, err)
      if (!isApiError(err)) log.error({ err, batch_job: id }, 'batch job failed unexpectedly')
      return end(row, ctx, { error: jobErrorOf(err) })
    }
    return end(row, ctx, { outcome })
  }

  /** Back to the queue, due after a backoff (or the upstream's Retry-After, when longer). */
  const retryLater = async (row: BatchJobRow, ctx: JobContext, err: unknown) => {
    const backoff = RETRY_DELAYS_MS[Math.min(row.attempts, RETRY_DELAYS_MS.length) - 1] ?? RETRY_DELAYS_MS[0]!
    const retryAfterMs = isApiError(err) ? Math.min((err.opts.retryAfterSeconds ?? 0) * 1000, 120_000) : 0
    const delay = Math.max(backoff, retryAfterMs)
    const requeued = await store.transaction((tx) => endLease(tx, 'batch_jobs', row.id, ctx.workerId, { status: 'queued', run_at: Date.now() + delay }))
    if (!requeued) return
    log.info({ batch_job: row.id, attempt: row.attempts, error: jobErrorOf(err), ...(!isApiError(err) && { err }) }, 'batch job failed; retrying')
    // The poll would find it too; this keeps a short backoff punctual.
    setTimeout(() => wakeJobs(signals, BATCH_JOB), delay).unref()
  }

  /** Done or failed, the refund of what was not used and the webhook: one transaction, fenced on the lease. */
  const end = async (row: BatchJobRow, ctx: JobContext, final: { outcome: { result: string; usedMc: number } } | { error: JobError }) => {
    const now = Date.now()
    const done = 'outcome' in final
    // Never more than was charged at queue time (the hold is the realtime price of the request, halved).
    const usedMc = done ? Math.min(Math.max(final.outcome.usedMc, 0), row.credits_charged_mc) : 0
    const status = done ? 'done' : 'failed'
    const error = done ? null : final.error
    try {
      const delivery = await store.transaction(async (tx) => {
        const fenced = await endLease(tx, 'batch_jobs', row.id, ctx.workerId, {
          status,
          result: done ? final.outcome.result : null,
          error: error ? JSON.stringify(error) : null,
          credits_used_mc: usedMc,
          completed_at: now,
          expires_at: now + BATCH_RESULT_TTL_MS,
        })
        if (!fenced) throw new LeaseLost()
        const unused = row.credits_charged_mc - usedMc
        if (unused > 0) {
          // One charge covered the whole batch, counted as one request: the refund that completes
          // giving all of it back (the last job to end, none having used anything) un-counts it, as
          // a realtime call that cost nothing is no request. The account's lock comes first, so
          // the jobs of one batch ending at once in several processes read each other's outcome.
          await lockAccount(tx, row.account_id)
          const wholeCharge = await batchUsedNothing(tx, row.batch_id)
          await refund(
            store,
            { accountId: row.account_id, keyId: row.key_id },
            unused,
            { at: row.created_at, requestId: row.request_id, endpoint: BATCH_LEDGER_ENDPOINT, wholeCharge },
            tx,
          )
        }
        const payload = {
          event: 'batch.completed',
          id: row.id,
          status,
          endpoint: BATCH_ENDPOINT_TABLE[row.endpoint as BatchEndpoint]?.path ?? `/v1/${row.endpoint}`,
          created_at: new Date(row.created_at).toISOString(),
          completed_at: new Date(now).toISOString(),
          credits_used: toCredits(usedMc),
          ...(done ? { result: JSON.parse(final.outcome.result) as unknown } : { error }),
        }
        const queued = await enqueueWebhook(deps, { accountId: row.account_id, event: 'batch.completed', url: row.webhook_url, payload, id: row.id }, tx)
        if (queued) await setBatchJobDelivery(tx, row.id, queued.id)
        return queued
      })
      // enqueueWebhook's own wake-up ran before the commit; this one finds the row.
      if (delivery) wakeJobs(signals, WEBHOOK_JOB)
      log.debug({ batch_job: row.id, status, credits_used: toCredits(usedMc) }, 'batch job ended')
    } catch (err) {
      if (err instanceof LeaseLost) {
        log.warn({ batch_job: row.id }, 'batch job lease lost before it ended; the worker that holds it now finishes it')
        return
      }
      throw err
    }
  }

  return {
    name: BATCH_JOB,
    table: 'batch_jobs',
    concurrency: BATCH_JOBS_PER_WORKER,
    ...requestQueuedTiming(config),
    run: execute,
  }
}
