import type { Updateable } from 'kysely'
import { charge, payerOf } from '../../billing/credits.ts'
import { toCredits } from '../../billing/money.ts'
import type { AppDeps } from '../../deps.ts'
import { isApiError } from '../../errors.ts'
import type { AuthContext } from '../../http/auth.ts'
import { endLease } from '../../jobs/jobs.store.ts'
import type { JobContext, JobKind } from '../../jobs/runner.ts'
import type { Tx } from '../../store/database.ts'
import type { MonitorRow, MonitorRunRow } from '../../store/schema.ts'
import { enqueueWebhook } from '../../webhooks/webhooks.service.ts'
import { authForKeyId } from '../accounts/accounts.service.ts'
import { type Found, lookUp } from './monitors.lookup.ts'
import { hashesOf, newResults, sha256 } from './monitors.novelty.ts'
import type { MonitorEndpoint, SavedSearch, WatchedPage } from './monitors.request.ts'
import type { MonitorResultsEvent } from './monitors.response.ts'
import { addSeen, findMonitorById, findRun, holdLease, insertRun, nothingSeen, seenHashes } from './monitors.store.ts'
import { monitorName } from './monitors.view.ts'

/** The job kind's name: what `wakeJobs(signals, MONITOR_JOB)` wakes. */
export const MONITOR_JOB = 'monitor'
/** This many failed runs in a row pause a monitor (docs/monitors.md). */
export const MAX_CONSECUTIVE_FAILURES = 10
export const RUN_RESULTS_TTL_MS = 24 * 3600_000
const RUNS_PER_WORKER = 4
/** The ledger's endpoint label of a run's charge; its request id is the run id. */
const LEDGER_ENDPOINT = '/v1/monitors'

/** Thrown inside the final transaction to roll it back: another worker owns the run now, or the monitor was paused or deleted. */
class LeaseLost extends Error {}

type Outcome = { ok: true; found: Found } | { ok: false; error: { code: string; message: string } }

/**
 * Monitor runs on the job runner. The monitor row is the job: due when 'queued' with run_at in the
 * past. A due run's id is `<monitor id>:<run_at>`, the same for whichever worker runs it, and it is
 * recorded at most once: the engine call happens first, then ONE transaction fenced on the lease
 * charges the run, records it with its new results, remembers their hashes, moves the counters and
 * the schedule, and queues the webhook. A worker killed before that commit moved no money; its
 * lease expires and the next worker runs the same due run again (same id). A worker whose lease
 * was taken over cannot commit. After a run the next one is due one interval later, however late
 * this one was: a monitor overdue by many intervals (the service was down) runs once.
 */
export function monitorJobKind(deps: AppDeps): JobKind {
  return {
    name: MONITOR_JOB,
    table: 'monitors',
    concurrency: RUNS_PER_WORKER,
    leaseMs: deps.config.jobLeaseMs,
    // An interrupted run puts itself back with its due time (and so its run id) unchanged.
    requeueOnStop: false,
    run: (id, ctx) => runMonitor(deps, id, ctx),
  }
}

/** One claimed run: the engine call, then the one transaction that records it (finishRun). */
async function runMonitor(deps: AppDeps, id: string, ctx: JobContext) {
  const { store, log } = deps
  const row = await findMonitorById(store.db, id)
  if (!row || row.lease_owner !== ctx.workerId || row.status !== 'running') return
  const run: ClaimedRun = { claimed: row, id: `${row.id}:${row.run_at}`, startedAt: Date.now(), workerId: ctx.workerId }
  const auth = await keyOrPause(deps, row, ctx.workerId)
  if (!auth) return

  let outcome: Outcome
  try {
    outcome = { ok: true, found: await lookUp(deps, auth, row.endpoint, JSON.parse(row.request) as SavedSearch | WatchedPage, run.id) }
  } catch (err) {
    // What the realtime endpoint would have answered; anything else is our fault, logged, and still a failed run.
    if (!isApiError(err)) log.error({ err, monitor: id, run: run.id }, 'monitor run failed unexpectedly')
    outcome = { ok: false, error: isApiError(err) ? err.toJSON() : { code: 'internal', message: 'the run failed unexpectedly' } }
  }
  // Stopping, or the lease is gone: leave the due run (same run_at, so the same id) for the next claim.
  if (ctx.interrupted()) {
    await endLease(store.db, 'monitors', id, ctx.workerId, { status: 'queued' }).catch(() => {})
    return
  }
  try {
    await finishRun(deps, run, auth, outcome)
  } catch (err) {
    if (err instanceof LeaseLost) {
      log.info({ monitor: id, run: run.id }, 'monitor run dropped: lease lost, or the monitor was paused or deleted meanwhile')
      return
    }
    // The charge was refused (key limit, spend cap, balance): a failed run, free.
    if (!isApiError(err) || !outcome.ok) throw err
    await finishRun(deps, run, auth, { ok: false, error: err.toJSON() }).catch((e) => {
      if (!(e instanceof LeaseLost)) throw e
    })
  }
}

/** The key as it is now: its limit and fallback switch; revoked (or gone) pauses the monitor (null). */
async function keyOrPause({ store, log }: AppDeps, row: MonitorRow, workerId: string): Promise<AuthContext | null> {
  try {
    return await authForKeyId(store, row.key_id)
  } catch (err) {
    if (!isApiError(err) || err.code !== 'unauthorized') throw err
    const paused = await endLease(store.db, 'monitors', row.id, workerId, {
      status: 'paused',
      last_error: `unauthorized: ${err.message}; PATCH it with active=true using another key to resume it`,
      updated_at: Date.now(),
    })
    if (paused) log.info({ monitor: row.id }, 'monitor paused: its key was revoked')
    return null
  }
}

/** A run in hand: the monitor row as claimed, the run's id, when it started, the claim. */
interface ClaimedRun {
  claimed: MonitorRow
  id: string
  startedAt: number
  workerId: string
}

/** The one transaction that ends a run (see monitorJobKind). */
function finishRun(deps: AppDeps, run: ClaimedRun, auth: AuthContext, outcome: Outcome) {
  const { store, log, config } = deps
  return store.transaction(async (tx) => {
    const row = await holdLease(tx, run.claimed.id, run.workerId)
    if (!row) throw new LeaseLost()
    const now = Date.now()
    const release = async (patch: Updateable<MonitorRow>) => {
      if (!(await endLease(tx, 'monitors', row.id, run.workerId, patch))) throw new LeaseLost()
    }
    const schedule = { status: 'queued' as const, run_at: now + row.interval_seconds * 1000 }
    // The saved search changed while this run was asking the engine: its answer is for the old
    // search. Dropped unbilled; the new search runs at once.
    if (row.baseline !== run.claimed.baseline || row.endpoint !== run.claimed.endpoint) return release({ status: 'queued', run_at: now })
    // Recorded already (it cannot be, as the same commit moves run_at; kept as the insert-once guard).
    if (await findRun(tx, run.id)) return release(schedule)
    const base: MonitorRunRow = {
      id: run.id,
      monitor_id: row.id,
      account_id: row.account_id,
      due_at: run.claimed.run_at,
      started_at: run.startedAt,
      completed_at: now,
      status: 'ok',
      first_run: 0,
      new_count: 0,
      results: null,
      error: null,
      credits_used_mc: 0,
      webhook_delivery_id: null,
      expires_at: now + RUN_RESULTS_TTL_MS,
    }

    if (!outcome.ok) {
      const failures = row.consecutive_failures + 1
      const pause = failures >= MAX_CONSECUTIVE_FAILURES
      await insertRun(tx, { ...base, status: 'error', error: JSON.stringify(outcome.error) })
      await release({
        ...schedule,
        status: pause ? 'paused' : 'queued',
        last_run_at: now,
        last_status: 'error',
        last_error: `${outcome.error.code}: ${outcome.error.message}`,
        last_new_results: 0,
        runs: row.runs + 1,
        consecutive_failures: failures,
      })
      log.info({ monitor: row.id, run: run.id, error: outcome.error.code, failures, paused: pause }, 'monitor run failed')
      return
    }

    const found = outcome.found
    const { fresh, firstRun, contentHash } = await whatIsNew(tx, row, found)
    // Billed whenever something was delivered, new or not (the search was made); empty runs are free.
    if (found.usedMc > 0) await charge(store, payerOf(auth), found.usedMc, run.id, LEDGER_ENDPOINT, tx)
    let delivery: { id: string } | null = null
    if (fresh.length > 0) {
      const payload = resultsEvent(row, run, { fresh, firstRun, usedMc: found.usedMc, now, baseUrl: config.baseUrl })
      delivery = await enqueueWebhook(deps, { accountId: row.account_id, event: 'monitor.results', url: row.webhook_url, payload, id: run.id }, tx)
    }
    await insertRun(tx, {
      ...base,
      first_run: firstRun ? 1 : 0,
      new_count: fresh.length,
      results: JSON.stringify(fresh),
      credits_used_mc: found.usedMc,
      webhook_delivery_id: delivery?.id ?? null,
    })
    await release({
      ...schedule,
      last_run_at: now,
      last_status: 'ok',
      last_error: null,
      last_new_results: fresh.length,
      runs: row.runs + 1,
      consecutive_failures: 0,
      credits_used_mc: row.credits_used_mc + found.usedMc,
      content_hash: contentHash,
    })
    log.info({ monitor: row.id, run: run.id, new_results: fresh.length, credits_mc: found.usedMc, first_run: firstRun }, 'monitor run done')
  })
}

/**
 * What this run found that earlier runs of the same saved search did not: results by their hashes
 * (remembered now), a watched page by its content's hash.
 */
async function whatIsNew(tx: Tx, row: MonitorRow, found: Found) {
  if (found.kind === 'results') {
    const firstRun = await nothingSeen(tx, row.id, row.baseline)
    const novelty = newResults(found.items, await seenHashes(tx, row.id, row.baseline, hashesOf(found.items)))
    await addSeen(tx, row.id, row.baseline, novelty.hashes)
    return { fresh: novelty.fresh, firstRun, contentHash: row.content_hash }
  }
  const firstRun = row.content_hash == null
  if (!found.page) return { fresh: [], firstRun, contentHash: row.content_hash }
  const hash = sha256(found.page.markdown)
  if (hash === row.content_hash) return { fresh: [], firstRun, contentHash: row.content_hash }
  return { fresh: [{ change: row.content_hash == null ? 'new' : 'changed', ...found.page }], firstRun, contentHash: hash }
}

/** The monitor.results webhook of a run that found something new. */
function resultsEvent(
  row: MonitorRow,
  run: ClaimedRun,
  o: { fresh: Record<string, unknown>[]; firstRun: boolean; usedMc: number; now: number; baseUrl: string },
): MonitorResultsEvent {
  return {
    event: 'monitor.results',
    id: run.id,
    monitor_id: row.id,
    name: monitorName(row),
    endpoint: row.endpoint as MonitorEndpoint,
    request: JSON.parse(row.request),
    metadata: row.metadata == null ? null : JSON.parse(row.metadata),
    first_run: o.firstRun,
    new_results: o.fresh.length,
    results: o.fresh,
    credits_used: toCredits(o.usedMc),
    due_at: new Date(run.claimed.run_at).toISOString(),
    created_at: new Date(o.now).toISOString(),
    runs_url: `${o.baseUrl}/v1/monitors/${row.id}/runs`,
  }
}
