import { findCounter } from '../../billing/credits.store.ts'
import { periods, toCredits, toMc } from '../../billing/money.ts'
import { keysMonthUsage } from '../../billing/spend.store.ts'
import { ApiError } from '../../errors.ts'
import type { KeyCache } from '../../http/auth.ts'
import { newApiKey } from '../../security/secrets.ts'
import type { Store } from '../../store/database.ts'
import type { ApiKeyRow } from '../../store/schema.ts'
import { createKey } from '../accounts/accounts.service.ts'
import { findAccount, findKey, listLiveKeys, setMemberKeysLimit, updateAccount, updateKey } from '../accounts/accounts.store.ts'
import { pauseMonitorsOfRevokedKey } from '../monitors/monitors.service.ts'
import type { SessionUser } from './sessions.service.ts'

/**
 * Key management for the dashboard (docs/dashboard.md, README.md "Dashboard key permissions"). Decisions:
 * the owner manages every key; a member manages (renames, rotates, revokes, toggles fallback) the
 * keys they created; only the owner sets limits. Rotation and revocation drop the cached key at once.
 */
export interface KeyDeps {
  store: Store
  keys: KeyCache
}

export async function listKeys({ store }: KeyDeps, user: SessionUser) {
  const rows = await listLiveKeys(store.db, user.accountId)
  const { month } = periods()
  const keyIds = rows.map((r) => r.id)
  const usage = await keysMonthUsage(store.db, keyIds, month)
  const used = new Map(usage.map((u) => [u.scope_id, u.credits_mc]))
  return { keys: rows.map((r) => toKeyView(r, used.get(r.id) ?? 0)) }
}

function toKeyView(r: ApiKeyRow, usedMc: number) {
  return {
    id: r.id,
    name: r.name,
    prefix: r.prefix,
    credit_limit: r.credit_limit_mc == null ? null : toCredits(r.credit_limit_mc),
    allow_fallback: r.allow_fallback === 1,
    created_by: r.user_id,
    created_at: new Date(r.created_at).toISOString(),
    last_used_at: r.last_used_at == null ? null : new Date(r.last_used_at).toISOString(),
    credits_used_month: toCredits(usedMc),
  }
}

export async function createDashboardKey({ store }: KeyDeps, user: SessionUser, input: { name: string; credit_limit?: number | null }) {
  if (input.credit_limit !== undefined && user.role !== 'owner') throw new ApiError('forbidden', 'only the account owner sets key limits')
  return createKey(store, user.accountId, { name: input.name, credit_limit: input.credit_limit, user_id: user.id })
}

async function keyFor(store: Store, user: SessionUser, id: string) {
  const key = await findKey(store.db, user.accountId, id)
  if (!key || key.revoked_at != null) throw new ApiError('not_found', `key ${id} does not exist`)
  if (user.role !== 'owner' && key.user_id !== user.id) throw new ApiError('forbidden', 'members manage only the keys they created')
  return key
}

export async function patchKey(deps: KeyDeps, user: SessionUser, id: string, patch: { name?: string; credit_limit?: number | null; allow_fallback?: boolean }) {
  const key = await keyFor(deps.store, user, id)
  if (patch.credit_limit !== undefined && user.role !== 'owner') throw new ApiError('forbidden', 'only the account owner sets key limits')
  const set: Partial<ApiKeyRow> = {}
  if (patch.name !== undefined) set.name = patch.name
  if (patch.credit_limit !== undefined) set.credit_limit_mc = patch.credit_limit == null ? null : toMc(patch.credit_limit)
  if (patch.allow_fallback !== undefined) set.allow_fallback = patch.allow_fallback ? 1 : 0
  if (Object.keys(set).length > 0) await updateKey(deps.store.db, id, set)
  deps.keys.invalidate(id)
  const { month } = periods()
  const usage = await findCounter(deps.store.db, 'key', id, month)
  return toKeyView({ ...key, ...set }, usage?.credits_mc ?? 0)
}

/** New secret in place: id, name, limit and this month's usage stay; the old secret stops at once. */
export async function rotateKey(deps: KeyDeps, user: SessionUser, id: string) {
  const key = await keyFor(deps.store, user, id)
  const fresh = newApiKey()
  await updateKey(deps.store.db, id, { secret_hash: fresh.hash, prefix: fresh.prefix })
  deps.keys.invalidate(id)
  return { id, name: key.name, prefix: fresh.prefix, secret: fresh.secret, credit_limit: key.credit_limit_mc == null ? null : toCredits(key.credit_limit_mc) }
}

/** Revoked keys leave the list; their rows (and usage history) stay for the ledger. */
export async function revokeKey(deps: KeyDeps, user: SessionUser, id: string) {
  await keyFor(deps.store, user, id)
  await updateKey(deps.store.db, id, { revoked_at: Date.now() })
  deps.keys.invalidate(id)
  // A revoked key pauses the monitors billed on it (rotation keeps the id, so they keep running; docs/monitors.md).
  await pauseMonitorsOfRevokedKey(deps.store, id)
}

/** The owner's member key limit: applied to every member key, existing and new. */
export async function setMemberKeyLimit(deps: KeyDeps, user: SessionUser, creditLimit: number | null) {
  if (user.role !== 'owner') throw new ApiError('forbidden', 'only the account owner sets the member key limit')
  const mc = creditLimit == null ? null : toMc(creditLimit)
  await deps.store.transaction(async (tx) => {
    await updateAccount(tx, user.accountId, { member_key_limit_mc: mc })
    await setMemberKeysLimit(tx, user.accountId, mc)
  })
  deps.keys.invalidateAccount(user.accountId)
  const account = await findAccount(deps.store.db, user.accountId)
  return { credit_limit: account?.member_key_limit_mc == null ? null : toCredits(account.member_key_limit_mc) }
}
