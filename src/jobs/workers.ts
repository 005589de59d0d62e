import type { FastifyBaseLogger } from 'fastify'
import { batchJobKind } from '../features/batches/batches.worker.ts'
import { crawlJobKind } from '../features/crawl/crawl.worker.ts'
import { monitorJobKind } from '../features/monitors/monitors.worker.ts'
import { startWebhookWorker } from '../features/webhooks/webhooks.worker.ts'
import { appDeps, type Services } from '../services.ts'
import { startMaintenance } from './maintenance.worker.ts'
import { startJobRunner } from './runner.ts'

/** Every background worker of one process: what `npm start` runs beside the API and `trawl worker` runs alone. */
export function startWorkers(services: Services, log: FastifyBaseLogger) {
  const deps = appDeps(services, log)
  const poll = services.config.schedulerPollMs
  const workers = [
    startMaintenance(services, log),
    startWebhookWorker(services, log),
    startJobRunner(services.store, log, crawlJobKind(services, log), poll),
    startJobRunner(services.store, log, batchJobKind(deps), poll),
    startJobRunner(services.store, log, monitorJobKind(deps), poll),
  ]
  return {
    /** Stops claiming work; jobs in flight finish or go back to the queue, webhook attempts in flight finish. */
    stop: () => Promise.all(workers.map((w) => w.stop())).then(() => undefined),
  }
}
