import { randomBytes } from 'node:crypto'
import { hostname } from 'node:os'
import type { FastifyBaseLogger } from 'fastify'
import { type LogFields, withLogFields } from '../metrics/log-context.ts'
import type { QueueStat } from '../metrics/metrics.ts'
import type { Signals } from '../signals/signals.ts'
import type { Store } from '../store/database.ts'
import { claimDueWith, queueCounts, renewLease, requeueLeased } from './jobs.store.ts'

/**
 * One leased-job runner for every kind of background work (crawls, batch jobs, monitor runs,
 * webhook deliveries). A kind is a table with the lease columns of `jobs.store.ts` and a handler; the
 * runner claims due rows with a lease, renews it while the handler works, wakes at once when work
 * is queued (`wakeJobs`: here, and in other processes through src/signals), polls for work whose
 * wake-up was lost or that became due, and on a graceful
 * stop lets the handlers finish or hands their rows back. A process killed mid-job leaves a lease
 * that expires; the next claim takes the row over. Handlers end a job themselves (final status
 * and side effects in one transaction, fenced on `lease_owner`), so a stale worker can never
 * finish a job twice.
 */
export interface JobContext {
  /** The claim: handlers fence their final write on `lease_owner = workerId`. */
  workerId: string
  /** True once the runner is stopping or the lease was lost: leave the job for the next claim. */
  interrupted(): boolean
}

export interface JobKind {
  /** Log label and wake-up channel, e.g. 'batch'. */
  name: string
  table: string
  /** Jobs in flight at once in one process. */
  concurrency: number
  /** Lease length; renewed every third of it while the handler runs. */
  leaseMs: number
  /** How often other processes' work is looked for (default TRAWL_SCHEDULER_POLL_MS). */
  pollMs?: number
  run(id: string, ctx: JobContext): Promise<void>
  /**
   * On a graceful stop, what to do with a job still running once its handler saw `interrupted()`
   * and returned without ending it: by default it goes back to the queue, due at once.
   */
  requeueOnStop?: boolean
  /** The column holding the id of the request that created the job: its log lines carry it as `reqId`. */
  requestIdColumn?: string
}

export interface JobRunner {
  /** Look for due work now (also what `wakeJobs` calls). */
  wake(): void
  /** Stops claiming, interrupts running handlers, waits for them, and requeues what they left. */
  stop(): Promise<void>
}

/**
 * Wakes the runners of `kind` (work was just queued): this process's at once, and every other
 * process's where the signals reach it (src/signals); the others find it at their next poll.
 */
export function wakeJobs(signals: Signals, kind: string) {
  void signals.publish({ type: 'job-queued', kind })
}

/**
 * The lease and poll of a kind whose jobs a request queues: the configured lease, and other
 * processes' jobs looked for at least every 5 s (the request that queues one wakes this process
 * at once, wakeJobs).
 */
export const requestQueuedTiming = (config: { jobLeaseMs: number; schedulerPollMs: number }) => ({
  leaseMs: config.jobLeaseMs,
  pollMs: Math.min(config.schedulerPollMs, 5000),
})

/** Where jobs wait (their tables) and how runners hear that one was queued. */
export interface JobQueue {
  store: Store
  signals: Signals
}

export function startJobRunner({ store, signals }: JobQueue, log: FastifyBaseLogger, kind: JobKind, defaultPollMs: number): JobRunner {
  const workerId = `${kind.name}-${hostname()}-${process.pid}-${randomBytes(4).toString('hex')}`
  const running = new Map<string, { lost: boolean; done: Promise<void> }>()
  let stopped = false
  let claiming: Promise<void> | null = null
  let again = false

  const execute = async (id: string) => {
    const state = { lost: false, done: Promise.resolve() }
    const renew = setInterval(
      () => {
        renewLease(store, kind.table, id, workerId, kind.leaseMs)
          .then((held) => {
            if (!held) state.lost = true
          })
          .catch((err) => log.warn({ err, [kind.name]: id }, 'could not renew a job lease'))
      },
      Math.max(50, Math.floor(kind.leaseMs / 3)),
    )
    renew.unref()
    const ctx: JobContext = { workerId, interrupted: () => stopped || state.lost }
    state.done = kind
      .run(id, ctx)
      .catch((err) => log.error({ err, [kind.name]: id }, 'job failed unexpectedly; its lease will expire and it is retried'))
      .finally(async () => {
        clearInterval(renew)
        // A handler that returned without ending its job (interrupted) leaves it for the next claim.
        if (stopped && kind.requeueOnStop !== false) await requeue(id)
        running.delete(id)
        wake()
      })
    running.set(id, state)
  }

  const requeue = (id: string) =>
    requeueLeased(store, kind.table, id, workerId).catch((err) =>
      log.warn({ err, [kind.name]: id }, 'could not requeue an interrupted job; its lease will expire'),
    )

  const claimLoop = async () => {
    do {
      again = false
      while (!stopped && running.size < kind.concurrency) {
        const claims = await claimDueWith(store, kind.table, { workerId, leaseMs: kind.leaseMs, limit: kind.concurrency - running.size }, kind.requestIdColumn)
        if (claims.length === 0) break
        for (const { id, value } of claims) {
          // Every line the job writes (whichever logger) names it and the request that created it.
          const fields: LogFields = value ? { reqId: value, job_id: id, job_kind: kind.name } : { job_id: id, job_kind: kind.name }
          withLogFields(fields, () => void execute(id))
        }
      }
    } while (again && !stopped)
  }

  // One claim loop at a time; a wake-up during it makes the loop look once more.
  const wake = () => {
    if (stopped) return
    if (claiming) {
      again = true
      return
    }
    // Its own log scope: not that of whichever request happened to queue work and wake it.
    claiming = withLogFields({ job_kind: kind.name }, claimLoop)
      .catch((err) => log.error({ err, kind: kind.name }, 'could not claim jobs; will retry'))
      .finally(() => {
        claiming = null
      })
  }

  const unlisten = signals.on('job-queued', (s) => {
    if (s.kind === kind.name) wake()
  })
  // Not unref'd: in `trawl worker` the polls are what keep the process running.
  const poll = setInterval(wake, kind.pollMs ?? defaultPollMs)
  wake()

  return {
    wake,
    async stop() {
      stopped = true
      clearInterval(poll)
      unlisten()
      await claiming
      await Promise.allSettled([...running.values()].map((r) => r.done))
    },
  }
}

/** Each kind's queue now (GET /metrics): due rows waiting, rows held by workers, the oldest wait. */
export async function queueStats(store: Store, kinds: Pick<JobKind, 'name' | 'table'>[]): Promise<QueueStat[]> {
  const now = Date.now()
  return Promise.all(
    kinds.map(async (k) => {
      const c = await queueCounts(store, k.table, now)
      return { kind: k.name, queued: c.queued, running: c.running, oldestQueuedAgeMs: c.oldestDueAt == null ? 0 : Math.max(0, now - c.oldestDueAt) }
    }),
  )
}
