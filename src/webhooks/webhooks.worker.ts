import type { FastifyBaseLogger } from 'fastify'
import type { Services } from '../deps.ts'
import { endLease } from '../jobs/jobs.store.ts'
import { type JobContext, type JobKind, startJobRunner, wakeJobs } from '../jobs/runner.ts'
import { metrics } from '../metrics/metrics.ts'
import type { AddressPolicy } from '../net/address-policy.ts'
import type { WebhookDeliveryRow } from '../store/schema.ts'
import { sendWebhook } from './webhook.deliver.ts'
import { webhookHeaders } from './webhook.sign.ts'
import { ensureWebhookSecret, unsealWebhookSecret, WEBHOOK_JOB } from './webhooks.service.ts'
import { type AttemptOutcome, DELIVERIES, findDelivery, findWebhookSettings } from './webhooks.store.ts'

/** Up to 8 attempts in total, each answered with a 2xx within 10 seconds. */
export const WEBHOOK_MAX_ATTEMPTS = 8
export const WEBHOOK_TIMEOUT_MS = 10_000
/** "up to roughly an hour apart" */
const MAX_RETRY_DELAY_MS = 3600_000

export interface WebhookWorkerOptions {
  /** How often due deliveries are looked for; default min(1 s, TRAWL_SCHEDULER_POLL_MS). */
  pollMs?: number
  /** Per attempt; default 10 s. Tests use less rather than wait. */
  attemptTimeoutMs?: number
  /** First retry delay, doubling after each failure; default TRAWL_WEBHOOK_RETRY_BASE_MS. */
  retryBaseMs?: number
  maxAttempts?: number
  /** Attempts in flight at once in this process. */
  concurrency?: number
  /** Tests only: replaces the private-network rule. */
  addressPolicy?: AddressPolicy
}

export interface WebhookWorker {
  /** Stops claiming, then waits for attempts in flight (each bounded by its timeout). */
  stop(): Promise<void>
}

type WebhookServices = Pick<Services, 'config' | 'store' | 'signals'>

/** Delay before the retry that follows failed attempt number `attempt` (1-based). */
export const retryDelayMs = (attempt: number, baseMs: number) => Math.min(baseMs * 2 ** (attempt - 1), MAX_RETRY_DELAY_MS)

/**
 * Delivers queued webhooks on the job runner (jobs/runner.ts). A delivery's lease outlasts any
 * attempt, so a process killed mid-delivery leaves a row another worker claims once the lease
 * expires: a delivery is never lost, and the receiver deduplicates on X-Trawl-Delivery if that
 * attempt had in fact arrived. Any number of workers may share the database.
 */
export function startWebhookWorker(services: WebhookServices, log: FastifyBaseLogger, opts: WebhookWorkerOptions = {}): WebhookWorker {
  return startJobRunner(services, log, webhookJobKind(services, log, opts), services.config.schedulerPollMs)
}

export function webhookJobKind(services: WebhookServices, log: FastifyBaseLogger, opts: WebhookWorkerOptions = {}): JobKind {
  const { config, store, signals } = services
  const timeoutMs = opts.attemptTimeoutMs ?? WEBHOOK_TIMEOUT_MS
  const retryBaseMs = opts.retryBaseMs ?? config.webhookRetryBaseMs
  const maxAttempts = opts.maxAttempts ?? WEBHOOK_MAX_ATTEMPTS

  const attempt = async (id: string, ctx: JobContext) => {
    const row = await findDelivery(store.db, id)
    if (!row || row.lease_owner !== ctx.workerId) return
    const outcome = await runAttempt(row)
    // The outcome and the lease's end in one statement, fenced on the lease: a stale worker cannot
    // overwrite a newer attempt.
    if (!(await endLease(store.db, DELIVERIES, id, ctx.workerId, outcome))) {
      log.warn({ delivery: id }, 'webhook lease lost before the attempt was recorded; another worker owns it now')
      return
    }
    const context = { delivery: id, event: row.event, attempt: row.attempts, status_code: outcome.last_status_code }
    metrics.webhookAttempt(row.event, outcome.status === 'queued' ? 'retry' : outcome.status === 'delivered' ? 'delivered' : 'failed')
    if (outcome.status === 'delivered') log.info(context, 'webhook delivered')
    else if (outcome.status === 'failed') log.warn({ ...context, error: outcome.last_error }, 'webhook failed after its last attempt')
    else {
      log.info({ ...context, error: outcome.last_error }, 'webhook attempt failed; retrying')
      // The poll would find the retry too; this makes a short backoff punctual.
      setTimeout(() => wakeJobs(signals, WEBHOOK_JOB), Math.max(0, outcome.run_at - Date.now())).unref()
    }
  }

  const runAttempt = async (row: WebhookDeliveryRow): Promise<AttemptOutcome> => {
    // Attempts interrupted by crashes count too: a row claimed past the limit is not sent again.
    if (row.attempts > maxAttempts) {
      return {
        status: 'failed',
        run_at: row.run_at,
        delivered_at: null,
        last_error: row.last_error ?? 'attempts interrupted',
        last_status_code: row.last_status_code,
      }
    }
    // Read the secret now, not at enqueue: a rotation applies to the very next attempt.
    const settings = await findWebhookSettings(store.db, row.account_id)
    const secret = settings?.webhook_secret
      ? await unsealWebhookSecret(store, row.account_id, settings.webhook_secret)
      : (await ensureWebhookSecret(store, row.account_id)).secret
    const headers = webhookHeaders({ id: row.id, event: row.event, secret, body: row.payload })
    const result = await sendWebhook(row.url, headers, row.payload, {
      allowPrivateNetwork: config.allowPrivateNetwork,
      timeoutMs,
      addressPolicy: opts.addressPolicy,
    })
    const now = Date.now()
    if (result.ok) return { status: 'delivered', run_at: row.run_at, delivered_at: now, last_error: null, last_status_code: result.statusCode }
    const failure = { last_error: result.error, last_status_code: result.statusCode, delivered_at: null }
    // A URL the address policy refuses (or no URL at all) is refused again on every retry.
    if (result.permanent || row.attempts >= maxAttempts) return { ...failure, status: 'failed', run_at: row.run_at }
    return { ...failure, status: 'queued', run_at: now + retryDelayMs(row.attempts, retryBaseMs) }
  }

  return {
    name: WEBHOOK_JOB,
    table: DELIVERIES,
    concurrency: opts.concurrency ?? 16,
    leaseMs: timeoutMs + 30_000,
    pollMs: opts.pollMs ?? Math.min(1000, config.schedulerPollMs),
    // An attempt in flight at a stop finishes (bounded by its timeout) and records its outcome.
    requeueOnStop: false,
    // The request whose work queued the delivery (webhooks.store.ts insertDelivery).
    requestIdColumn: 'request_id',
    run: attempt,
  }
}
