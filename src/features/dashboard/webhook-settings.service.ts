import { randomUUID } from 'node:crypto'
import type { Config } from '../../config.ts'
import { ApiError } from '../../errors.ts'
import { newWebhookSecret, WEBHOOK_SECRET_PREFIX } from '../../security/secrets.ts'
import type { Store } from '../../store/database.ts'
import { sendWebhook } from '../../webhooks/webhook.deliver.ts'
import { webhookHeaders } from '../../webhooks/webhook.sign.ts'
import { ensureWebhookSecret, sealWebhookSecret, unsealWebhookSecret } from '../../webhooks/webhooks.service.ts'
import { insertDelivery, recentDeliveries } from '../../webhooks/webhooks.store.ts'
import { WEBHOOK_TIMEOUT_MS } from '../../webhooks/webhooks.worker.ts'
import { findAccount, updateAccount } from '../accounts/accounts.store.ts'
import type { SessionUser } from './sessions.service.ts'

/**
 * The account's webhook settings in the dashboard (docs/dashboard.md).
 * Decisions: every user of the account may read the URL and the secret's prefix (members already see
 * and manage keys); only the owner changes the URL or rotates the secret, since both redirect or
 * re-key what every batch, crawl and monitor of the account sends. The secret itself is shown only
 * by the call that creates it: the rotation, or the PUT that sets the first URL (as `secret`).
 * Clearing the URL keeps the secret, so jobs that name their own webhook_url stay verifiable.
 */

/** Enough of the secret to tell two apart, as key prefixes do; 36 of its 256 bits. */
const secretPrefix = (secret: string | null) => (secret ? secret.slice(0, WEBHOOK_SECRET_PREFIX.length + 6) : null)

function ownerOnly(user: SessionUser) {
  if (user.role !== 'owner') throw new ApiError('forbidden', 'only the account owner changes webhook settings')
}

async function accountOf(store: Store, user: SessionUser) {
  const row = await findAccount(store.db, user.accountId)
  if (!row) throw new ApiError('unauthorized', 'account no longer exists: log in again')
  return row
}

export async function getWebhookSettings(store: Store, user: SessionUser) {
  const row = await accountOf(store, user)
  const secret = row.webhook_secret ? await unsealWebhookSecret(store, user.accountId, row.webhook_secret) : null
  return { url: row.webhook_url, secret_prefix: secretPrefix(secret) }
}

export async function setWebhookUrl(store: Store, user: SessionUser, url: string | null) {
  ownerOnly(user)
  await accountOf(store, user)
  await updateAccount(store.db, user.accountId, { webhook_url: url })
  // The account's first webhook URL creates its signing secret; shown here, once.
  const created = url ? await ensureWebhookSecret(store, user.accountId) : null
  const view = await getWebhookSettings(store, user)
  return created?.created ? { ...view, secret: created.secret } : view
}

/** A new secret in place; the next delivery attempt (retries of earlier events included) is signed with it. */
export async function rotateWebhookSecret(store: Store, user: SessionUser) {
  ownerOnly(user)
  await accountOf(store, user)
  const secret = newWebhookSecret()
  await updateAccount(store.db, user.accountId, { webhook_secret: await sealWebhookSecret(store, user.accountId, secret) })
  return { secret }
}

const isoOrNull = (ms: number | null) => (ms == null ? null : new Date(ms).toISOString())

type DeliveryRow = Awaited<ReturnType<typeof recentDeliveries>>[number]

function toDeliveryView(r: DeliveryRow) {
  return {
    id: r.id,
    event: r.event,
    url: r.url,
    status: r.status,
    attempts: r.attempts,
    response_code: r.last_status_code,
    error: r.last_error,
    created_at: new Date(r.created_at).toISOString(),
    delivered_at: isoOrNull(r.delivered_at),
    next_attempt_at: r.status === 'queued' ? new Date(r.run_at).toISOString() : null,
  }
}

/** The account's recent webhook deliveries (kept 7 days), newest first; every user of the account reads them. */
export async function listDeliveries(store: Store, user: SessionUser, limit: number) {
  const rows = await recentDeliveries(store.db, user.accountId, limit)
  return { deliveries: rows.map(toDeliveryView) }
}

/**
 * "Send test event": one signed `webhook.test` POST to the account's webhook URL, sent now (one
 * attempt, no retries) through the same guard, signing and timeout as real deliveries, and recorded
 * in the delivery list. Any user of the account may send one: it changes no setting.
 */
export async function sendTestEvent(store: Store, config: Pick<Config, 'allowPrivateNetwork'>, user: SessionUser) {
  const row = await accountOf(store, user)
  if (!row.webhook_url) throw new ApiError('invalid_request', 'set a webhook URL first')
  const { secret } = await ensureWebhookSecret(store, user.accountId)
  const id = randomUUID()
  const now = Date.now()
  const body = JSON.stringify({
    event: 'webhook.test',
    id,
    created_at: new Date(now).toISOString(),
    message: 'A test event sent from the Trawl dashboard. Verify its signature like any other event.',
  })
  const headers = webhookHeaders({ id, event: 'webhook.test', secret, body, now })
  const result = await sendWebhook(row.webhook_url, headers, body, { allowPrivateNetwork: config.allowPrivateNetwork, timeoutMs: WEBHOOK_TIMEOUT_MS })
  const done = Date.now()
  const delivery = {
    id,
    account_id: user.accountId,
    event: 'webhook.test' as const,
    url: row.webhook_url,
    payload: body,
    status: result.ok ? ('delivered' as const) : ('failed' as const),
    run_at: now,
    lease_owner: null,
    lease_expires_at: null,
    attempts: 1,
    last_error: result.ok ? null : result.error,
    last_status_code: result.statusCode,
    created_at: now,
    delivered_at: result.ok ? done : null,
  }
  await insertDelivery(store.db, delivery)
  return { delivery: toDeliveryView(delivery) }
}
