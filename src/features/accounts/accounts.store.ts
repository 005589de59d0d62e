import type { Db, Tx } from '../../store/database.ts'
import type { AccountRow, ApiKeyRow, UserRow } from '../../store/schema.ts'

/** SQL for accounts, users and keys. No rules here: those live in accounts.service.ts. */

export const insertAccount = (db: Db | Tx, row: AccountRow) => db.insertInto('accounts').values(row).execute()
export const insertUser = (db: Db | Tx, row: UserRow) => db.insertInto('users').values(row).execute()
export const insertKey = (db: Db | Tx, row: ApiKeyRow) => db.insertInto('api_keys').values(row).execute()

export const findAccount = (db: Db | Tx, id: string) => db.selectFrom('accounts').selectAll().where('id', '=', id).executeTakeFirst()

/** Accounts oldest first, each with its owner's email: the operator's list (`trawl accounts list`). */
export const listAccountsWithOwner = (db: Db, limit: number, offset: number) =>
  db
    .selectFrom('accounts as a')
    .leftJoin('users as u', (join) => join.onRef('u.account_id', '=', 'a.id').on('u.role', '=', 'owner'))
    .selectAll('a')
    .select('u.email as owner_email')
    .orderBy('a.created_at')
    .orderBy('a.id')
    .limit(limit)
    .offset(offset)
    .execute()

export const listUsers = (db: Db | Tx, accountId: string) =>
  db.selectFrom('users').select(['id', 'email', 'role', 'created_at']).where('account_id', '=', accountId).orderBy('created_at').execute()

export const findUser = (db: Db | Tx, id: string) => db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst()

export const findUserByEmail = (db: Db | Tx, email: string) => db.selectFrom('users').selectAll().where('email', '=', email).executeTakeFirst()

export const findOwner = (db: Db | Tx, accountId: string) =>
  db.selectFrom('users').selectAll().where('account_id', '=', accountId).where('role', '=', 'owner').executeTakeFirstOrThrow()

export const findKey = (db: Db | Tx, accountId: string, id: string) =>
  db.selectFrom('api_keys').selectAll().where('account_id', '=', accountId).where('id', '=', id).executeTakeFirst()

/** Live keys oldest first; the id orders keys created in the same millisecond. */
export const listLiveKeys = (db: Db | Tx, accountId: string) =>
  db.selectFrom('api_keys').selectAll().where('account_id', '=', accountId).where('revoked_at', 'is', null).orderBy('created_at').orderBy('id').execute()

/** Every key the account ever had (revoked ones keep their usage history), for labels. */
export const accountKeyNames = (db: Db, accountId: string) =>
  db.selectFrom('api_keys').select(['id', 'name', 'revoked_at']).where('account_id', '=', accountId).execute()

/** The auth lookup: key by hash with the account fields every request needs. */
export const findKeyByHash = (db: Db, secretHash: string) => keyWithAccount(db).where('k.secret_hash', '=', secretHash).executeTakeFirst()

/** A key read by id, for work done on its behalf without a request (batch jobs, monitor runs). */
export const findKeyById = (db: Db, keyId: string) => keyWithAccount(db).where('k.id', '=', keyId).executeTakeFirst()

const keyWithAccount = (db: Db) =>
  db
    .selectFrom('api_keys as k')
    .innerJoin('accounts as a', 'a.id', 'k.account_id')
    .select([
      'k.id',
      'k.account_id',
      'k.user_id',
      'k.name',
      'k.secret_hash',
      'k.credit_limit_mc',
      'k.allow_fallback',
      'k.last_used_at',
      'k.revoked_at',
      'a.plan',
      'a.rate_limit_rps',
    ])

export const updateAccount = (db: Db | Tx, id: string, patch: Partial<AccountRow>) => db.updateTable('accounts').set(patch).where('id', '=', id).execute()

export const updateUserPassword = (db: Db | Tx, userId: string, passwordHash: string) =>
  db.updateTable('users').set({ password_hash: passwordHash }).where('id', '=', userId).execute()

export const updateKey = (db: Db | Tx, id: string, patch: Partial<ApiKeyRow>) => db.updateTable('api_keys').set(patch).where('id', '=', id).execute()

/** The same credit limit on every key the account's members created (the owner's member key limit). */
export const setMemberKeysLimit = (db: Db | Tx, accountId: string, creditLimitMc: number | null) =>
  db
    .updateTable('api_keys')
    .set({ credit_limit_mc: creditLimitMc })
    .where('user_id', 'in', db.selectFrom('users').select('id').where('account_id', '=', accountId).where('role', '=', 'member'))
    .execute()

/** Writes last_used_at only when the stored value is a minute old, so hot keys cost no write per call. */
export const touchKey = (db: Db, id: string, now: number) =>
  db
    .updateTable('api_keys')
    .set({ last_used_at: now })
    .where('id', '=', id)
    .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', now - 60_000)]))
    .execute()
