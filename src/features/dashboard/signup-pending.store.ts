import type { Db, Tx } from '../../store/database.ts'
import type { SignupPendingRow } from '../../store/schema.ts'

/** SQL of sign-ups waiting for their email link (signup-verify.ts has the rules). */

/** Keeps `row` as the email's one pending sign-up: a newer sign-up replaces the older link. */
export async function savePendingSignup(tx: Tx, row: SignupPendingRow): Promise<void> {
  await tx.deleteFrom('signup_pending').where('email', '=', row.email).execute()
  await tx.insertInto('signup_pending').values(row).execute()
}

/** Takes the pending sign-up of a token's hash once: the row is gone whoever reads it first. */
export async function takePendingSignup(tx: Tx, tokenHash: string): Promise<SignupPendingRow | undefined> {
  return tx.deleteFrom('signup_pending').where('token_hash', '=', tokenHash).returningAll().executeTakeFirst()
}

export async function deletePendingSignup(db: Db, tokenHash: string): Promise<void> {
  await db.deleteFrom('signup_pending').where('token_hash', '=', tokenHash).execute()
}

/** Removes links that have expired (the maintenance sweep). */
export async function deleteExpiredSignups(db: Db, now: number): Promise<number> {
  const result = await db.deleteFrom('signup_pending').where('expires_at', '<=', now).executeTakeFirst()
  return Number(result.numDeletedRows)
}
