/**
 * Crawlee's CheerioCrawler over the bench site, in a process of its own so its peak RSS is its
 * own: `node bench/crawl/crawlee.child.mjs <site url> cap|nocap <concurrency> <limit>`. Prints one
 * JSON line (a CrawlRun, runners.ts) on stdout. Plain JavaScript, so Crawlee runs without the
 * TypeScript loader (whose thread would count in its memory).
 *
 * Same concurrency as Trawl, robots.txt honoured, links of the same host followed, storage in
 * memory only. Its handler reads the article text, a lighter job than Trawl's main-content
 * extraction to Markdown (reported as is, not evened out).
 *
 * `nocap` leaves out maxRequestsPerCrawl. With the cap, once the pages known come within a page's
 * link count of it, Crawlee's enqueueLinks splits that page's links into batches and sleeps 1 s
 * between them (RequestProvider.addRequestsBatched, waitBetweenBatchesMillis). The site has fewer
 * readable pages than the limit, so the uncapped run reads the same pages: it shows Crawlee's
 * speed without that quirk, for a fair ratio.
 */
import { existsSync } from 'node:fs'
import { resolve } from 'node:path'
import { CheerioCrawler, Configuration, LogLevel, log } from '@crawlee/cheerio'

const [siteUrl, mode, concurrency, limit] = process.argv.slice(2)
if (!siteUrl || !concurrency || !limit) throw new Error('usage: crawlee.child.mjs <site url> cap|nocap <concurrency> <limit>')
const CONCURRENCY = Number(concurrency)
const LIMIT = Number(limit)
log.setLevel(LogLevel.ERROR)
const storageDir = resolve('storage')
const storageExisted = existsSync(storageDir)
const config = new Configuration({ persistStorage: false, purgeOnStart: false })
const texts = []
let failed = 0
const crawler = new CheerioCrawler(
  {
    minConcurrency: CONCURRENCY,
    maxConcurrency: CONCURRENCY,
    maxRequestsPerCrawl: mode === 'cap' ? LIMIT : undefined,
    respectRobotsTxtFile: true,
    maxRequestRetries: 0,
    // Depth is not limited here: the site's pages are all within a few hops, under Trawl's max_depth.
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
const cpuStart = process.cpuUsage()
const started = performance.now()
const stats = await crawler.run([`${siteUrl}/`])
const ms = performance.now() - started
const cpu = process.cpuUsage(cpuStart)
await crawler.teardown()
if (!storageExisted && existsSync(storageDir)) throw new Error(`Crawlee wrote ${storageDir}; it must stay in memory`)
const run = {
  pages: texts.length,
  failed,
  ms,
  // ru_maxrss: the process's peak resident set, KB on Linux.
  peakRssMb: process.resourceUsage().maxRSS / 1024,
  cpuMs: (cpu.user + cpu.system) / 1000,
  chars: texts.reduce((a, b) => a + b, 0),
  note: `requestsFinished ${stats.requestsFinished}, requestsFailed ${stats.requestsFailed}`,
}
console.log(JSON.stringify(run))
process.exit(0)
