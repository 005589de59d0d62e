import type { FastifyInstance } from 'fastify'
import { buildApp } from './app.ts'
import type { Config } from './config.ts'
import { startCrawlWorker } from './features/crawl/crawl.worker.ts'
import { startWebhookWorker } from './features/webhooks/webhooks.worker.ts'
import { startMaintenance } from './jobs/maintenance.worker.ts'
import { openServices } from './services.ts'

/** loadConfig → openServices → buildApp → listen → workers. SIGTERM/SIGINT drain and close. */
export async function serve(config: Config): Promise<FastifyInstance> {
  const services = await openServices(config)
  const app = await buildApp(services)
  const workers = config.workers ? [startMaintenance(services, app.log), startWebhookWorker(services, app.log), startCrawlWorker(services, app.log)] : []
  app.addHook('onClose', async () => {
    // Webhook attempts in flight finish (each within its 10 s timeout) before the store closes.
    await Promise.all(workers.map((w) => w.stop()))
    await services.close()
  })
  const url = await app.listen({ host: config.host, port: config.port })
  app.log.info(`Trawl listening on ${url} (database ${config.databaseUrl.split(':')[0]}, workers ${config.workers ? 'on' : 'off'})`)
  let closing = false
  const shutdown = (signal: string) => {
    if (closing) return
    closing = true
    app.log.info(`${signal}: finishing in-flight requests, then exiting`)
    // app.close() stops accepting connections and waits for in-flight requests.
    app.close().then(
      () => process.exit(0),
      (err) => {
        app.log.error({ err }, 'shutdown failed')
        process.exit(1)
      },
    )
  }
  process.once('SIGTERM', () => shutdown('SIGTERM'))
  process.once('SIGINT', () => shutdown('SIGINT'))
  return app
}

/** `trawl worker`: background work only, sharing the database with one or more API processes. */
export async function runWorker(config: Config) {
  const services = await openServices(config)
  const { default: pino } = await import('pino')
  const log = pino({ level: config.logLevel })
  const workers = [startMaintenance(services, log as never), startWebhookWorker(services, log as never), startCrawlWorker(services, log as never)]
  log.info('Trawl worker running')
  const stop = async () => {
    await Promise.all(workers.map((w) => w.stop()))
    await services.close()
    process.exit(0)
  }
  process.once('SIGTERM', stop)
  process.once('SIGINT', stop)
}
