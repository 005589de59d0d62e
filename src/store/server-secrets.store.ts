import { randomBytes } from 'node:crypto'
import type { Store } from './database.ts'

/**
 * The installation's secret called `name`, made on first use. Every process sharing the database
 * gets the same value, so a token signed by one is accepted by the others and after restarts. Two
 * processes racing on first use both insert-or-ignore and then read the one row that won.
 */
export async function serverSecret(store: Store, name: string): Promise<string> {
  const existing = await store.db.selectFrom('server_secrets').select('value').where('name', '=', name).executeTakeFirst()
  if (existing) return existing.value
  await store.db
    .insertInto('server_secrets')
    .values({ name, value: randomBytes(32).toString('base64url'), created_at: Date.now() })
    .onConflict((oc) => oc.column('name').doNothing())
    .execute()
  const row = await store.db.selectFrom('server_secrets').select('value').where('name', '=', name).executeTakeFirstOrThrow()
  return row.value
}
