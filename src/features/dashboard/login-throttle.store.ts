import type { Db, Tx } from '../../store/database.ts'

/**
 * SQL of login throttling when there is no Redis: one row per budget (scope 'email' or 'ip', and
 * its key) holding the attempts taken in the current window. Rules live in login-throttle.ts.
 */

export type AttemptScope = 'email' | 'ip' | 'signup-email' | 'signup-ip'

/**
 * Takes one attempt from a budget of `limit` per window, in one statement: a row whose window has
 * ended starts again at 1, a row at its limit is left as it is. The row (PostgreSQL) or the database
 * (SQLite) stays locked from the check to the count, so any number of concurrent takers, in any
 * number of processes, take at most `limit`. False when the budget is spent.
 */
export async function takeAttempt(tx: Tx, scope: AttemptScope, key: string, limit: number, now: number, windowMs: number): Promise<boolean> {
  const rows = await tx
    .insertInto('login_attempts')
    .values({ scope, key, attempts: 1, resets_at: now + windowMs })
    .onConflict((oc) =>
      oc
        .columns(['scope', 'key'])
        .doUpdateSet((eb) => ({
          attempts: eb
            .case()
            .when('login_attempts.resets_at', '<=', now)
            .then(1)
            .else(eb('login_attempts.attempts', '+', 1))
            .end(),
          resets_at: eb.case().when('login_attempts.resets_at', '<=', now).then(eb.ref('excluded.resets_at')).else(eb.ref('login_attempts.resets_at')).end(),
        }))
        .where((eb) => eb.or([eb('login_attempts.resets_at', '<=', now), eb('login_attempts.attempts', '<', limit)])),
    )
    .returning('attempts')
    .execute()
  return rows.length === 1
}

/** When the budget's window ends (epoch ms), or undefined when it has no row. */
export async function attemptsResetAt(db: Db, scope: AttemptScope, key: string): Promise<number | undefined> {
  const row = await db.selectFrom('login_attempts').select('resets_at').where('scope', '=', scope).where('key', '=', key).executeTakeFirst()
  return row?.resets_at
}

/** Gives one attempt back to a budget whose window is still running. */
export async function giveAttemptBack(db: Db, scope: AttemptScope, key: string, now: number) {
  await db
    .updateTable('login_attempts')
    .set((eb) => ({ attempts: eb('attempts', '-', 1) }))
    .where('scope', '=', scope)
    .where('key', '=', key)
    .where('attempts', '>', 0)
    .where('resets_at', '>', now)
    .execute()
}

export async function clearAttempts(db: Db, scope: AttemptScope, key: string) {
  await db.deleteFrom('login_attempts').where('scope', '=', scope).where('key', '=', key).execute()
}

/** Budgets whose window has ended hold nothing: removed by the maintenance worker. */
export async function pruneLoginAttempts(db: Db, now: number): Promise<number> {
  const result = await db.deleteFrom('login_attempts').where('resets_at', '<=', now).executeTakeFirst()
  return Number(result.numDeletedRows)
}
