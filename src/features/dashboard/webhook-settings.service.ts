import { ApiError } from '../../errors.ts'
import type { Store } from '../../store/database.ts'
import { findAccount, updateAccount } from '../accounts/accounts.store.ts'
import { newWebhookSecret, WEBHOOK_SECRET_PREFIX } from '../accounts/secrets.ts'
import { ensureWebhookSecret } from '../webhooks/webhooks.service.ts'
import type { SessionUser } from './sessions.service.ts'

/**
 * The account's webhook settings in the dashboard (CONTRACT §3b, SPEC Authentication 11).
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
  return { url: row.webhook_url, secret_prefix: secretPrefix(row.webhook_secret) }
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
  await updateAccount(store.db, user.accountId, { webhook_secret: secret })
  return { secret }
}
