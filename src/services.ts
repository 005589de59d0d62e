import type { FastifyBaseLogger } from 'fastify'
import { refundStaleReservations } from './billing/credits.ts'
import { connectRedis, redactedUrl } from './cache/redis.ts'
import { CACHE_TTL_MS, databaseCache, redisCache, withMemory } from './cache/response-cache.ts'
import type { Config } from './config.ts'
import type { AppDeps, Services } from './deps.ts'
import { gatePassStore } from './engines/gates/gate-pass.store.ts'
import { redisHealthShare } from './engines/health.redis.ts'
import { createEngines, ENGINE_NAMES, engineOptionsOf } from './engines/registry.ts'
import { createUpstreamClient } from './engines/upstream/upstream-client.ts'
import { authForKeyId, keyLookup } from './features/accounts/accounts.service.ts'
import { pruneExpiredBatchJobs } from './features/batches/batches.store.ts'
import { batchJobKind } from './features/batches/batches.worker.ts'
import { pruneExpiredResearch } from './features/context/research/research.store.ts'
import { researchJobKind } from './features/context/research/research.worker.ts'
import { pruneExpiredCrawls } from './features/crawl/crawl.store.ts'
import { crawlJobKind } from './features/crawl/crawl.worker.ts'
import { pruneExpiredSessions } from './features/dashboard/dashboard.store.ts'
import { pruneLoginAttempts } from './features/dashboard/login-throttle.store.ts'
import { deleteExpiredSignups } from './features/dashboard/signup-pending.store.ts'
import { pruneExpiredMonitorRuns } from './features/monitors/monitors.store.ts'
import { monitorJobKind } from './features/monitors/monitors.worker.ts'
import { KeyCache } from './http/auth.ts'
import { createLimiter } from './http/rate-limit.ts'
import type { Sweep } from './jobs/maintenance.ts'
import type { JobKind } from './jobs/runner.ts'
import { startWorkers as startJobWorkers } from './jobs/workers.ts'
import { createRenderer } from './net/browser/renderer.ts'
import { createReaderPool } from './reader/reader.pool.ts'
import { openSignals } from './signals/open-signals.ts'
import { proxyPenaltyShare } from './signals/signals.ts'
import { redisRobots } from './site/robots/robots.redis.ts'
import { createRobotsCache } from './site/site.discovery.ts'
import { openStore } from './store/database.ts'
import { serverSecret } from './store/server-secrets.store.ts'
import { closeTokenThread } from './text/tokens.ts'
import { pruneOldDeliveries, sealClearWebhookSecrets } from './webhooks/webhooks.service.ts'
import { webhookJobKind } from './webhooks/webhooks.worker.ts'

export function appDeps(services: Services, log: FastifyBaseLogger): AppDeps {
  return { ...services, log, cacheTtlMs: CACHE_TTL_MS, usdPerCredit: services.config.usdPerCredit }
}

export async function openServices(config: Config): Promise<Services> {
  // Engine names are known here, not where the configuration is read (config.ts checks the pools).
  const unknownEngine = Object.keys(config.proxyEngines).find((name) => !(ENGINE_NAMES as readonly string[]).includes(name))
  if (unknownEngine) throw new Error(`TRAWL_PROXY_ENGINES names engine "${unknownEngine}"; the engines are ${ENGINE_NAMES.join(', ')}`)
  const store = await openStore(config.databaseUrl).catch((err: Error) => {
    throw new Error(`the database at TRAWL_DATABASE_URL=${redactedUrl(config.databaseUrl)} could not be opened: ${err.message}`, { cause: err })
  })
  const redis = config.redisUrl ? await connectRedis(config.redisUrl) : null
  const signals = await openSignals(config, store, redis)
  const renderer = createRenderer(config)
  // Engine pages that need scripts are drawn by the same guarded browser as page reading.
  const upstream = createUpstreamClient(config, { share: proxyPenaltyShare(signals), browser: renderer, passes: gatePassStore(store) })
  const reader = createReaderPool(config.readerThreads, { threadMemoryMb: config.readerThreadMemoryMb })
  const reviewsTokenSecret = await serverSecret(store, 'reviews_page_token')
  const engines = createEngines(upstream, {
    ...engineOptionsOf(config),
    reviewsTokenSecret,
    share: redis ? redisHealthShare(redis, () => {}) : undefined,
  })
  // Other processes' engine health, read in the background so no search waits on Redis for it.
  const healthSync = redis ? setInterval(() => engines.health.refresh().catch(() => {}), 2000).unref() : null
  return {
    config,
    store,
    redis,
    cache: withMemory(redis ? redisCache(redis) : databaseCache(store)),
    limiter: createLimiter(redis),
    keys: new KeyCache(keyLookup(store), config.keyCacheMs, signals),
    signals,
    upstream,
    engines,
    robots: createRobotsCache(config, redis ? redisRobots(redis) : undefined),
    renderer,
    reader,
    async close() {
      if (healthSync) clearInterval(healthSync)
      await upstream.close()
      await renderer.close()
      await reader.close()
      await closeTokenThread()
      await signals.close()
      redis?.disconnect()
      await store.close()
    },
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
    // Research acts as the key that queued it, as that key is now (revoked: the job fails).
    researchJobKind({ ...deps, authFor: (keyId) => authForKeyId(services.store, keyId) }),
  ]
}

/**
 * Housekeeping every worker runs: refunds reservations left by a crashed process, prunes the
 * response cache, crawl and batch results and monitor run history past their 24 hours, finished
 * webhook deliveries past their 7 days and sign-in attempt counters whose window ended; encrypts
 * webhook secrets an earlier version stored in clear.
 */
export function maintenanceSweeps(services: Services): Sweep[] {
  const { store, cache } = services
  return [
    { run: (now) => refundStaleReservations(store, now), field: 'refunded', level: 'warn', message: 'refunded reservations left by an interrupted process' },
    { run: () => cache.prune(), field: 'pruned', level: 'debug', message: 'pruned expired cache entries' },
    { run: (now) => pruneExpiredCrawls(store.db, now), field: 'crawls', level: 'debug', message: 'removed crawls past their 24 hours' },
    { run: (now) => pruneExpiredResearch(store.db, now), field: 'research', level: 'debug', message: 'removed research jobs past their 24 hours' },
    { run: (now) => pruneExpiredBatchJobs(store.db, now), field: 'jobs', level: 'debug', message: 'removed batch jobs past their 24 hours' },
    { run: (now) => pruneExpiredMonitorRuns(store.db, now), field: 'runs', level: 'debug', message: 'removed monitor run results past their 24 hours' },
    { run: (now) => pruneOldDeliveries(store, now), field: 'deliveries', level: 'debug', message: 'pruned old webhook deliveries' },
    { run: () => sealClearWebhookSecrets(store), field: 'sealed', level: 'info', message: 'encrypted webhook secrets stored in clear by an earlier version' },
    { run: (now) => pruneLoginAttempts(store.db, now), field: 'attempts', level: 'debug', message: 'removed sign-in attempt counters whose window ended' },
    { run: (now) => pruneExpiredSessions(store.db, now), field: 'sessions', level: 'debug', message: 'removed dashboard sessions past their expiry' },
    { run: (now) => deleteExpiredSignups(store.db, now), field: 'signups', level: 'debug', message: 'removed sign-up links past their expiry' },
  ]
}

/** The job runners and housekeeping of one process: what `npm start` runs beside the API and `trawl worker` runs alone. */
export function startWorkers(services: Services, log: FastifyBaseLogger) {
  const set = {
    store: services.store,
    signals: services.signals,
    kinds: jobKinds(services, log),
    sweeps: maintenanceSweeps(services),
    pollMs: services.config.schedulerPollMs,
  }
  return startJobWorkers(set, log)
}
