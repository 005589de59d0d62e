import { Readable } from 'node:stream'
import { lockAccount } from '../../billing/credits.store.ts'
import { charge, payerOf } from '../../billing/credits.ts'
import { cancelBeforeStart, queuedHeldJob } from '../../billing/held-job.ts'
import { toMc } from '../../billing/money.ts'
import { ApiError } from '../../errors.ts'
import type { AuthContext } from '../../http/auth.ts'
import { countActiveJobs } from '../../jobs/jobs.store.ts'
import { type JobQueue, wakeJobs } from '../../jobs/runner.ts'
import type { Store } from '../../store/database.ts'
import type { CrawlRow } from '../../store/schema.ts'
import { webhookDeliveryStatus } from '../../webhooks/webhooks.service.ts'
import type { CrawlParams } from './crawl.schema.ts'
import { crawlPageBatches, crawlPagesJson, findCrawl, insertCrawl, listActiveCrawls, updateCrawl } from './crawl.store.ts'
import { CRAWL_JOB, CRAWL_RESULT_TTL_MS, type CrawlRequest, normaliseCrawl } from './crawl.types.ts'
import { crawlJsonFrame, toCrawlView } from './crawl.view.ts'

export const MAX_ACTIVE_CRAWLS = 20

const tooManyCrawls = () =>
  new ApiError('rate_limited', `at most ${MAX_ACTIVE_CRAWLS} crawls may be queued or running at once; wait for one to finish`, { retryAfterSeconds: 30 })

/**
 * POST /v1/crawl: at most 20 queued or running per account, `limit` credits debited up front (the
 * worker refunds what was not read), then a queued row for a worker to claim.
 */
export async function startCrawl({ store, signals }: JobQueue, auth: AuthContext, params: CrawlParams, requestId: string) {
  const request = normaliseCrawl(params)
  const reservedMc = toMc(request.limit)
  const row: CrawlRow = { ...queuedHeldJob({ auth, requestId, request, reservedMc, webhookUrl: params.webhook_url }), progress: null }
  // One transaction under the account lock: the cap check, the debit and the row stand or fall
  // together, and simultaneous POSTs cannot both take the 20th place.
  const balanceMc = await store.transaction(async (tx) => {
    await lockAccount(tx, auth.accountId)
    if ((await countActiveJobs(tx, 'crawls', auth.accountId)) >= MAX_ACTIVE_CRAWLS) throw tooManyCrawls()
    const balance = await charge(store, payerOf(auth), reservedMc, requestId, '/v1/crawl', tx)
    await insertCrawl(tx, row)
    return balance
  })
  wakeJobs(signals, CRAWL_JOB)
  return { task: toCrawlView(row, null), balanceMc }
}

async function visibleCrawl(store: Store, accountId: string, id: string) {
  const row = await findCrawl(store.db, accountId, id)
  if (!row || (row.expires_at != null && row.expires_at <= Date.now())) {
    throw new ApiError('not_found', `crawl ${id} does not exist, belongs to another account, or its result expired (kept 24 hours)`)
  }
  return row
}

/** The row and its webhook's status. */
async function crawlWithWebhook(store: Store, accountId: string, id: string) {
  const row = await visibleCrawl(store, accountId, id)
  const webhook = row.webhook_delivery_id ? await webhookDeliveryStatus(store, row.webhook_delivery_id) : null
  return { row, webhook }
}

/** The account's queued and running crawls, oldest first, with their requests. */
export async function activeCrawls(store: Store, accountId: string): Promise<{ id: string; request: CrawlRequest }[]> {
  const rows = await listActiveCrawls(store.db, accountId)
  return rows.map((row) => ({ id: row.id, request: JSON.parse(row.request) as CrawlRequest }))
}

/** The crawl as an object, its pages in the result once it has ended. */
export async function getCrawl(store: Store, accountId: string, id: string) {
  const { row, webhook } = await crawlWithWebhook(store, accountId, id)
  return toCrawlView(row, webhook, row.result ? await crawlPagesJson(store, id) : undefined)
}

const COMMA = Buffer.from(',')

/**
 * GET /v1/crawl/{id}: getCrawl as JSON text. A finished crawl's pages stream out of the store a
 * batch at a time: a 1,000-page result is tens of MB, and held whole, with its copies on the way
 * to the socket, it was the most memory a crawl ever took. Each page goes out as the buffer the
 * store returned, never copied into a joined one: the copies (11 MB for 1,000 pages) waited for a
 * collection and were the top of a crawl's peak. The first batch is read before anything is sent,
 * so a store that fails answers with an error, not a cut-off body.
 */
export async function getCrawlBody(store: Store, accountId: string, id: string): Promise<string | Readable> {
  const { row, webhook } = await crawlWithWebhook(store, accountId, id)
  const frame = crawlJsonFrame(row, webhook)
  if (!frame.pages) return frame.before
  const batches = crawlPageBatches(store, id)
  const first = await batches.next()
  async function* chunks() {
    yield Buffer.from(frame.before)
    let lead = false
    for (let batch = first; !batch.done; batch = await batches.next()) {
      for (const page of batch.value) {
        if (lead) yield COMMA
        lead = true
        yield page
      }
    }
    yield Buffer.from(frame.after)
  }
  return Readable.from(chunks())
}

/**
 * DELETE /v1/crawl/{id}: a queued crawl is canceled and refunded at once; a running one is flagged
 * and stops at its next step (the worker charges the pages read and refunds the rest); an ended
 * one is left as it is.
 */
export async function cancelCrawl({ store, signals }: JobQueue, accountId: string, id: string) {
  const row = await visibleCrawl(store, accountId, id)
  if (row.status === 'queued' && (await cancelBeforeStart(store, 'crawls', row, '/v1/crawl', CRAWL_RESULT_TTL_MS))) return getCrawl(store, accountId, id)
  if (row.status === 'queued' || row.status === 'running') {
    await updateCrawl(store.db, id, { cancel_requested: 1 })
    // The worker running it may be in another process: tell every process now.
    void signals.publish({ type: 'crawl-canceled', crawlId: id })
  }
  return getCrawl(store, accountId, id)
}
