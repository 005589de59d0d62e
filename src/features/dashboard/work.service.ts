import type { AppDeps } from '../../deps.ts'
import { ApiError } from '../../errors.ts'
import type { AuthContext } from '../../http/auth.ts'
import type { JobQueue } from '../../jobs/runner.ts'
import type { Store } from '../../store/database.ts'
import { webhookDeliveryStatus } from '../../webhooks/webhooks.service.ts'
import { authForKeyId } from '../accounts/accounts.service.ts'
import { getBatchJob, toBatchJobView } from '../batches/batches.service.ts'
import { recentBatchJobs } from '../batches/batches.store.ts'
import { cancelCrawl, getCrawl } from '../crawl/crawl.service.ts'
import { findCrawl, recentCrawls } from '../crawl/crawl.store.ts'
import { toCrawlView } from '../crawl/crawl.view.ts'
import { engineStatuses } from '../engines/engines.service.ts'
import { listAccountMonitors, monitorRuns, patchMonitor, runMonitorNow } from '../monitors/monitors.service.ts'
import { findMonitor } from '../monitors/monitors.store.ts'
import { playgroundAuth } from './playground.service.ts'
import type { SessionUser } from './sessions.service.ts'

/**
 * The work screen (docs/dashboard.md): the account's batches, crawls, monitors and engine health,
 * through the same services as the key-authenticated /v1 endpoints, for any user of the account.
 */

const statusOf = (store: Store, deliveryId: string | null) => (deliveryId ? webhookDeliveryStatus(store, deliveryId) : Promise.resolve(null))

export async function listCrawls(store: Store, user: SessionUser, limit: number) {
  const rows = await recentCrawls(store.db, user.accountId, limit)
  const crawls = await Promise.all(
    rows.map(async (row) => {
      const request = JSON.parse(row.request) as { url?: string }
      return { ...toCrawlView(row, await statusOf(store, row.webhook_delivery_id)), url: request.url ?? null }
    }),
  )
  return { crawls }
}

/** The crawl as GET /v1/crawl/{id} answers it, plus its start `url` (the result has it only once ended). */
export async function crawlDetail(store: Store, user: SessionUser, id: string) {
  const view = await getCrawl(store, user.accountId, id)
  const row = await findCrawl(store.db, user.accountId, id)
  return { ...view, url: row ? ((JSON.parse(row.request) as { url?: string }).url ?? null) : null }
}
export const cancelCrawlFor = (queue: JobQueue, user: SessionUser, id: string) => cancelCrawl(queue, user.accountId, id)

export async function listBatchJobs(store: Store, baseUrl: string, user: SessionUser, limit: number) {
  const rows = await recentBatchJobs(store.db, user.accountId, limit)
  const now = Date.now()
  const live = rows.filter((r) => r.expires_at == null || r.expires_at > now)
  const jobs = await Promise.all(
    live.map(async (row) => {
      const view = toBatchJobView(row, baseUrl, (await statusOf(store, row.webhook_delivery_id)) as 'pending' | 'delivered' | 'failed' | null)
      return { ...view, batch_id: row.batch_id }
    }),
  )
  return { jobs }
}

export const batchJobDetail = (store: Store, baseUrl: string, user: SessionUser, id: string) => getBatchJob(store, baseUrl, user.accountId, id)

export const listMonitorsFor = (store: Store, user: SessionUser) => listAccountMonitors(store, user.accountId)

export const monitorRunsFor = (store: Store, user: SessionUser, id: string, limit: number) => monitorRuns(store, user.accountId, id, { limit })

/**
 * Pause, resume and run-now act with a key, since the monitor's runs are billed on the key that
 * last changed it: the dashboard acts as the monitor's own key, so a click never moves its
 * billing; once that key is revoked, as the user's default playground key (as PATCH with another
 * key would).
 */
async function monitorActor(store: Store, user: SessionUser, id: string): Promise<AuthContext> {
  const row = await findMonitor(store.db, user.accountId, id)
  if (!row) throw new ApiError('not_found', `monitor ${id} does not exist or belongs to another account`)
  try {
    return await authForKeyId(store, row.key_id)
  } catch {
    return playgroundAuth(store, user)
  }
}

export async function setMonitorActive(deps: AppDeps, user: SessionUser, id: string, active: boolean) {
  return patchMonitor(deps, await monitorActor(deps.store, user, id), id, { active })
}

export async function runMonitorFor(deps: AppDeps, user: SessionUser, id: string) {
  return runMonitorNow(deps, await monitorActor(deps.store, user, id), id)
}

export async function engineHealth(deps: Pick<AppDeps, 'engines'>) {
  await deps.engines.health.refresh()
  return { engines: engineStatuses(deps.engines) }
}
