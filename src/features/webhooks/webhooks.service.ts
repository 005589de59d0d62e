import { randomUUID } from 'node:crypto'
import { ApiError } from '../../errors.ts'
import { wakeJobs } from '../../jobs/runner.ts'
import { currentRequestId } from '../../metrics/log-context.ts'
import type { Store, Tx } from '../../store/database.ts'
import { newWebhookSecret } from '../accounts/secrets.ts'
import type { WebhookEvent } from './webhook.sign.ts'
import { findDelivery, findWebhookSettings, insertDelivery, setSecretIfMissing } from './webhooks.store.ts'

export type { WebhookEvent } from './webhook.sign.ts'

export interface EnqueueWebhookInput {
  accountId: string
  event: WebhookEvent
  /** The job's own webhook_url; defaults to the account's webhook URL. */
  url?: string | null
  /** Serialised once here: every attempt sends (and signs) these exact bytes. */
  payload: object
  /** The delivery id (X-Trawl-Delivery); batches pass the job id (SPEC). Default: a new UUID. */
  id?: string
}

/** Batch/crawl/monitor view of a delivery (SPEC "Batch webhook_status"). */
export type WebhookStatus = 'pending' | 'delivered' | 'failed'

/** The job kind that delivers webhooks: what `wakeJobs(store, WEBHOOK_JOB)` wakes. */
export const WEBHOOK_JOB = 'webhook'

/**
 * Queues a signed webhook for delivery by the webhook worker. Returns null when there is nowhere
 * to send it (no `url` and no account webhook URL). Pass `tx` to queue it atomically with the job's
 * own completion; the in-process wake-up then fires before the commit, so that row is picked up by
 * the next poll instead (at most a second later).
 */
export async function enqueueWebhook(store: Store, input: EnqueueWebhookInput, tx?: Tx): Promise<{ id: string } | null> {
  const db = tx ?? store.db
  const settings = await findWebhookSettings(db, input.accountId)
  const url = input.url ?? settings?.webhook_url ?? null
  if (!settings || !url) return null
  // A job's own webhook_url may come before any account webhook: the first webhook creates the secret (SPEC Authentication 11).
  if (!settings.webhook_secret) await setSecretIfMissing(db, input.accountId, newWebhookSecret())
  const now = Date.now()
  const id = input.id ?? randomUUID()
  await insertDelivery(db, {
    id,
    account_id: input.accountId,
    event: input.event,
    url,
    payload: JSON.stringify(input.payload),
    status: 'queued',
    run_at: now,
    lease_owner: null,
    lease_expires_at: null,
    attempts: 0,
    last_error: null,
    last_status_code: null,
    created_at: now,
    delivered_at: null,
    // The request being served, or the one that created the job now ending: the delivery's log lines name it.
    request_id: currentRequestId() ?? null,
  })
  wakeJobs(store, WEBHOOK_JOB)
  return { id }
}

/** 'pending' while queued or in flight; null when no delivery has that id (none queued, or pruned). */
export async function webhookDeliveryStatus(store: Store, id: string): Promise<WebhookStatus | null> {
  const row = await findDelivery(store.db, id)
  if (!row) return null
  return row.status === 'delivered' || row.status === 'failed' ? row.status : 'pending'
}

/** The stored delivery (attempts, last error, last status code) for diagnostics and tests. */
export const getWebhookDelivery = (store: Store, id: string) => findDelivery(store.db, id)

/**
 * The account's signing secret, created when missing. `created` is true only for the call whose
 * secret was stored, which is then the one place it may be shown.
 */
export async function ensureWebhookSecret(store: Store, accountId: string): Promise<{ secret: string; created: boolean }> {
  const fresh = newWebhookSecret()
  const result = await setSecretIfMissing(store.db, accountId, fresh)
  if (Number(result[0]?.numUpdatedRows ?? 0) === 1) return { secret: fresh, created: true }
  const settings = await findWebhookSettings(store.db, accountId)
  if (!settings?.webhook_secret) throw new ApiError('not_found', `account ${accountId} does not exist`)
  return { secret: settings.webhook_secret, created: false }
}
