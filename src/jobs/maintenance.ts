import type { FastifyBaseLogger } from 'fastify'
import { refundStaleReservations } from '../billing/credits.ts'
import { pruneExpiredBatchJobs } from '../features/batches/batches.store.ts'
import { pruneExpiredCrawls } from '../features/crawl/crawl.store.ts'
import { pruneLoginAttempts } from '../features/dashboard/login-throttle.store.ts'
import { pruneExpiredMonitorRuns } from '../features/monitors/monitors.store.ts'
import type { Services } from '../services.ts'
import { sealClearWebhookSecrets } from '../webhooks/webhooks.service.ts'

/**
 * Housekeeping every worker runs: refunds reservations left by a crashed process, prunes the
 * response cache and removes crawl and batch results and monitor run history past their 24 hours,
 * and sign-in attempt counters whose window ended; encrypts webhook secrets an earlier version
 * stored in clear. Safe to run in several processes at once (each
 * refund happens exactly once).
 */
export function startMaintenance(services: Services, log: FastifyBaseLogger, everyMs = 60_000) {
  let running = false
  const tick = async () => {
    if (running) return
    running = true
    try {
      const refunded = await refundStaleReservations(services.store)
      if (refunded > 0) log.warn({ refunded }, 'refunded reservations left by an interrupted process')
      const pruned = await services.cache.prune()
      if (pruned > 0) log.debug({ pruned }, 'pruned expired cache entries')
      const crawls = await pruneExpiredCrawls(services.store.db, Date.now())
      if (crawls > 0) log.debug({ crawls }, 'removed crawls past their 24 hours')
      const jobs = await pruneExpiredBatchJobs(services.store.db, Date.now())
      if (jobs > 0) log.debug({ jobs }, 'removed batch jobs past their 24 hours')
      const runs = await pruneExpiredMonitorRuns(services.store.db, Date.now())
      if (runs > 0) log.debug({ runs }, 'removed monitor run results past their 24 hours')
      const sealed = await sealClearWebhookSecrets(services.store)
      if (sealed > 0) log.info({ sealed }, 'encrypted webhook secrets stored in clear by an earlier version')
      const attempts = await pruneLoginAttempts(services.store.db, Date.now())
      if (attempts > 0) log.debug({ attempts }, 'removed sign-in attempt counters whose window ended')
    } catch (err) {
      log.error({ err }, 'maintenance failed; will retry')
    } finally {
      running = false
    }
  }
  void tick()
  const timer = setInterval(tick, everyMs)
  timer.unref()
  return { stop: () => clearInterval(timer) }
}
