import type { FastifyBaseLogger } from 'fastify'
import { batchJobKind } from '../features/batches/batches.worker.ts'
import { crawlJobKind } from '../features/crawl/crawl.worker.ts'
import { monitorJobKind } from '../features/monitors/monitors.worker.ts'
import { appDeps, type Services } from '../services.ts'
import { webhookJobKind } from '../webhooks/webhooks.worker.ts'
import { startMaintenance } from './maintenance.worker.ts'
import { type JobKind, startJobRunner } from './runner.ts'

/** Every background worker of one process: what `npm start` runs beside the API and `trawl worker` runs alone. */
export function startWorkers(services: Services, log: FastifyBaseLogger) {
  const poll = services.config.schedulerPollMs
  const workers = [startMaintenance(services, log), ...jobKinds(services, log).map((kind) => startJobRunner(services.store, log, kind, poll))]
  return {
    /** Stops claiming work; jobs in flight finish or go back to the queue, webhook attempts in flight finish. */
    stop: () => Promise.all(workers.map((w) => w.stop())).then(() => undefined),
  }
}

/** Every kind of job: what startWorkers runs, and whose queues GET /metrics reads (in API-only processes too). */
export function jobKinds(services: Services, log: FastifyBaseLogger): JobKind[] {
  const deps = appDeps(services, log)
  return [
    webhookJobKind(services, log),
    // Crawls and batch jobs keep the id of the request that queued them: their log lines carry it.
    { ...crawlJobKind(services, log), requestIdColumn: 'request_id' },
    { ...batchJobKind(deps), requestIdColumn: 'request_id' },
    monitorJobKind(deps),
  ]
}
