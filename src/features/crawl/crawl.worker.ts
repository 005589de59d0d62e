import type { FastifyBaseLogger } from 'fastify'
import { refund } from '../../billing/credits.ts'
import { toCredits } from '../../billing/money.ts'
import { CACHE_TTL_MS } from '../../cache/response-cache.ts'
import type { Services } from '../../deps.ts'
import type { JobContext, JobKind } from '../../jobs/runner.ts'
import { pathFilter } from '../../params/site.params.ts'
import { pagePriceMc, readPage } from '../../reader/page-read.ts'
import { signalsOf } from '../../signals/signals.ts'
import { readSitemaps, sitemapStarts } from '../../site/site.discovery.ts'
import { onSite } from '../../site/urls/site.match.ts'
import { canonicalUrl, siteKey } from '../../site/urls/url.canonical.ts'
import type { CrawlRow } from '../../store/schema.ts'
import { enqueueWebhook } from '../../webhooks/webhooks.service.ts'
import { type CrawlOutcome, type CrawlProgress, type ReadFailure, type ReadOutcome, runCrawl } from './crawl.runner.ts'
import { CRAWL_RESULT_TTL_MS, type CrawlRequest } from './crawl.service.ts'
import { chargeCrawlPage, endLeasedCrawl, findCrawlById, readCancelRequested, requeueLeasedCrawl, saveLeasedProgress, updateCrawl } from './crawl.store.ts'

/** The job kind's name: what `wakeJobs(store, CRAWL_JOB)` wakes. */
export const CRAWL_JOB = 'crawl'
// DELETE signals the worker at once where signals reach it (src/signals: one process, or PostgreSQL
// or Redis); this poll covers the rest (an API process and `trawl worker` sharing SQLite) and a
// lost signal: one indexed read a second per running crawl.
const CANCEL_CHECK_MS = 1_000
const PAGE_TIMEOUT_MS = 30_000
const PROGRESS_MS = 500
const CRAWLS_PER_WORKER = 3
const MAX_CRAWL_DELAY_MS = 10_000

/**
 * Runs queued crawls on the job runner (jobs/runner.ts): a process killed mid-crawl leaves a lease
 * that expires, and the next worker restarts the crawl from the beginning (a crawl a deploy
 * interrupts goes back to queued). Pages already paid for are recorded per crawl, so a restart never
 * charges for a page twice. A graceful stop puts running crawls back in the queue.
 */
export function crawlJobKind(
  services: Pick<Services, 'config' | 'store' | 'cache' | 'robots'> & Partial<Pick<Services, 'renderer' | 'reader'>>,
  log: FastifyBaseLogger,
): JobKind {
  const { store, config } = services
  // The runner's id, the same for every crawl it runs; the final writes are fenced on it.
  let workerId = ''

  const execute = async (id: string, ctx: JobContext) => {
    workerId = ctx.workerId
    const interrupted = ctx.interrupted
    const row = await findCrawlById(store.db, id)
    if (!row || row.lease_owner !== workerId) return
    const request = JSON.parse(row.request) as CrawlRequest
    log.info({ crawl: id, url: request.url, attempt: row.attempts }, 'crawl started')
    // A crawl reads many pages: the reader threads start now, while robots.txt and the start page
    // are fetched, rather than at the first read (a server's first crawl; later ones find them up).
    void services.reader?.ready()
    // Written while the first fetches go out: the start page does not wait for a store round trip.
    // The time is only shown (GET /v1/crawl/{id}); a failed write does not stop the crawl.
    void updateCrawl(store.db, id, { started_at: row.started_at ?? Date.now() }).catch((err) => log.warn({ err, crawl: id }, 'start time not saved'))

    let cancel = row.cancel_requested === 1
    let lastProgress = 0
    // DELETE may reach any API process: it sets the row's flag and signals every process. The
    // signal makes the flag be read now (the row, not the message, decides); a slow poll reads it
    // in case the signal was lost.
    const readCancelFlag = async () => {
      const flag = await readCancelRequested(store.db, id).catch(() => null)
      if (flag === 1) cancel = true
    }
    const unlisten = signalsOf(store)?.on('crawl-canceled', (s) => {
      if (s.crawlId === id) void readCancelFlag()
    })
    const cancelWatch = setInterval(readCancelFlag, CANCEL_CHECK_MS)
    cancelWatch.unref()

    // At most one write each PROGRESS_MS; the latest progress of a burst is written when its turn
    // comes, so a crawl that goes quiet (a slow page) still shows what it has done.
    let pendingProgress: CrawlProgress | null = null
    let progressTimer: NodeJS.Timeout | null = null
    const writeProgress = (p: CrawlProgress) => {
      lastProgress = Date.now()
      void saveLeasedProgress(store.db, id, workerId, JSON.stringify(p)).catch((err) => log.debug({ err, crawl: id }, 'progress not saved'))
    }
    const saveProgress = (p: CrawlProgress) => {
      const wait = PROGRESS_MS - (Date.now() - lastProgress)
      if (wait <= 0) return writeProgress(p)
      pendingProgress = p
      progressTimer ??= setTimeout(() => {
        progressTimer = null
        if (pendingProgress) writeProgress(pendingProgress)
        pendingProgress = null
      }, wait)
    }
    let outcome: CrawlOutcome
    try {
      outcome = await runCrawl(planFor(request), {
        robots: async () => {
          const robots = await services.robots.get(request.url)
          // A site asking for more than 10 s between fetches gets 10 s: a crawl must end in 30 minutes.
          const crawlDelayMs = robots.crawlDelayMs == null ? null : Math.min(robots.crawlDelayMs, MAX_CRAWL_DELAY_MS)
          return { ...robots, crawlDelayMs, blocked: robots.status === 'error' || robots.status === 'unreachable' }
        },
        sitemapUrls: async (named, maxUrls) => {
          const origin = new URL(request.url).origin
          const found = await readSitemaps(config, origin, sitemapStarts(named, origin), maxUrls, Date.now() + 60_000)
          return found.entries.map((e) => e.url)
        },
        read: (url, onFetched) => readOne(url, request, onFetched),
        // Each page goes to the store as it is read (crawl_pages), not into memory until the end.
        onPage: async (key, cached, page, place) => {
          await chargeCrawlPage(store, id, key, pagePriceMc(cached), { json: JSON.stringify(page), seq: place })
        },
        onProgress: saveProgress,
        canceled: () => cancel || interrupted(),
      })
    } finally {
      clearInterval(cancelWatch)
      if (progressTimer) clearTimeout(progressTimer)
      unlisten?.()
    }
    // Stopping, or the lease was lost: back to the queue (fenced on the lease, so a lost one changes nothing).
    if (interrupted() && !cancel) return requeue(id)
    await finish(id, request, outcome, cancel)
  }

  const readOne = async (url: string, request: CrawlRequest, onFetched: () => void): Promise<ReadOutcome | ReadFailure> => {
    try {
      const read = await readPage(
        { cache: services.cache, config, log, cacheTtlMs: CACHE_TTL_MS, renderer: services.renderer, reader: services.reader },
        url,
        {
          format: request.format,
          includeLinks: request.include_links,
          maxTokens: request.max_tokens,
          timeoutMs: PAGE_TIMEOUT_MS,
          discoverLinks: true,
          onFetched,
          // Crawls queued before rendering existed have no `render`: they keep reading statically.
          render: request.render ?? 'never',
        },
        request.max_age,
      )
      if (read.empty) return { ok: false, error: { code: 'empty_page', message: 'page has no readable content' } }
      const { url: finalUrl, title, published_at, metadata, links } = read.result
      const content = read.result[request.format] ?? ''
      const page: Record<string, unknown> = { title, [request.format]: content, published_at, metadata, rendered: read.result.rendered }
      if (request.include_links) page.links = links ?? []
      return { ok: true, url: finalUrl, page, links: read.pageLinks ?? [], bytes: Buffer.byteLength(content), cached: read.cached }
    } catch (err) {
      const e = err as { code?: string; message?: string }
      return { ok: false, error: { code: e.code ?? 'upstream_error', message: e.message ?? 'page could not be read' } }
    }
  }

  /** Back to the queue for the next start (graceful stop); pages paid for stay paid for. */
  const requeue = async (id: string) => {
    await requeueLeasedCrawl(store.db, id, workerId, Date.now())
    log.info({ crawl: id }, 'crawl interrupted; queued to restart')
  }

  /**
   * Final state, refund of the unread reservation and the webhook, in one transaction that starts
   * with the state, written only while this worker holds the lease (endLeasedCrawl): a worker
   * that lost it at the last moment writes nothing, and the refund is computed from the row as
   * locked, so a takeover can never make two workers end the crawl and refund it.
   */
  const finish = async (id: string, request: CrawlRequest, outcome: CrawlOutcome, canceled: boolean) => {
    const now = Date.now()
    const noPages = outcome.pages === 0 && !canceled
    const status: CrawlRow['status'] = canceled ? 'canceled' : noPages ? 'failed' : 'completed'
    const error = canceled
      ? { code: 'canceled', message: `canceled after ${outcome.pages} pages` }
      : noPages
        ? { code: 'no_pages', message: 'nothing readable was found; the reservation was refunded' }
        : null
    // The pages are in crawl_pages already; crawl.view.ts puts them in the result when it is read.
    const result = { url: request.url, failed: outcome.failed, stats: outcome.stats }
    await store.transaction(async (tx) => {
      const row = await endLeasedCrawl(tx, id, workerId, {
        status,
        result: JSON.stringify(result),
        error: error ? JSON.stringify(error) : null,
        progress: JSON.stringify({
          pages_done: outcome.pages,
          pages_failed: outcome.failed.length,
          pages_queued: 0,
          pages_discovered: outcome.stats.discovered,
          limit: request.limit,
        }),
        completed_at: now,
        expires_at: now + CRAWL_RESULT_TTL_MS,
      })
      if (!row) {
        log.info({ crawl: id }, 'crawl lease lost before it ended; the worker that holds it ends it')
        return
      }
      const unused = row.credits_reserved_mc - row.credits_used_mc
      if (unused > 0) {
        await refund(
          store,
          { accountId: row.account_id, keyId: row.key_id },
          unused,
          { at: row.created_at, requestId: row.request_id, endpoint: '/v1/crawl', wholeCharge: row.credits_used_mc === 0 },
          tx,
        )
      }
      const delivery = await enqueueWebhook(
        store,
        {
          accountId: row.account_id,
          event: 'crawl.completed',
          url: row.webhook_url,
          payload: {
            event: 'crawl.completed',
            id,
            status,
            created_at: new Date(row.created_at).toISOString(),
            completed_at: new Date(now).toISOString(),
            credits_used: toCredits(row.credits_used_mc),
            stats: outcome.stats,
            error,
            poll_url: `${config.baseUrl}/v1/crawl/${id}`,
          },
        },
        tx,
      )
      if (delivery) await updateCrawl(tx, id, { webhook_delivery_id: delivery.id })
      log.info({ crawl: id, status, pages: outcome.pages, stopped: outcome.stats.stopped }, 'crawl ended')
    })
  }

  return {
    name: CRAWL_JOB,
    table: 'crawls',
    concurrency: CRAWLS_PER_WORKER,
    leaseMs: config.jobLeaseMs,
    // Crawls are looked for at least every 5 s; the request that queues one wakes this process at once.
    pollMs: Math.min(config.schedulerPollMs, 5000),
    // An interrupted crawl restarts from the beginning: `requeue` also clears its progress.
    requeueOnStop: false,
    run: execute,
  }
}

/** The request as the runner's plan: canonical URLs on this site, path filters, depth. */
function planFor(request: CrawlRequest) {
  const ignoreQuery = request.ignore_query_parameters
  const follow = pathFilter(request.include_paths, request.exclude_paths)
  return {
    startUrl: request.url,
    limit: request.limit,
    maxDepth: request.max_depth,
    sitemap: request.sitemap,
    query: request.query,
    follow,
    // The query is ignored for de-duplication only (`key`): the page read is the URL as found.
    canonical: (raw: string, base?: string) => {
      const url = canonicalUrl(raw, base)
      return url && onSite(url, request.url, request.include_subdomains) ? url : null
    },
    key: (url: string) => siteKey(url, { ignoreQuery }),
  }
}
