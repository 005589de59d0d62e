import type { FastifyBaseLogger } from 'fastify'
import { startCrawlWorker } from '../features/crawl/crawl.worker.ts'
import { startWebhookWorker } from '../features/webhooks/webhooks.worker.ts'
import type { Services } from '../services.ts'
import { startMaintenance } from './maintenance.worker.ts'

/** Every background worker of one process: what `npm start` runs beside the API and `trawl worker` runs alone. */
export function startWorkers(services: Services, log: FastifyBaseLogger) {
  const workers = [startMaintenance(services, log), startWebhookWorker(services, log), startCrawlWorker(services, log)]
  return {
    /** Stops claiming work; crawls in flight go back to the queue, webhook attempts in flight finish. */
    stop: () => Promise.all(workers.map((w) => w.stop())).then(() => undefined),
  }
}
