import type { FastifyBaseLogger } from 'fastify'
import { refundUnused } from '../../billing/held-job.ts'
import { toCredits } from '../../billing/money.ts'
import { CACHE_TTL_MS } from '../../cache/response-cache.ts'
import type { Services } from '../../deps.ts'
import { endHeldJob } from '../../jobs/jobs.store.ts'
import { type JobContext, type JobKind, requestQueuedTiming } from '../../jobs/runner.ts'
import { pathFilter } from '../../params/site.params.ts'
import { pagePriceMc, readPage } from '../../reader/page-read.ts'
import { readSitemaps, sitemapStarts } from '../../site/site.discovery.ts'
import { onSite } from '../../site/urls/site.match.ts'
import { canonicalUrl, siteKey } from '../../site/urls/url.canonical.ts'
import type { CrawlRow } from '../../store/schema.ts'
import { enqueueWebhook } from '../../webhooks/webhooks.service.ts'
import { type CrawlEnv, type CrawlOutcome, type CrawlProgress, type ReadFailure, type ReadOutcome, runCrawl } from './crawl.runner.ts'
import { chargeCrawlPage, findCrawlById, readCancelRequested, requeueLeasedCrawl, saveLeasedProgress, updateCrawl } from './crawl.store.ts'
import { CRAWL_JOB, CRAWL_RESULT_TTL_MS, type CrawlRequest } from './crawl.types.ts'

// DELETE signals the worker at once where signals reach it (src/signals: one process, or PostgreSQL
// or Redis); this poll covers the rest (an API process and `trawl worker` sharing SQLite) and a
// lost signal: one indexed read a second per running crawl.
const CANCEL_CHECK_MS = 1_000
const PAGE_TIMEOUT_MS = 30_000
const PROGRESS_MS = 500
const CRAWLS_PER_WORKER = 3
const MAX_CRAWL_DELAY_MS = 10_000

type CrawlServices = Pick<Services, 'config' | 'store' | 'signals' | 'cache' | 'robots'> & Partial<Pick<Services, 'renderer' | 'reader'>>

/** A claimed crawl: its final writes are fenced on the runner's id. */
interface CrawlJob {
  id: string
  workerId: string
  request: CrawlRequest
}

/**
 * Runs queued crawls on the job runner (jobs/runner.ts): a process killed mid-crawl leaves a lease
 * that expires, and the next worker restarts the crawl from the beginning (a crawl a deploy
 * interrupts goes back to queued). Pages already paid for are recorded per crawl, so a restart never
 * charges for a page twice. A graceful stop puts running crawls back in the queue.
 */
export function crawlJobKind(services: CrawlServices, log: FastifyBaseLogger): JobKind {
  const { config } = services
  return {
    name: CRAWL_JOB,
    table: 'crawls',
    concurrency: CRAWLS_PER_WORKER,
    ...requestQueuedTiming(config),
    // An interrupted crawl restarts from the beginning: `requeueCrawl` also clears its progress.
    requeueOnStop: false,
    run: (id, ctx) => runCrawlJob(services, log, id, ctx),
  }
}

/** One claimed crawl: read its pages as they come, then end it, or hand it back when interrupted. */
async function runCrawlJob(services: CrawlServices, log: FastifyBaseLogger, id: string, ctx: JobContext) {
  const { store } = services
  const row = await findCrawlById(store.db, id)
  if (!row || row.lease_owner !== ctx.workerId) return
  const job: CrawlJob = { id, workerId: ctx.workerId, request: JSON.parse(row.request) as CrawlRequest }
  log.info({ crawl: id, url: job.request.url, attempt: row.attempts }, 'crawl started')
  // A crawl reads many pages: the reader threads start now, while robots.txt and the start page
  // are fetched, rather than at the first read (a server's first crawl; later ones find them up).
  void services.reader?.ready()
  // Written while the first fetches go out: the start page does not wait for a store round trip.
  // The time is only shown (GET /v1/crawl/{id}); a failed write does not stop the crawl.
  void updateCrawl(store.db, id, { started_at: row.started_at ?? Date.now() }).catch((err) => log.warn({ err, crawl: id }, 'start time not saved'))

  const cancel = watchCancel(services, id, row.cancel_requested === 1)
  const progress = throttledProgress(services, log, job)
  let outcome: CrawlOutcome
  try {
    outcome = await runCrawl(
      planFor(job.request),
      crawlEnv(services, log, job, progress.save, () => cancel.requested() || ctx.interrupted()),
    )
  } finally {
    cancel.stop()
    progress.stop()
  }
  // Stopping, or the lease was lost: back to the queue (fenced on the lease, so a lost one changes nothing).
  if (ctx.interrupted() && !cancel.requested()) return requeueCrawl(services, log, job)
  await finishCrawl(services, log, job, outcome, cancel.requested())
}

/**
 * DELETE may reach any API process: it sets the row's flag and signals every process. The signal
 * makes the flag be read now (the row, not the message, decides); a slow poll reads it in case
 * the signal was lost.
 */
function watchCancel({ store, signals }: CrawlServices, id: string, requested: boolean) {
  let cancel = requested
  const readFlag = async () => {
    const flag = await readCancelRequested(store.db, id).catch(() => null)
    if (flag === 1) cancel = true
  }
  const unlisten = signals.on('crawl-canceled', (s) => {
    if (s.crawlId === id) void readFlag()
  })
  const poll = setInterval(readFlag, CANCEL_CHECK_MS)
  poll.unref()
  return {
    requested: () => cancel,
    stop: () => {
      clearInterval(poll)
      unlisten()
    },
  }
}

/**
 * At most one progress write each PROGRESS_MS; the latest progress of a burst is written when its
 * turn comes, so a crawl that goes quiet (a slow page) still shows what it has done.
 */
function throttledProgress({ store }: CrawlServices, log: FastifyBaseLogger, job: CrawlJob) {
  let lastWrite = 0
  let pending: CrawlProgress | null = null
  let timer: NodeJS.Timeout | null = null
  const write = (p: CrawlProgress) => {
    lastWrite = Date.now()
    void saveLeasedProgress(store.db, job.id, job.workerId, JSON.stringify(p)).catch((err) => log.debug({ err, crawl: job.id }, 'progress not saved'))
  }
  return {
    save: (p: CrawlProgress) => {
      const wait = PROGRESS_MS - (Date.now() - lastWrite)
      if (wait <= 0) return write(p)
      pending = p
      timer ??= setTimeout(() => {
        timer = null
        if (pending) write(pending)
        pending = null
      }, wait)
    },
    stop: () => {
      if (timer) clearTimeout(timer)
    },
  }
}

/** What the crawl loop (crawl.runner.ts) works with: this site's robots.txt and sitemaps, page reads, the store. */
function crawlEnv(services: CrawlServices, log: FastifyBaseLogger, job: CrawlJob, onProgress: (p: CrawlProgress) => void, canceled: () => boolean): CrawlEnv {
  const { request } = job
  return {
    robots: async () => {
      const robots = await services.robots.get(request.url)
      // A site asking for more than 10 s between fetches gets 10 s: a crawl must end in 30 minutes.
      const crawlDelayMs = robots.crawlDelayMs == null ? null : Math.min(robots.crawlDelayMs, MAX_CRAWL_DELAY_MS)
      return { ...robots, crawlDelayMs, blocked: robots.status === 'error' || robots.status === 'unreachable' }
    },
    sitemapUrls: async (named, maxUrls) => {
      const origin = new URL(request.url).origin
      const found = await readSitemaps(services.config, origin, sitemapStarts(named, origin), maxUrls, Date.now() + 60_000)
      return found.entries.map((e) => e.url)
    },
    read: (url, onFetched) => readCrawlPage(services, log, url, request, onFetched),
    // Each page goes to the store as it is read (crawl_pages), not into memory until the end.
    onPage: async (key, cached, page, place) => {
      await chargeCrawlPage(services.store, job.id, key, pagePriceMc(cached), { json: JSON.stringify(page), seq: place })
    },
    onProgress,
    canceled,
  }
}

async function readCrawlPage(
  services: CrawlServices,
  log: FastifyBaseLogger,
  url: string,
  request: CrawlRequest,
  onFetched: () => void,
): Promise<ReadOutcome | ReadFailure> {
  try {
    const read = await readPage(
      { cache: services.cache, config: services.config, log, cacheTtlMs: CACHE_TTL_MS, renderer: services.renderer, reader: services.reader },
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
async function requeueCrawl({ store }: CrawlServices, log: FastifyBaseLogger, job: CrawlJob) {
  await requeueLeasedCrawl(store.db, job.id, job.workerId, Date.now())
  log.info({ crawl: job.id }, 'crawl interrupted; queued to restart')
}

/** How a crawl that ran to its end (or was canceled) ended: its status and error. */
function endStateOf(outcome: CrawlOutcome, canceled: boolean): { status: CrawlRow['status']; error: { code: string; message: string } | null } {
  if (canceled) return { status: 'canceled', error: { code: 'canceled', message: `canceled after ${outcome.pages} pages` } }
  if (outcome.pages === 0) return { status: 'failed', error: { code: 'no_pages', message: 'nothing readable was found; the reservation was refunded' } }
  return { status: 'completed', error: null }
}

/**
 * Final state, refund of the unread reservation and the webhook, in one transaction that starts
 * with the state, written only while this worker holds the lease (endHeldJob): a worker
 * that lost it at the last moment writes nothing, and the refund is computed from the row as
 * locked, so a takeover can never make two workers end the crawl and refund it.
 */
async function finishCrawl(services: CrawlServices, log: FastifyBaseLogger, job: CrawlJob, outcome: CrawlOutcome, canceled: boolean) {
  const { store, config } = services
  const { id, request } = job
  const now = Date.now()
  const { status, error } = endStateOf(outcome, canceled)
  // The pages are in crawl_pages already; crawl.view.ts puts them in the result when it is read.
  const result = { url: request.url, failed: outcome.failed, stats: outcome.stats }
  await store.transaction(async (tx) => {
    const row = await endHeldJob(tx, 'crawls', id, job.workerId, {
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
    await refundUnused(store, row, '/v1/crawl', tx)
    const delivery = await enqueueWebhook(
      services,
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
