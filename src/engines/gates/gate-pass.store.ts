import type { Store } from '../../store/database.ts'
import type { PassStore } from '../upstream/engine-session.ts'

/**
 * SQL of the passes earned at engines' gates: one row per engine session, its cookie jar as JSON,
 * so every process of a deployment (API processes, `trawl worker`s) uses a pass one of them earned.
 * Rows past their expiry are never read, and are deleted when a new pass is written.
 */
export function gatePassStore(store: Store, now: () => number = Date.now): PassStore {
  return {
    async load(session) {
      const row = await store.db
        .selectFrom('engine_passes')
        .select(['cookies', 'updated_at'])
        .where('session', '=', session)
        .where('expires_at', '>', now())
        .executeTakeFirst()
      return row ? { cookies: row.cookies, updatedAt: Number(row.updated_at) } : null
    },
    async save(session, cookies, expiresAt) {
      const at = now()
      await store.db.deleteFrom('engine_passes').where('expires_at', '<=', at).execute()
      await store.db
        .insertInto('engine_passes')
        .values({ session, cookies, updated_at: at, expires_at: expiresAt })
        .onConflict((oc) => oc.column('session').doUpdateSet({ cookies, updated_at: at, expires_at: expiresAt }))
        .execute()
    },
  }
}
