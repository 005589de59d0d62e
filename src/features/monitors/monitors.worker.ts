import { charge } from '../../billing/credits.ts'
import { toCredits } from '../../billing/money.ts'
import type { AppDeps } from '../../deps.ts'
import { isApiError } from '../../errors.ts'
import type { AuthContext } from '../../http/auth.ts'
import type { JobContext, JobKind } from '../../jobs/runner.ts'
import type { MonitorRow, MonitorRunRow } from '../../store/schema.ts'
import { enqueueWebhook } from '../../webhooks/webhooks.service.ts'
import { authForKeyId } from '../accounts/accounts.service.ts'
import { type Found, lookUp } from './monitors.lookup.ts'
import { hashesOf, newResults, sha256 } from './monitors.novelty.ts'
import type { MonitorEndpoint, SavedSearch, WatchedPage } from './monitors.request.ts'
import type { MonitorResultsEvent } from './monitors.response.ts'
import { addSeen, findMonitorById, findRun, holdLease, insertRun, nothingSeen, releaseMonitor, seenHashes } from './monitors.store.ts'
import { monitorName } from './monitors.view.ts'

/** The job kind's name: what `wakeJobs(store, MONITOR_JOB)` wakes. */
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
  const { store, config, log } = deps

  const run = async (id: string, ctx: JobContext) => {
    const row = await findMonitorById(store.db, id)
    if (!row || row.lease_owner !== ctx.workerId || row.status !== 'running') return
    const runId = `${row.id}:${row.run_at}`
    const started = Date.now()

    // The key as it is now: its limit and fallback switch; revoked (or gone) pauses the monitor.
    let auth: AuthContext
    try {
      auth = await authForKeyId(store, row.key_id)
    } catch (err) {
      if (!isApiError(err) || err.code !== 'unauthorized') throw err
      const paused = await releaseMonitor(store.db, id, ctx.workerId, {
        status: 'paused',
        last_error: `unauthorized: ${err.message}; PATCH it with active=true using another key to resume it`,
        updated_at: Date.now(),
      })
      if (paused) log.info({ monitor: id }, 'monitor paused: its key was revoked')
      return
    }

    let outcome: Outcome
    try {
      outcome = { ok: true, found: await lookUp(deps, auth, row.endpoint, JSON.parse(row.request) as SavedSearch | WatchedPage, runId) }
    } catch (err) {
      // What the realtime endpoint would have answered; anything else is our fault, logged, and still a failed run.
      if (!isApiError(err)) log.error({ err, monitor: id, run: runId }, 'monitor run failed unexpectedly')
      outcome = { ok: false, error: isApiError(err) ? err.toJSON() : { code: 'internal', message: 'the run failed unexpectedly' } }
    }
    // Stopping, or the lease is gone: leave the due run (same run_at, so the same id) for the next claim.
    if (ctx.interrupted()) {
      await releaseMonitor(store.db, id, ctx.workerId, { status: 'queued' }).catch(() => {})
      return
    }
    try {
      await finish(row, runId, started, auth, outcome, ctx.workerId)
    } catch (err) {
      if (err instanceof LeaseLost) {
        log.info({ monitor: id, run: runId }, 'monitor run dropped: lease lost, or the monitor was paused or deleted meanwhile')
        return
      }
      // The charge was refused (key limit, spend cap, balance): a failed run, free.
      if (!isApiError(err) || !outcome.ok) throw err
      await finish(row, runId, started, auth, { ok: false, error: err.toJSON() }, ctx.workerId).catch((e) => {
        if (!(e instanceof LeaseLost)) throw e
      })
    }
  }

  /** The one transaction that ends a run (see above). */
  const finish = (claimed: MonitorRow, runId: string, startedAt: number, auth: AuthContext, outcome: Outcome, workerId: string) =>
    store.transaction(async (tx) => {
      const row = await holdLease(tx, claimed.id, workerId)
      if (!row) throw new LeaseLost()
      const now = Date.now()
      const schedule = { status: 'queued' as const, run_at: now + row.interval_seconds * 1000 }
      // The saved search changed while this run was asking the engine: its answer is for the old
      // search. Dropped unbilled; the new search runs at once.
      if (row.baseline !== claimed.baseline || row.endpoint !== claimed.endpoint) {
        if (!(await releaseMonitor(tx, row.id, workerId, { status: 'queued', run_at: now }))) throw new LeaseLost()
        return
      }
      // Recorded already (it cannot be, as the same commit moves run_at; kept as the insert-once guard).
      if (await findRun(tx, runId)) {
        if (!(await releaseMonitor(tx, row.id, workerId, schedule))) throw new LeaseLost()
        return
      }
      const base: MonitorRunRow = {
        id: runId,
        monitor_id: row.id,
        account_id: row.account_id,
        due_at: claimed.run_at,
        started_at: startedAt,
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
        const released = await releaseMonitor(tx, row.id, workerId, {
          ...schedule,
          status: pause ? 'paused' : 'queued',
          last_run_at: now,
          last_status: 'error',
          last_error: `${outcome.error.code}: ${outcome.error.message}`,
          last_new_results: 0,
          runs: row.runs + 1,
          consecutive_failures: failures,
        })
        if (!released) throw new LeaseLost()
        log.info({ monitor: row.id, run: runId, error: outcome.error.code, failures, paused: pause }, 'monitor run failed')
        return
      }

      const found = outcome.found
      let fresh: Record<string, unknown>[]
      let firstRun: boolean
      let contentHash = row.content_hash
      if (found.kind === 'results') {
        firstRun = await nothingSeen(tx, row.id, row.baseline)
        const novelty = newResults(found.items, await seenHashes(tx, row.id, row.baseline, hashesOf(found.items)))
        fresh = novelty.fresh
        await addSeen(tx, row.id, row.baseline, novelty.hashes)
      } else {
        firstRun = row.content_hash == null
        fresh = []
        if (found.page) {
          const hash = sha256(found.page.markdown)
          if (hash !== row.content_hash) {
            fresh = [{ change: row.content_hash == null ? 'new' : 'changed', ...found.page }]
            contentHash = hash
          }
        }
      }
      // Billed whenever something was delivered, new or not (the search was made); empty runs are free.
      if (found.usedMc > 0)
        await charge(store, { accountId: auth.accountId, keyId: auth.keyId, keyLimitMc: auth.keyLimitMc }, found.usedMc, runId, LEDGER_ENDPOINT, tx)

      let delivery: { id: string } | null = null
      if (fresh.length > 0) {
        const payload: MonitorResultsEvent = {
          event: 'monitor.results',
          id: runId,
          monitor_id: row.id,
          name: monitorName(row),
          endpoint: row.endpoint as MonitorEndpoint,
          request: JSON.parse(row.request),
          metadata: row.metadata == null ? null : JSON.parse(row.metadata),
          first_run: firstRun,
          new_results: fresh.length,
          results: fresh,
          credits_used: toCredits(found.usedMc),
          due_at: new Date(claimed.run_at).toISOString(),
          created_at: new Date(now).toISOString(),
          runs_url: `${config.baseUrl}/v1/monitors/${row.id}/runs`,
        }
        delivery = await enqueueWebhook(store, { accountId: row.account_id, event: 'monitor.results', url: row.webhook_url, payload, id: runId }, tx)
      }
      await insertRun(tx, {
        ...base,
        first_run: firstRun ? 1 : 0,
        new_count: fresh.length,
        results: JSON.stringify(fresh),
        credits_used_mc: found.usedMc,
        webhook_delivery_id: delivery?.id ?? null,
      })
      const released = await releaseMonitor(tx, row.id, workerId, {
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
      if (!released) throw new LeaseLost()
      log.info({ monitor: row.id, run: runId, new_results: fresh.length, credits_mc: found.usedMc, first_run: firstRun }, 'monitor run done')
    })

  return {
    name: MONITOR_JOB,
    table: 'monitors',
    concurrency: RUNS_PER_WORKER,
    leaseMs: config.jobLeaseMs,
    // An interrupted run puts itself back with its due time (and so its run id) unchanged.
    requeueOnStop: false,
    run,
  }
}
