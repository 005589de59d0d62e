import cluster, { type Worker } from 'node:cluster'
import type { Config } from './config.ts'
import { loggerOptions } from './http/logging.ts'
import { serve } from './main.ts'
import { openStore } from './store/database.ts'

export const MAX_PROCESSES = 64
// A process that dies sooner than this after starting counts as a crash loop: restarts back off.
const HEALTHY_AFTER_MS = 10_000
const MAX_RESTART_DELAY_MS = 30_000

/**
 * Why `--processes N` (N > 1) cannot run with this configuration, or null. SQLite in WAL mode with a
 * busy timeout is shared safely by several processes (as `serve` and `trawl worker` already share
 * it), but without Redis or PostgreSQL the processes have no way to signal each other: a revoked
 * key would stay valid in the others for up to TRAWL_KEY_CACHE_MS, so that combination is refused.
 */
export function clusterProblem(config: Pick<Config, 'databaseUrl' | 'redisUrl'>, processes: number): string | null {
  if (processes <= 1) return null
  if (config.redisUrl || !config.databaseUrl.startsWith('sqlite:')) return null
  return '--processes above 1 needs TRAWL_REDIS_URL or a PostgreSQL TRAWL_DATABASE_URL, so that the processes can signal each other (key revocation, wake-ups, crawl cancels)'
}

/**
 * `trawl serve --processes N`: a node:cluster primary forks N processes that each run the whole
 * server (`serve`: API, and the background workers unless TRAWL_WORKERS=false) on one shared port;
 * connections are spread round robin by the primary. A process that dies is started again (with a
 * growing delay while it keeps dying young); SIGTERM or SIGINT drains every process, each as a
 * single `serve` drains, and the primary exits once all have.
 */
export async function serveCluster(config: Config, processes: number): Promise<void> {
  if (cluster.isWorker) {
    await serve(config)
    return
  }
  const { default: pino } = await import('pino')
  const log = pino(loggerOptions(config.logLevel))
  // Migrations once, before N processes would all try them at the same moment.
  await (await openStore(config.databaseUrl)).close()

  let stopping = false
  let crashes = 0
  const started = new Map<Worker, number>()

  const fork = () => {
    const worker = cluster.fork()
    started.set(worker, Date.now())
  }

  cluster.on('exit', (worker, code, signal) => {
    const lived = Date.now() - (started.get(worker) ?? 0)
    started.delete(worker)
    if (stopping) {
      if (started.size === 0) {
        log.info('every process has stopped')
        process.exit(0)
      }
      return
    }
    crashes = lived < HEALTHY_AFTER_MS ? crashes + 1 : 0
    const delay = crashes === 0 ? 0 : Math.min(MAX_RESTART_DELAY_MS, 500 * 2 ** (crashes - 1))
    log.error({ pid: worker.process.pid, code, signal, restartInMs: delay }, 'a server process died; starting another')
    setTimeout(() => {
      if (!stopping) fork()
    }, delay)
  })

  const shutdown = (sig: NodeJS.Signals) => {
    if (stopping) return
    stopping = true
    log.info(`${sig}: draining ${started.size} server processes`)
    if (started.size === 0) process.exit(0)
    // Each process finishes its in-flight requests and hands its jobs back, then exits.
    for (const worker of started.keys()) worker.process.kill('SIGTERM')
  }
  process.on('SIGTERM', () => shutdown('SIGTERM'))
  process.on('SIGINT', () => shutdown('SIGINT'))

  for (let i = 0; i < processes; i++) fork()
  log.info(`Trawl cluster: ${processes} server processes on ${config.host}:${config.port} (primary ${process.pid})`)
}
