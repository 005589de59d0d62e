import type { Db, Tx } from '../../store/database.ts'
import type { SessionRow } from '../../store/schema.ts'

/**
 * SQL of the dashboard's login sessions. The screens read other features' tables through those
 * features' stores (accounts, billing, crawl, batches, webhooks); rules live in the *.service.ts
 * files beside it.
 */

export const insertSession = (db: Db, row: SessionRow) => db.insertInto('sessions').values(row).execute()

/** A session by the token's hash. */
export const findSession = (db: Db, idHash: string) =>
  db.selectFrom('sessions').select(['user_id', 'expires_at']).where('id_hash', '=', idHash).executeTakeFirst()

export const deleteSession = (db: Db, idHash: string) => db.deleteFrom('sessions').where('id_hash', '=', idHash).execute()

/** Signs a user out everywhere (a password set or changed), but for the session `keepIdHash` when given. */
export const deleteUserSessions = (db: Db | Tx, userId: string, keepIdHash?: string) => {
  let q = db.deleteFrom('sessions').where('user_id', '=', userId)
  if (keepIdHash) q = q.where('id_hash', '!=', keepIdHash)
  return q.execute()
}

/** Keeps a user's `keep` newest sessions and deletes the older ones; the number deleted. */
export async function trimUserSessions(db: Db, userId: string, keep: number): Promise<number> {
  const newest = db.selectFrom('sessions').select('id_hash').where('user_id', '=', userId).orderBy('created_at', 'desc').orderBy('id_hash').limit(keep)
  const result = await db.deleteFrom('sessions').where('user_id', '=', userId).where('id_hash', 'not in', newest).executeTakeFirst()
  return Number(result.numDeletedRows)
}

/** Deletes sessions past their expiry (the sweep); the number deleted. */
export async function pruneExpiredSessions(db: Db, now: number): Promise<number> {
  const result = await db.deleteFrom('sessions').where('expires_at', '<=', now).executeTakeFirst()
  return Number(result.numDeletedRows)
}
