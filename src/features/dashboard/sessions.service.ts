import { randomBytes } from 'node:crypto'
import { ApiError } from '../../errors.ts'
import type { Store } from '../../store/database.ts'
import { findUserByEmail } from '../accounts/accounts.store.ts'
import { DUMMY_PASSWORD_HASH, sha256, verifyPassword } from '../accounts/secrets.ts'
import { deleteSession, findSession, insertSession } from './dashboard.store.ts'

export const SESSION_COOKIE = 'trawl_session'
/**
 * Readable by the app's script (the session cookie is HttpOnly): "a session may exist", so a
 * signed-out visitor's first load shows the sign-in screen without a session probe answered 401
 * (which the browser logs as an error). It holds nothing but "1".
 */
export const SIGNED_IN_HINT_COOKIE = 'trawl_signed_in'
export const SESSION_TTL_MS = 7 * 24 * 3600_000

export interface SessionUser {
  id: string
  email: string
  role: 'owner' | 'member'
  accountId: string
}

/**
 * Checks the password with the KDF and opens a session; the same message for every failure. An
 * unknown email, or a user without a password, is checked against a dummy hash with the same KDF
 * cost, so the answer takes as long as a wrong password's and its timing says nothing about
 * which emails have accounts.
 */
export async function login(store: Store, email: string, password: string) {
  const user = await findUserByEmail(store.db, email.trim().toLowerCase())
  const ok = await verifyPassword(password, user?.password_hash ?? DUMMY_PASSWORD_HASH)
  if (!user?.password_hash || !ok) throw new ApiError('unauthorized', 'email or password is wrong')
  const token = randomBytes(32).toString('base64url')
  const now = Date.now()
  await insertSession(store.db, { id_hash: sha256(token), user_id: user.id, created_at: now, expires_at: now + SESSION_TTL_MS })
  return { token, user: { id: user.id, email: user.email, role: user.role } }
}

/** `loginPath` is where this server serves login ({app_api_url}/v1/login), named in the 401. */
export async function sessionUser(store: Store, token: string | undefined, loginPath: string): Promise<SessionUser> {
  if (!token) throw new ApiError('unauthorized', `not logged in: POST ${loginPath} first`)
  const row = await findSession(store.db, sha256(token))
  if (!row || row.expires_at <= Date.now()) throw new ApiError('unauthorized', 'session expired: log in again')
  return { id: row.id, email: row.email, role: row.role, accountId: row.account_id }
}

export async function logout(store: Store, token: string | undefined) {
  if (token) await deleteSession(store.db, sha256(token))
}
