import { randomUUID } from 'node:crypto'
import { ApiError } from '../errors.ts'
import { type JobQueue, wakeJobs } from '../jobs/runner.ts'
import { currentRequestId } from '../metrics/log-context.ts'
import { newWebhookSecret } from '../security/secrets.ts'
import type { Store, Tx } from '../store/database.ts'
import { isSealed, seal, unseal } from '../store/sealed.ts'
import type { WebhookEvent } from './webhook.sign.ts'
import {
  clearWebhookSecrets,
  findDelivery,
  findWebhookSettings,
  insertDelivery,
  pruneFinished,
  replaceWebhookSecret,
  setSecretIfMissing,
} from './webhooks.store.ts'

export type { WebhookEvent } from './webhook.sign.ts'

export interface EnqueueWebhookInput {
  accountId: string
  event: WebhookEvent
  /** The job's own webhook_url; defaults to the account's webhook URL. */
  url?: string | null
  /** Serialised once here: every attempt sends (and signs) these exact bytes. */
  payload: object
  /** The delivery id (X-Trawl-Delivery); batches pass the job id. Default: a new UUID. */
  id?: string
}

/** Batch/crawl/monitor view of a delivery (their `webhook_status`). */
export type WebhookStatus = 'pending' | 'delivered' | 'failed'

/** The job kind that delivers webhooks: what `wakeJobs(signals, WEBHOOK_JOB)` wakes. */
export const WEBHOOK_JOB = 'webhook'

/**
 * Queues a signed webhook for delivery by the webhook worker. Returns null when there is nowhere
 * to send it (no `url` and no account webhook URL). Pass `tx` to queue it atomically with the job's
 * own completion; the in-process wake-up then fires before the commit, so that row is picked up by
 * the next poll instead (at most a second later).
 */
export async function enqueueWebhook(queue: JobQueue, input: EnqueueWebhookInput, tx?: Tx): Promise<{ id: string } | null> {
  const { store, signals } = queue
  const db = tx ?? store.db
  const settings = await findWebhookSettings(db, input.accountId)
  const url = input.url ?? settings?.webhook_url ?? null
  if (!settings || !url) return null
  // A job's own webhook_url may come before any account webhook: the first webhook creates the secret.
  if (!settings.webhook_secret) await setSecretIfMissing(db, input.accountId, await sealWebhookSecret(store, input.accountId, newWebhookSecret()))
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
  wakeJobs(signals, WEBHOOK_JOB)
  return { id }
}

/** 'pending' while queued or in flight; null when no delivery has that id (none queued, or pruned). */
export async function webhookDeliveryStatus(store: Store, id: string): Promise<WebhookStatus | null> {
  const row = await findDelivery(store.db, id)
  if (!row) return null
  return row.status === 'delivered' || row.status === 'failed' ? row.status : 'pending'
}

/** Finished deliveries outlive what refers to them (batch and crawl results are kept 24 hours). */
const KEEP_FINISHED_MS = 7 * 24 * 3600_000

/** Removes delivered and failed deliveries past KEEP_FINISHED_MS; the maintenance worker runs it. */
export const pruneOldDeliveries = (store: Store, now: number) => pruneFinished(store.db, now - KEEP_FINISHED_MS)

/** The stored delivery (attempts, last error, last status code) for diagnostics and tests. */
export const getWebhookDelivery = (store: Store, id: string) => findDelivery(store.db, id)

/**
 * The account's signing secret, created when missing. `created` is true only for the call whose
 * secret was stored, which is then the one place it may be shown.
 */
export async function ensureWebhookSecret(store: Store, accountId: string): Promise<{ secret: string; created: boolean }> {
  const fresh = newWebhookSecret()
  const result = await setSecretIfMissing(store.db, accountId, await sealWebhookSecret(store, accountId, fresh))
  if (Number(result[0]?.numUpdatedRows ?? 0) === 1) return { secret: fresh, created: true }
  const settings = await findWebhookSettings(store.db, accountId)
  if (!settings?.webhook_secret) throw new ApiError('not_found', `account ${accountId} does not exist`)
  return { secret: await unsealWebhookSecret(store, accountId, settings.webhook_secret), created: false }
}

/**
 * Webhook signing secrets are stored encrypted (store/sealed.ts; docs/operations.md "Data at
 * rest"), bound to their account: the column never holds the secret itself. Every write of
 * accounts.webhook_secret goes through sealWebhookSecret, every read through unsealWebhookSecret.
 */
const SECRET_PURPOSE = 'webhook_secret'

export const sealWebhookSecret = (store: Store, accountId: string, secret: string) => seal(store, SECRET_PURPOSE, secret, accountId)

/** The secret of a stored value: sealed, or in clear as versions before encryption stored it. */
export const unsealWebhookSecret = (store: Store, accountId: string, stored: string) => unseal(store, SECRET_PURPOSE, stored, accountId)

/** The account's signing secret in clear, or null when it has none (yet). */
export async function readWebhookSecret(store: Store, accountId: string): Promise<string | null> {
  const stored = (await findWebhookSettings(store.db, accountId))?.webhook_secret
  return stored ? unsealWebhookSecret(store, accountId, stored) : null
}

/**
 * Encrypts secrets still stored in clear (written before encryption, or by an older process during
 * an upgrade), 500 at a time; the maintenance worker runs it. Each row is replaced only if it still
 * holds the value read, so a rotation meanwhile is never overwritten. Returns the rows sealed.
 */
export async function sealClearWebhookSecrets(store: Store): Promise<number> {
  let sealed = 0
  for (const row of await clearWebhookSecrets(store.db, 500)) {
    if (row.webhook_secret && !isSealed(row.webhook_secret)) {
      sealed += await replaceWebhookSecret(store.db, row.id, row.webhook_secret, await sealWebhookSecret(store, row.id, row.webhook_secret))
    }
  }
  return sealed
}
