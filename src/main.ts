import cluster from 'node:cluster'
import type { FastifyInstance } from 'fastify'
import { buildApp } from './app.ts'
import { watchRedis } from './cache/redis.ts'
import type { Config } from './config.ts'
import type { Services } from './deps.ts'
import { compactWhenIdle } from './heap-compact.ts'
import { jsonLogStream, loggerOptions } from './http/logging.ts'
import { queueStats } from './jobs/runner.ts'
import { startMetricsServer } from './metrics/metrics.server.ts'
import { warmUpFetch } from './net/warm-up.ts'
import { jobKinds, openServices, startWorkers } from './services.ts'
import { startupBanner, terminalLogStream } from './startup-banner.ts'

export interface ServeOptions {
  /** Runs on the built app before it listens (hooks of `trawl demo`, which also narrows what its engines take). */
  prepare?: (app: FastifyInstance, services: Services) => void
  /** Printed once listening, at a terminal or not, instead of the terminal banner. */
  banner?: (listenUrl: string) => string
  /** The signals that drain and close it (default SIGTERM and SIGINT; `trawl demo` adds SIGHUP). */
  stopSignals?: readonly NodeJS.Signals[]
}

/** loadConfig → openServices → buildApp → listen → workers. SIGTERM/SIGINT drain and close. */
export async function serve(config: Config, opts: ServeOptions = {}): Promise<FastifyInstance> {
  const services = await openServices(config)
  // At a terminal, readable lines (pino-pretty); else JSON lines for log collectors.
  const terminal = process.stdout.isTTY === true
  const logStream = (await terminalLogStream(terminal)) ?? jsonLogStream()
  const app = await buildApp(services, { logStream })
  opts.prepare?.(app, services)
  const workers = config.workers ? startWorkers(services, app.log) : null
  // Requests being served (compactWhenIdle below); an aborted one may end twice, and counts once.
  // Callback hooks: no promise a request on the hot path.
  let inFlight = 0
  const counted = new WeakSet<object>()
  app.addHook('onRequest', (req, _reply, done) => {
    counted.add(req)
    inFlight++
    done()
  })
  app.addHook('onResponse', (req, _reply, done) => {
    if (counted.delete(req)) inFlight--
    done()
  })
  app.addHook('onRequestAbort', (req, done) => {
    if (counted.delete(req)) inFlight--
    done()
  })
  app.addHook('onClose', async () => {
    // Crawls go back to the queue and webhook attempts in flight finish before the store closes.
    await workers?.stop()
    await services.close()
  })
  // The reader's code is compiled before the first request, not while the first pages wait (30 ms).
  await services.reader.warmInline().catch((err) => app.log.warn({ err }, 'reader warm-up failed'))
  if (services.redis && config.redisUrl) watchRedis(services.redis, config.redisUrl, app.log)
  const url = await app.listen({ host: config.host, port: config.port }).catch(async (err: Error) => {
    await app.close().catch(() => {})
    throw new Error(`cannot listen on TRAWL_HOST=${config.host} TRAWL_PORT=${config.port}: ${err.message}`, { cause: err })
  })
  // The lines logged while starting come before the banner, not after it (they wait in the log's buffer).
  ;(logStream as { flushSync?: () => void }).flushSync?.()
  // Under `serve --processes N` only the first process shows it.
  if (opts.banner) process.stdout.write(`${opts.banner(url)}\n`)
  else if (terminal && (!cluster.isWorker || cluster.worker?.id === 1)) process.stdout.write(`${startupBanner(config, url)}\n`)
  // Reader threads start at the first page read (about 20 MB an idle server does without); until
  // they are up, pages are read on the main thread, whose reader code warmInline compiled. undici
  // too loads at the first fetch (`trawl worker` warms it at start): the first page or upstream
  // request of a process pays about 15 ms for it, which an idle server's 6 MB would otherwise buy.
  // Start-up's garbage goes once the workers' first polls are done, not at some later collection,
  // and not while a request waits for it.
  compactWhenIdle(() => inFlight > 0)
  app.log.info(
    `Trawl listening on ${url} (database ${config.databaseUrl.split(':')[0]}, workers ${config.workers ? 'on' : 'off'}, signals ${services.signals.transport})`,
  )
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
  for (const signal of opts.stopSignals ?? ['SIGTERM', 'SIGINT']) process.once(signal, () => shutdown(signal))
  return app
}

/** `trawl worker`: background work only, sharing the database with one or more API processes. */
export async function runWorker(config: Config) {
  const services = await openServices(config)
  const { default: pino } = await import('pino')
  const log = pino(loggerOptions(config.logLevel))
  if (services.redis && config.redisUrl) watchRedis(services.redis, config.redisUrl, log)
  const workers = startWorkers(services, log as never)
  services.reader.ready().catch((err) => log.warn({ err }, 'reader threads did not start; reading on the main thread'))
  warmUpFetch().catch((err) => log.debug({ err }, 'fetch warm-up failed'))
  log.info(`Trawl worker running (signals ${services.signals.transport})`)
  // This process's counters (webhook attempts, job refunds, upstream attempts) on a port of its own.
  const metricsPort = config.metricsPort
  const metricsServer =
    metricsPort == null
      ? null
      : await startMetricsServer({
          config: { ...config, metricsPort },
          queues: () => queueStats(services.store, jobKinds(services, log as never)),
          log: log as never,
        })
  const stop = async () => {
    await metricsServer?.close()
    await workers.stop()
    await services.close()
    process.exit(0)
  }
  process.once('SIGTERM', stop)
  process.once('SIGINT', stop)
}
