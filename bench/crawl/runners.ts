import { existsSync } from 'node:fs'
import { resolve } from 'node:path'
import { CheerioCrawler, Configuration, LogLevel, log } from '@crawlee/cheerio'
import { startTrawl } from '../../test/support/start-trawl.ts'

/** What one crawler run produced, timed from its first request to its end. */
export interface CrawlRun {
  pages: number
  failed: number
  ms: number
  /** Characters of text or Markdown read, to show both really read each page. */
  chars: number
  note: string
}

export const CONCURRENCY = 5
export const LIMIT = 1000
export const MAX_DEPTH = 10

/**
 * Trawl as a client sees it: the real server with its background workers over a fresh SQLite
 * database, POST /v1/crawl and polling GET /v1/crawl/{id}. No sitemap is offered by the site, so
 * `sitemap: 'skip'` only saves the probe requests for one (Crawlee does not look for sitemaps).
 */
export async function runTrawl(siteUrl: string): Promise<CrawlRun> {
  const trawl = await startTrawl({ TRAWL_ALLOW_PRIVATE_NETWORK: 'true', TRAWL_SCHEDULER_POLL_MS: '200', TRAWL_LOG_LEVEL: 'silent' }, { workers: true })
  try {
    const { key } = await trawl.account({ plan: 'enterprise', rate_limit_rps: 100000, credits: 100000 })
    const call = (method: string, path: string, body?: unknown) =>
      fetch(`${trawl.base}${path}`, {
        method,
        headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      })
    const started = performance.now()
    const res = await call('POST', '/v1/crawl', { url: `${siteUrl}/`, limit: LIMIT, max_depth: MAX_DEPTH, sitemap: 'skip' })
    if (res.status !== 202) throw new Error(`POST /v1/crawl answered ${res.status}: ${await res.text()}`)
    const { id } = (await res.json()) as { id: string }
    // Polled every 50 ms: the measured time overstates the crawl by at most that.
    for (;;) {
      await new Promise((r) => setTimeout(r, 50))
      const task = (await (await call('GET', `/v1/crawl/${id}`)).json()) as {
        status: string
        result: { pages: { markdown?: string }[]; stats: { pages: number; failed: number; stopped: string; robots_disallowed: number } } | null
      }
      if (!['completed', 'failed', 'canceled'].includes(task.status)) continue
      const ms = performance.now() - started
      const stats = task.result?.stats
      const chars = (task.result?.pages ?? []).reduce((n, p) => n + (p.markdown?.length ?? 0), 0)
      return {
        pages: stats?.pages ?? 0,
        failed: stats?.failed ?? 0,
        ms,
        chars,
        note: `status ${task.status}, stopped ${stats?.stopped}, robots_disallowed ${stats?.robots_disallowed}`,
      }
    }
  } finally {
    await trawl.close()
  }
}

/**
 * Crawlee's CheerioCrawler at the same concurrency, robots.txt honoured, links of the same host
 * followed, storage in memory only. Its handler reads the article text, a lighter job than
 * Trawl's main-content extraction to Markdown (reported as is, not evened out).
 *
 * `cap: false` leaves out maxRequestsPerCrawl. With the cap, once the pages known come within a
 * page's link count of it, Crawlee's enqueueLinks splits that page's links into batches and sleeps
 * 1 s between them (RequestProvider.addRequestsBatched, waitBetweenBatchesMillis), which here costs
 * about 110 s of slot time over the crawl. The site has only 980 readable pages, so the uncapped
 * run reads the same pages: it shows Crawlee's speed without that quirk, for a fair ratio.
 */
export async function runCrawlee(siteUrl: string, opts: { cap: boolean }): Promise<CrawlRun> {
  log.setLevel(LogLevel.ERROR)
  const storageDir = resolve('storage')
  const storageExisted = existsSync(storageDir)
  const config = new Configuration({ persistStorage: false, purgeOnStart: false })
  const texts: number[] = []
  let failed = 0
  const crawler = new CheerioCrawler(
    {
      minConcurrency: CONCURRENCY,
      maxConcurrency: CONCURRENCY,
      maxRequestsPerCrawl: opts.cap ? LIMIT : undefined,
      respectRobotsTxtFile: true,
      maxRequestRetries: 0,
      // Depth is not limited here: the site's pages are all within 5 hops, under Trawl's max_depth.
      requestHandler: async ({ $, enqueueLinks }) => {
        texts.push($('article').text().replace(/\s+/g, ' ').trim().length)
        await enqueueLinks({ strategy: 'same-hostname' })
      },
      failedRequestHandler: () => {
        failed++
      },
    },
    config,
  )
  const started = performance.now()
  const stats = await crawler.run([`${siteUrl}/`])
  const ms = performance.now() - started
  await crawler.teardown()
  if (!storageExisted && existsSync(storageDir)) throw new Error(`Crawlee wrote ${storageDir}; it must stay in memory`)
  return {
    pages: texts.length,
    failed,
    ms,
    chars: texts.reduce((a, b) => a + b, 0),
    note: `requestsFinished ${stats.requestsFinished}, requestsFailed ${stats.requestsFailed}`,
  }
}
