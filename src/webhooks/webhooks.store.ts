import type { Db, Tx } from '../store/database.ts'
import type { WebhookDeliveryRow } from '../store/schema.ts'

/** SQL for webhook deliveries and the account's webhook settings. Rules live in webhooks.service.ts. */

export const DELIVERIES = 'webhook_deliveries'

/** Idempotent on the delivery id: enqueueing the same id again (a retried job step) is a no-op. */
export const insertDelivery = (db: Db | Tx, row: Omit<WebhookDeliveryRow, 'request_id'> & { request_id?: string | null }) =>
  db
    .insertInto('webhook_deliveries')
    .values({ request_id: null, ...row })
    .onConflict((oc) => oc.column('id').doNothing())
    .execute()

export const findDelivery = (db: Db | Tx, id: string) => db.selectFrom('webhook_deliveries').selectAll().where('id', '=', id).executeTakeFirst()

/** The account's deliveries, newest first, without their payloads. */
export const recentDeliveries = (db: Db, accountId: string, limit: number) =>
  db
    .selectFrom('webhook_deliveries')
    .select(['id', 'event', 'url', 'status', 'attempts', 'last_status_code', 'last_error', 'created_at', 'delivered_at', 'run_at'])
    .where('account_id', '=', accountId)
    .orderBy('created_at', 'desc')
    .limit(limit)
    .execute()

export const findWebhookSettings = (db: Db | Tx, accountId: string) =>
  db.selectFrom('accounts').select(['webhook_url', 'webhook_secret']).where('id', '=', accountId).executeTakeFirst()

/** Sets the secret only where none exists, so two concurrent first URLs cannot each show a different one. */
export const setSecretIfMissing = (db: Db | Tx, accountId: string, secret: string) =>
  db.updateTable('accounts').set({ webhook_secret: secret }).where('id', '=', accountId).where('webhook_secret', 'is', null).execute()

/** Accounts whose webhook secret is stored in clear (before encryption); sealed values start `enc:v1:`. */
export const clearWebhookSecrets = (db: Db, limit: number) =>
  db
    .selectFrom('accounts')
    .select(['id', 'webhook_secret'])
    .where('webhook_secret', 'is not', null)
    .where('webhook_secret', 'not like', 'enc:v1:%')
    .limit(limit)
    .execute()

/** Replaces the secret's stored form only where it is still `from`; 1 when replaced. */
export async function replaceWebhookSecret(db: Db, accountId: string, from: string, to: string): Promise<number> {
  const result = await db.updateTable('accounts').set({ webhook_secret: to }).where('id', '=', accountId).where('webhook_secret', '=', from).executeTakeFirst()
  return Number(result.numUpdatedRows)
}

export type AttemptOutcome = Pick<WebhookDeliveryRow, 'status' | 'run_at' | 'last_error' | 'last_status_code' | 'delivered_at'>

/** Drops finished deliveries past the time anyone reads their status (results are kept 24 hours). */
export async function pruneFinished(db: Db, olderThan: number): Promise<number> {
  const result = await db.deleteFrom('webhook_deliveries').where('status', 'in', ['delivered', 'failed']).where('created_at', '<', olderThan).executeTakeFirst()
  return Number(result.numDeletedRows)
}
