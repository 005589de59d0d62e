import { randomUUID } from 'node:crypto'
import { lockAccount } from '../../billing/credits.store.ts'
import type { Engines } from '../../engines/registry.ts'
import { ApiError } from '../../errors.ts'
import type { AuthContext } from '../../http/auth.ts'
import { type JobQueue, wakeJobs } from '../../jobs/runner.ts'
import type { Store } from '../../store/database.ts'
import type { MonitorRow } from '../../store/schema.ts'
import { webhookDeliveryStatus } from '../../webhooks/webhooks.service.ts'
import { type MonitorEndpoint, normaliseSavedSearch, type SavedSearchInput } from './monitors.request.ts'
import type { MonitorRuns } from './monitors.response.ts'
import { INTERVALS, MAX_MONITORS, type MonitorParams, type MonitorPatch, type MonitorRunsQuery, SAVED_SEARCH_FIELDS } from './monitors.schema.ts'
import {
  countMonitors,
  deleteMonitor as deleteMonitorRows,
  dropOldSeen,
  findMonitor,
  insertMonitor,
  lastDeliveryOf,
  listMonitors,
  listRuns,
  pauseMonitorsOfKey,
  updateMonitor,
} from './monitors.store.ts'
import { toMonitorView, toRunView } from './monitors.view.ts'
import { MONITOR_JOB } from './monitors.worker.ts'

/**
 * Monitors (docs/monitors.md). A monitor row is also its own
 * scheduled job: 'queued' with run_at = the next run, 'running' while a worker holds its lease,
 * 'paused' while inactive. Every change made with a key makes that key the one runs are billed on.
 */
export interface MonitorDeps extends JobQueue {
  engines: Engines
  config: { allowPrivateNetwork: boolean }
}

const SEARCH_KEYS = [...SAVED_SEARCH_FIELDS, 'url'] as const

const notFound = (id: string) => new ApiError('not_found', `monitor ${id} does not exist or belongs to another account`)

function savedSearchOf(fields: Record<string, unknown>): SavedSearchInput {
  const input: SavedSearchInput = {}
  for (const key of SEARCH_KEYS) if (fields[key] !== undefined && fields[key] !== null) input[key] = fields[key]
  return input
}

const intervalOf = (p: { interval?: keyof typeof INTERVALS | null; interval_seconds?: number | null }) =>
  p.interval_seconds ?? (p.interval ? INTERVALS[p.interval] : undefined)

/** POST /v1/monitors: at most 100 per account; an active monitor's first run is due at once. */
export async function createMonitor(deps: MonitorDeps, auth: AuthContext, params: MonitorParams) {
  const endpoint: MonitorEndpoint = params.endpoint ?? 'search'
  const request = normaliseSavedSearch(deps, auth, endpoint, savedSearchOf(params))
  const active = params.active ?? true
  const now = Date.now()
  const row: MonitorRow = {
    id: randomUUID(),
    account_id: auth.accountId,
    key_id: auth.keyId,
    name: params.name ?? null,
    endpoint,
    request: JSON.stringify(request),
    metadata: params.metadata ? JSON.stringify(params.metadata) : null,
    interval_seconds: intervalOf(params) ?? INTERVALS.daily,
    webhook_url: params.webhook_url ?? null,
    status: active ? 'queued' : 'paused',
    run_at: now,
    lease_owner: null,
    lease_expires_at: null,
    attempts: 0,
    last_run_at: null,
    last_status: null,
    last_error: null,
    last_new_results: 0,
    runs: 0,
    consecutive_failures: 0,
    credits_used_mc: 0,
    baseline: 0,
    content_hash: null,
    created_at: now,
    updated_at: now,
  }
  // Under the account lock: two simultaneous POSTs cannot both take the 100th place.
  await deps.store.transaction(async (tx) => {
    await lockAccount(tx, auth.accountId)
    if ((await countMonitors(tx, auth.accountId)) >= MAX_MONITORS) {
      throw new ApiError('forbidden', `an account may have at most ${MAX_MONITORS} monitors; delete one to create another`)
    }
    await insertMonitor(tx, row)
  })
  if (active) wakeJobs(deps.signals, MONITOR_JOB)
  return toMonitorView(row)
}

async function visibleMonitor(store: Store, accountId: string, id: string) {
  const row = await findMonitor(store.db, accountId, id)
  if (!row) throw notFound(id)
  return row
}

/** The view with last_status webhook_failed when the newest monitor.results delivery failed for good. */
async function viewOf(store: Store, row: MonitorRow) {
  if (row.status === 'paused' || row.last_status !== 'ok') return toMonitorView(row)
  const delivery = await lastDeliveryOf(store.db, row.id)
  return toMonitorView(row, delivery != null && (await webhookDeliveryStatus(store, delivery)) === 'failed')
}

export async function getMonitor(store: Store, accountId: string, id: string) {
  return viewOf(store, await visibleMonitor(store, accountId, id))
}

export async function listAccountMonitors(store: Store, accountId: string) {
  const rows = await listMonitors(store.db, accountId)
  return { monitors: await Promise.all(rows.map((row) => viewOf(store, row))) }
}

/**
 * PATCH /v1/monitors/{id}. Saved-search fields are merged into the saved search (null clears an
 * optional one) and validated as a whole, like a new one; a PATCH that changes `endpoint` replaces
 * the saved search entirely. A saved search that differs from the old one starts a new baseline:
 * the next run reports everything as new (first_run). active=false pauses (a run in flight is
 * dropped, unbilled); active=true on a paused monitor clears its failure count and runs it at once.
 */
export async function patchMonitor(deps: MonitorDeps, auth: AuthContext, id: string, patch: MonitorPatch) {
  const row = await visibleMonitor(deps.store, auth.accountId, id)
  const now = Date.now()
  const set: Partial<MonitorRow> = { key_id: auth.keyId, updated_at: now }

  const touchesSearch = patch.endpoint !== undefined || SEARCH_KEYS.some((k) => patch[k] !== undefined)
  if (touchesSearch) {
    const endpoint = patch.endpoint ?? row.endpoint
    const merged: Record<string, unknown> = endpoint === row.endpoint ? JSON.parse(row.request) : {}
    for (const key of SEARCH_KEYS) {
      if (patch[key] === null) delete merged[key]
      else if (patch[key] !== undefined) merged[key] = patch[key]
    }
    const request = JSON.stringify(normaliseSavedSearch(deps, auth, endpoint, savedSearchOf(merged)))
    if (endpoint !== row.endpoint || request !== row.request) {
      Object.assign(set, { endpoint, request, baseline: row.baseline + 1, content_hash: null })
    }
  }
  const interval = intervalOf(patch)
  if (interval !== undefined) {
    set.interval_seconds = interval
    // A queued monitor that has run before is next due one new interval after its last run.
    if (row.status === 'queued' && row.last_run_at != null) set.run_at = Math.max(now, row.last_run_at + interval * 1000)
  }
  if (patch.name !== undefined) set.name = patch.name
  if (patch.metadata !== undefined) set.metadata = patch.metadata === null ? null : JSON.stringify(patch.metadata)
  if (patch.webhook_url !== undefined) set.webhook_url = patch.webhook_url
  let wake = false
  if (patch.active === false && row.status !== 'paused') {
    Object.assign(set, { status: 'paused', lease_owner: null, lease_expires_at: null })
  } else if (patch.active === true && row.status === 'paused') {
    Object.assign(set, { status: 'queued', run_at: now, consecutive_failures: 0 })
    wake = true
  }

  await deps.store.transaction(async (tx) => {
    if (!(await updateMonitor(tx, id, set))) throw notFound(id)
    if (set.baseline !== undefined) await dropOldSeen(tx, id, set.baseline)
  })
  if (wake) wakeJobs(deps.signals, MONITOR_JOB)
  return getMonitor(deps.store, auth.accountId, id)
}

/** DELETE /v1/monitors/{id}: the monitor, its run history and its seen hashes; a run in flight is dropped, unbilled. */
export async function deleteMonitor(store: Store, accountId: string, id: string) {
  await visibleMonitor(store, accountId, id)
  const deleted = await store.transaction((tx) => deleteMonitorRows(tx, id))
  if (!deleted) throw notFound(id)
  return { id, deleted: true as const }
}

/**
 * POST /v1/monitors/{id}/run: due now, picked up at once by this process (others at their next
 * poll). A paused monitor is 409 invalid_request; a run already in progress is not doubled.
 */
export async function runMonitorNow({ store, signals }: JobQueue, auth: AuthContext, id: string) {
  const row = await visibleMonitor(store, auth.accountId, id)
  if (row.status === 'paused') {
    throw new ApiError('invalid_request', `monitor ${id} is paused; PATCH it with active=true to resume it (that also runs it at once)`, { status: 409 })
  }
  const now = Date.now()
  const queued = await updateMonitor(store.db, id, { run_at: now, key_id: auth.keyId, updated_at: now }, { status: ['queued'] })
  // Claimed meanwhile: that run is the one asked for; it is billed on this key from the next run on.
  if (!queued) await updateMonitor(store.db, id, { key_id: auth.keyId, updated_at: now })
  wakeJobs(signals, MONITOR_JOB)
  return getMonitor(store, auth.accountId, id)
}

/** GET /v1/monitors/{id}/runs: newest first; results for 24 hours, counts for 30 days. */
export async function monitorRuns(store: Store, accountId: string, id: string, query: MonitorRunsQuery): Promise<MonitorRuns> {
  await visibleMonitor(store, accountId, id)
  const limit = query.limit ?? 20
  const rows = await listRuns(store.db, id, limit, query.before ? Date.parse(query.before) : undefined)
  const now = Date.now()
  const runs = await Promise.all(
    rows.map(async (r) => toRunView(r, r.webhook_delivery_id ? await webhookDeliveryStatus(store, r.webhook_delivery_id) : null, now)),
  )
  const last = rows.at(-1)
  return { monitor_id: id, runs, next_before: rows.length === limit && last ? new Date(last.due_at).toISOString() : null }
}

/**
 * A revoked key pauses every monitor billed on it (docs/monitors.md); a run in flight is
 * dropped unbilled. PATCH active=true with a live key resumes one on that key. Rotation keeps the
 * key id, so it changes nothing here.
 */
export function pauseMonitorsOfRevokedKey(store: Store, keyId: string): Promise<number> {
  return pauseMonitorsOfKey(store.db, keyId, REVOKED_KEY_ERROR, Date.now())
}

export const REVOKED_KEY_ERROR = 'unauthorized: the API key this monitor runs on was revoked; PATCH it with active=true using another key to resume it'
