import type { FastifyBaseLogger } from 'fastify'
import { type Sweep, startMaintenance } from './maintenance.ts'
import { type JobKind, type JobQueue, startJobRunner } from './runner.ts'

export interface WorkerSet extends JobQueue {
  /** Every kind of job, each with its runner. */
  kinds: readonly JobKind[]
  /** Housekeeping run beside them. */
  sweeps: readonly Sweep[]
  pollMs: number
}

/** Every background worker of one process: what `npm start` runs beside the API and `trawl worker` runs alone. */
export function startWorkers(set: WorkerSet, log: FastifyBaseLogger) {
  const workers = [startMaintenance(set.sweeps, log), ...set.kinds.map((kind) => startJobRunner(set, log, kind, set.pollMs))]
  return {
    /** Stops claiming work; jobs in flight finish or go back to the queue, webhook attempts in flight finish. */
    stop: () => Promise.all(workers.map((w) => w.stop())).then(() => undefined),
  }
}
