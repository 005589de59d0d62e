import { randomBytes } from 'node:crypto'
import { ApiError } from '../../errors.ts'
import { checkNewPassword } from '../../security/password-policy.ts'
import { hashPassword, sha256 } from '../../security/secrets.ts'
import type { Store } from '../../store/database.ts'
import { createAccount } from '../accounts/accounts.service.ts'
import { findUserByEmail } from '../accounts/accounts.store.ts'
import { openSession, TAKEN_MESSAGE } from './sessions.service.ts'
import { deletePendingSignup, savePendingSignup, takePendingSignup } from './signup-pending.store.ts'

/**
 * Sign-up with proof of the mailbox (TRAWL_SIGNUP_VERIFY_URL, docs/dashboard.md). Trawl sends no
 * email itself: it posts the link to the operator's hook, which mails it however the operator
 * mails. Nothing is made until the link is opened, so an unproven address holds no account, no key
 * and no credits; the password is checked and hashed at once and kept with the link, never in clear.
 */

/** How long a link works. */
export const LINK_TTL_MS = 24 * 3600_000
const HOOK_TIMEOUT_MS = 5000

/** The path of the link, under the dashboard's API. */
export const VERIFY_PATH = '/v1/signup/verify'

/** Keeps the sign-up pending and posts its link, under `apiUrl` (the dashboard's API), to `hookUrl`. */
export async function requestSignupLink(store: Store, hookUrl: string, apiUrl: string, email: string, password: string) {
  const address = email.trim().toLowerCase()
  if (await findUserByEmail(store.db, address)) throw new ApiError('invalid_request', TAKEN_MESSAGE)
  checkNewPassword(password, [address])
  const token = randomBytes(32).toString('base64url')
  const now = Date.now()
  const row = { email: address, token_hash: sha256(token), password_hash: await hashPassword(password), created_at: now, expires_at: now + LINK_TTL_MS }
  await store.transaction((tx) => savePendingSignup(tx, row))
  const link = `${apiUrl}${VERIFY_PATH}?token=${token}`
  const failure = await postToHook(hookUrl, {
    type: 'signup.verify',
    email: address,
    verify_url: link,
    expires_at: new Date(row.expires_at).toISOString(),
  })
  if (failure) {
    await deletePendingSignup(store.db, row.token_hash)
    throw new ApiError('unavailable', `the sign-up email could not be sent (the operator's verification hook ${failure}); try again later`, {
      retryAfterSeconds: 60,
    })
  }
  return { status: 'verification_sent' as const, email: address, expires_at: new Date(row.expires_at).toISOString() }
}

/** The hook's failure in words, or null when it took the message (any 2xx). */
async function postToHook(url: string, body: unknown): Promise<string | null> {
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
      redirect: 'error',
      signal: AbortSignal.timeout(HOOK_TIMEOUT_MS),
    })
    await res.body?.cancel()
    return res.ok ? null : `answered HTTP ${res.status}`
  } catch (err) {
    return (err as Error).name === 'TimeoutError' ? `did not answer within ${HOOK_TIMEOUT_MS / 1000} s` : 'could not be reached'
  }
}

/** The link opened: the account is made (once) and its owner signed in. */
export async function finishSignup(store: Store, token: string, credits: number) {
  const pending = await store.transaction((tx) => takePendingSignup(tx, sha256(token)))
  if (!pending || pending.expires_at <= Date.now()) {
    throw new ApiError('invalid_request', 'this sign-up link is unknown, already used or expired: sign up again')
  }
  if (await findUserByEmail(store.db, pending.email)) throw new ApiError('invalid_request', TAKEN_MESSAGE)
  const created = await createAccount(store, { email: pending.email, passwordHash: pending.password_hash, plan: 'free', credits })
  return openSession(store, { id: created.owner.id, email: created.owner.email, role: 'owner' })
}
