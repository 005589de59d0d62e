import { randomUUID } from 'node:crypto'
import { findCounter, recordPurchase } from '../../billing/credits.store.ts'
import { periods, toCredits, toMc } from '../../billing/money.ts'
import { higherPlan, type Plan, rateLimitFor } from '../../billing/plans.ts'
import { ApiError } from '../../errors.ts'
import { type AuthContext, authOf, type KeyLookup } from '../../http/auth.ts'
import { checkNewPassword } from '../../security/password-policy.ts'
import { hashPassword, newApiKey, newWebhookSecret } from '../../security/secrets.ts'
import type { Store } from '../../store/database.ts'
import type { AccountRow, ApiKeyRow } from '../../store/schema.ts'
import { sealWebhookSecret } from '../../webhooks/webhooks.service.ts'
import { deleteUserSessions } from '../dashboard/dashboard.store.ts'
import type { AccountResponse } from './account.response.ts'
import * as accounts from './accounts.store.ts'

export interface NewAccount {
  email: string
  password?: string
  /** A password already checked and hashed (a sign-up proven by its email link). */
  passwordHash?: string
  plan: Plan
  credits: number
  monthly_spend_cap?: number | null
  daily_limit?: number | null
  rate_limit_rps?: number | null
}

export interface NewKey {
  name: string
  credit_limit?: number | null
  user_id?: string
}

/** The operator's view of an account (the operator API's account body). */
export function toAdminAccount(row: AccountRow) {
  return {
    id: row.id,
    plan: row.plan,
    balance: toCredits(row.balance_mc),
    rate_limit_rps: rateLimitFor(row.plan, row.rate_limit_rps),
    monthly_spend_cap: row.monthly_spend_cap_mc == null ? null : toCredits(row.monthly_spend_cap_mc),
    daily_limit: row.daily_limit_mc == null ? null : toCredits(row.daily_limit_mc),
    webhook_url: row.webhook_url,
    created_at: new Date(row.created_at).toISOString(),
  }
}

const mcOrNull = (credits: number | null | undefined) => (credits == null ? null : toMc(credits))

export async function createAccount(store: Store, input: NewAccount) {
  const now = Date.now()
  const email = input.email.trim().toLowerCase()
  if (input.password) checkNewPassword(input.password, [email])
  const passwordHash = input.passwordHash ?? (input.password ? await hashPassword(input.password) : null)
  const account: AccountRow = {
    id: randomUUID(),
    plan: input.plan,
    balance_mc: 0,
    rate_limit_rps: input.rate_limit_rps ?? null,
    monthly_spend_cap_mc: mcOrNull(input.monthly_spend_cap),
    daily_limit_mc: mcOrNull(input.daily_limit),
    member_key_limit_mc: null,
    webhook_url: null,
    webhook_secret: null,
    created_at: now,
  }
  const owner = { id: randomUUID(), account_id: account.id, email, role: 'owner' as const, password_hash: passwordHash, created_at: now }
  const key = newApiKey()
  const keyRow: ApiKeyRow = {
    id: randomUUID(),
    account_id: account.id,
    user_id: owner.id,
    name: 'default',
    prefix: key.prefix,
    secret_hash: key.hash,
    credit_limit_mc: null,
    allow_fallback: 0,
    created_at: now,
    last_used_at: null,
    revoked_at: null,
  }
  await store.transaction(async (tx) => {
    if (await accounts.findUserByEmail(tx, email)) throw new ApiError('invalid_request', `email ${email} is already registered`)
    await accounts.insertAccount(tx, account)
    await accounts.insertUser(tx, owner)
    await accounts.insertKey(tx, keyRow)
    if (input.credits > 0) await recordPurchase(tx, account.id, toMc(input.credits), now)
  })
  const saved = await getAccount(store, account.id)
  return {
    account: saved,
    owner: { id: owner.id, email },
    key: { id: keyRow.id, name: keyRow.name, prefix: keyRow.prefix, secret: key.secret },
  }
}

export async function getAccountRow(store: Store, id: string) {
  const row = await accounts.findAccount(store.db, id)
  if (!row) throw new ApiError('not_found', `account ${id} does not exist`)
  return row
}

export const getAccount = async (store: Store, id: string) => toAdminAccount(await getAccountRow(store, id))

/** The operator's list (`trawl accounts list`): accounts oldest first, with their owner's email. */
export async function listAccounts(store: Store, page: { limit: number; offset: number }) {
  const rows = await accounts.listAccountsWithOwner(store.db, page.limit, page.offset)
  return rows.map(({ owner_email, ...row }) => ({ ...toAdminAccount(row), owner_email }))
}

/** An account's owner and members, for the operator (`trawl accounts show`). */
export async function accountUsers(store: Store, accountId: string) {
  const users = await accounts.listUsers(store.db, accountId)
  return users.map((u) => ({ id: u.id, email: u.email, role: u.role, created_at: new Date(u.created_at).toISOString() }))
}

export interface AccountPatch {
  plan?: Plan
  monthly_spend_cap?: number | null
  daily_limit?: number | null
  rate_limit_rps?: number | null
  webhook_url?: string | null
  password?: string
}

export async function patchAccount(store: Store, id: string, patch: AccountPatch) {
  const current = await getAccountRow(store, id)
  if (patch.password !== undefined) await setUserPassword(store, (await accounts.findOwner(store.db, id)).id, patch.password)
  const set: Partial<AccountRow> = {}
  if (patch.plan !== undefined) set.plan = patch.plan
  if (patch.monthly_spend_cap !== undefined) set.monthly_spend_cap_mc = mcOrNull(patch.monthly_spend_cap)
  if (patch.daily_limit !== undefined) set.daily_limit_mc = mcOrNull(patch.daily_limit)
  if (patch.rate_limit_rps !== undefined) set.rate_limit_rps = patch.rate_limit_rps
  if (patch.webhook_url !== undefined) set.webhook_url = patch.webhook_url
  // The account's first webhook URL creates its signing secret.
  if (patch.webhook_url && !current.webhook_secret) set.webhook_secret = await sealWebhookSecret(store, id, newWebhookSecret())
  if (Object.keys(set).length > 0) await accounts.updateAccount(store.db, id, set)
  return getAccount(store, id)
}

/**
 * Sets a user's password (an operator's reset, or the user's own change) and signs the user out of
 * every session but `keepSessionHash` (the one that made the change), in one transaction.
 */
export async function setUserPassword(store: Store, userId: string, password: string, keepSessionHash?: string) {
  const user = await accounts.findUser(store.db, userId)
  checkNewPassword(password, user ? [user.email] : [])
  const hash = await hashPassword(password)
  await store.transaction(async (tx) => {
    await accounts.updateUserPassword(tx, userId, hash)
    await deleteUserSessions(tx, userId, keepSessionHash)
  })
}

/** The user an operator means: the account's owner for an account id, the user of an email address. */
export async function userByAccountOrEmail(store: Store, given: string) {
  if (given.includes('@')) {
    const user = await accounts.findUserByEmail(store.db, given.trim().toLowerCase())
    if (!user) throw new ApiError('not_found', `no user has the email ${given}`)
    return user
  }
  await getAccountRow(store, given)
  return accounts.findOwner(store.db, given)
}

/** A credit pack: adds credits, raises (never lowers) the rate plan, and removes any daily limit. */
export async function addCredits(store: Store, id: string, credits: number, plan?: Plan) {
  await store.transaction(async (tx) => {
    const row = await accounts.findAccount(tx, id)
    if (!row) throw new ApiError('not_found', `account ${id} does not exist`)
    await recordPurchase(tx, id, toMc(credits), Date.now())
    await accounts.updateAccount(tx, id, { plan: plan ? higherPlan(row.plan, plan) : row.plan, daily_limit_mc: null })
  })
  return getAccount(store, id)
}

export async function addMember(store: Store, accountId: string, email: string, password: string) {
  await getAccountRow(store, accountId)
  const normalised = email.trim().toLowerCase()
  checkNewPassword(password, [normalised])
  const user = {
    id: randomUUID(),
    account_id: accountId,
    email: normalised,
    role: 'member' as const,
    password_hash: await hashPassword(password),
    created_at: Date.now(),
  }
  await store.transaction(async (tx) => {
    if (await accounts.findUserByEmail(tx, normalised)) throw new ApiError('invalid_request', `email ${normalised} is already registered`)
    await accounts.insertUser(tx, user)
  })
  return { id: user.id, email: normalised, role: user.role }
}

export async function createKey(store: Store, accountId: string, input: NewKey) {
  const account = await getAccountRow(store, accountId)
  const user = input.user_id ? await accounts.findUser(store.db, input.user_id) : await accounts.findOwner(store.db, accountId)
  if (!user || user.account_id !== accountId) throw new ApiError('invalid_request', `user_id ${input.user_id} is not a user of this account`)
  // A member's keys get the owner's member key limit, whatever they asked for (README.md "Dashboard key permissions").
  const limitMc = user.role === 'member' && account.member_key_limit_mc != null ? account.member_key_limit_mc : mcOrNull(input.credit_limit)
  const key = newApiKey()
  const row: ApiKeyRow = {
    id: randomUUID(),
    account_id: accountId,
    user_id: user.id,
    name: input.name,
    prefix: key.prefix,
    secret_hash: key.hash,
    credit_limit_mc: limitMc,
    allow_fallback: 0,
    created_at: Date.now(),
    last_used_at: null,
    revoked_at: null,
  }
  await accounts.insertKey(store.db, row)
  return { id: row.id, name: row.name, prefix: row.prefix, secret: key.secret, credit_limit: limitMc == null ? null : toCredits(limitMc) }
}

/** GET /v1/account for the calling key. */
export async function accountForKey(store: Store, accountId: string, keyId: string): Promise<AccountResponse> {
  const row = await getAccountRow(store, accountId)
  const key = await accounts.findKey(store.db, accountId, keyId)
  if (!key) throw new ApiError('unauthorized', 'API key was revoked')
  const { month } = periods()
  const [keyMonth, accountMonth] = await Promise.all([findCounter(store.db, 'key', keyId, month), findCounter(store.db, 'account', accountId, month)])
  return {
    balance: toCredits(row.balance_mc),
    rate_limit_rps: rateLimitFor(row.plan, row.rate_limit_rps),
    plan: row.plan,
    key: {
      id: key.id,
      name: key.name,
      credit_limit: key.credit_limit_mc == null ? null : toCredits(key.credit_limit_mc),
      credits_used_month: toCredits(keyMonth?.credits_mc ?? 0),
    },
    monthly_spend_cap: row.monthly_spend_cap_mc == null ? null : toCredits(row.monthly_spend_cap_mc),
    month: { credits: toCredits(accountMonth?.credits_mc ?? 0), requests: accountMonth?.requests ?? 0 },
  }
}

/** How http/auth.ts finds API keys: registered from services.ts, so that the HTTP floor imports no feature. */
export const keyLookup = (store: Store): KeyLookup => ({
  byHash: (secretHash) => accounts.findKeyByHash(store.db, secretHash),
  touch: (keyId, now) => accounts.touchKey(store.db, keyId, now),
})

/**
 * Work done later on a key's behalf (a batch job, a monitor run) acts as that key as it is now:
 * its current limit and fallback switch, and `unauthorized` once it is revoked.
 */
export async function authForKeyId(store: Store, keyId: string): Promise<AuthContext> {
  const row = await accounts.findKeyById(store.db, keyId)
  if (!row) throw new ApiError('unauthorized', 'the API key that queued this work no longer exists')
  if (row.revoked_at != null) throw new ApiError('unauthorized', 'the API key that queued this work was revoked')
  return authOf(row)
}
