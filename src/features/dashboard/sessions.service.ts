import { randomBytes } from 'node:crypto'
import { ApiError } from '../../errors.ts'
import { DUMMY_PASSWORD_HASH, hashPassword, needsRehash, sha256, verifyPassword } from '../../security/secrets.ts'
import type { Store } from '../../store/database.ts'
import { createAccount, setUserPassword } from '../accounts/accounts.service.ts'
import { findUser, findUserByEmail, updateUserPassword } from '../accounts/accounts.store.ts'
import { deleteSession, findSession, insertSession, trimUserSessions } from './dashboard.store.ts'

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
  // A hash made with older, cheaper settings is made again now that the password is at hand.
  if (needsRehash(user.password_hash)) await updateUserPassword(store.db, user.id, await hashPassword(password))
  return openSession(store, user)
}

/** Sessions a user keeps at once: signing in again past this ends the oldest. */
export const MAX_SESSIONS_PER_USER = 20

export async function openSession(store: Store, user: { id: string; email: string; role: 'owner' | 'member' }) {
  const token = randomBytes(32).toString('base64url')
  const now = Date.now()
  await insertSession(store.db, { id_hash: sha256(token), user_id: user.id, created_at: now, expires_at: now + SESSION_TTL_MS })
  await trimUserSessions(store.db, user.id, MAX_SESSIONS_PER_USER)
  return { token, user: { id: user.id, email: user.email, role: user.role } }
}

/**
 * Self-service sign-up (TRAWL_SIGNUP=open): an account on the free plan with `credits`
 * (TRAWL_SIGNUP_CREDITS, none by default), its owner, its first API key (the secret returned once,
 * as the operator's create does), and a session.
 */
export const TAKEN_MESSAGE = 'this email cannot sign up here; if it has an account, sign in (the operator resets forgotten passwords)'

/**
 * Self-service sign-up. An email that is taken gets the answer any refused sign-up could get, not
 * the operator's "is already registered": without email proof some answer must differ from a
 * success, so what keeps sign-up from being an address book is its budgets (docs/dashboard.md).
 */
export async function signup(store: Store, email: string, password: string, credits: number) {
  if (await findUserByEmail(store.db, email.trim().toLowerCase())) throw new ApiError('invalid_request', TAKEN_MESSAGE)
  const created = await createAccount(store, { email, password, plan: 'free', credits })
  const session = await openSession(store, { id: created.owner.id, email: created.owner.email, role: 'owner' })
  return { ...session, account: created.account, key: created.key }
}

/**
 * The signed-in user's own change: the current password must be right (else 403 and nothing
 * changes); every other session of the user is signed out, the one `token` names stays.
 */
export async function changePassword(store: Store, user: SessionUser, token: string, current: string, next: string) {
  const row = await findUser(store.db, user.id)
  const ok = await verifyPassword(current, row?.password_hash ?? DUMMY_PASSWORD_HASH)
  if (!row?.password_hash || !ok) throw new ApiError('forbidden', 'current password is wrong')
  await setUserPassword(store, user.id, next, sha256(token))
}

/** `loginPath` is where this server serves login ({app_api_url}/v1/login), named in the 401. */
export async function sessionUser(store: Store, token: string | undefined, loginPath: string): Promise<SessionUser> {
  if (!token) throw new ApiError('unauthorized', `not logged in: POST ${loginPath} first`)
  const session = await findSession(store.db, sha256(token))
  const user = session && session.expires_at > Date.now() ? await findUser(store.db, session.user_id) : undefined
  if (!user) throw new ApiError('unauthorized', 'session expired: log in again')
  return { id: user.id, email: user.email, role: user.role, accountId: user.account_id }
}

export async function logout(store: Store, token: string | undefined) {
  if (token) await deleteSession(store.db, sha256(token))
}
