/**
 * Crawl throughput: Trawl's /v1/crawl vs Crawlee's CheerioCrawler over the same generated
 * 1,000-page loopback site (bench/crawl/site.ts), same machine, same process, one after the other.
 *   node bin/run-ts.mjs bench/crawl.bench.ts [--only trawl|crawlee] [--crawlee-first]
 * Both: concurrency 5, limit 1,000, robots.txt honoured (it disallows 20 pages: 980 are readable).
 * RSS is the whole process (site server included), sampled every 100 ms during each run.
 */
import { CONCURRENCY, type CrawlRun, runCrawlee, runTrawl } from './crawl/runners.ts'
import { PUBLIC_PAGES, startBenchSite, TOTAL_PAGES } from './crawl/site.ts'

const args = process.argv.slice(2)
const only = args.includes('--only') ? args[args.indexOf('--only') + 1] : undefined
const order = args.includes('--crawlee-first') ? ['crawlee', 'crawlee-nocap', 'trawl'] : ['trawl', 'crawlee', 'crawlee-nocap']
const runners: Record<string, (url: string) => Promise<CrawlRun>> = {
  trawl: runTrawl,
  crawlee: (url) => runCrawlee(url, { cap: true }),
  // Without maxRequestsPerCrawl: see runCrawlee for the 1 s batch sleeps the cap triggers.
  'crawlee-nocap': (url) => runCrawlee(url, { cap: false }),
}
const TARGET = 1.5

interface Row extends CrawlRun {
  name: string
  rssStartMb: number
  rssPeakMb: number
  served: { pages: number; privateHits: number; total: number }
}

const mb = (n: number) => n / 1048576

/** Runs `fn` while sampling the process's RSS every 100 ms; returns the peak alongside. */
async function sampled<T>(fn: () => Promise<T>): Promise<{ value: T; startMb: number; peakMb: number }> {
  // A collection first, when exposed (--expose-gc), so the second run does not inherit the first's garbage.
  ;(globalThis as { gc?: () => void }).gc?.()
  const startMb = mb(process.memoryUsage().rss)
  let peak = process.memoryUsage().rss
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss)
  }, 100)
  try {
    const value = await fn()
    peak = Math.max(peak, process.memoryUsage().rss)
    return { value, startMb, peakMb: mb(peak) }
  } finally {
    clearInterval(timer)
  }
}

async function main() {
  const site = await startBenchSite()
  console.log(
    `site: ${TOTAL_PAGES} pages (${PUBLIC_PAGES} allowed by robots.txt), mean ${(site.averageBytes / 1024).toFixed(1)} KB/page, no sitemap; concurrency ${CONCURRENCY}, node ${process.version}`,
  )
  const rows: Row[] = []
  try {
    for (const name of order) {
      if (only && !name.startsWith(only)) continue
      site.reset()
      const run = runners[name]!
      const { value, startMb, peakMb } = await sampled(() => run(site.url))
      rows.push({ name, ...value, rssStartMb: startMb, rssPeakMb: peakMb, served: site.served() })
      console.log(`  ${name}: ${value.note}; site served ${site.served().total} requests`)
    }
  } finally {
    await site.close()
  }

  console.log('')
  console.log('system          pages  failed  seconds  pages/s  RSS start MB  RSS peak MB  chars read  private hits')
  for (const r of rows) {
    const pps = r.pages / (r.ms / 1000)
    console.log(
      `${r.name.padEnd(14)} ${String(r.pages).padStart(6)} ${String(r.failed).padStart(7)} ${(r.ms / 1000).toFixed(2).padStart(8)} ${pps.toFixed(1).padStart(8)} ${r.rssStartMb.toFixed(0).padStart(13)} ${r.rssPeakMb.toFixed(0).padStart(12)} ${String(r.chars).padStart(11)} ${String(r.served.privateHits).padStart(13)}`,
    )
  }
  const trawl = rows.find((r) => r.name === 'trawl')
  const crawlee = rows.find((r) => r.name === 'crawlee')
  if (trawl && crawlee) {
    const ratio = trawl.pages / trawl.ms / (crawlee.pages / crawlee.ms)
    console.log(`\nTrawl/Crawlee pages/s (limit 1,000 as briefed): ${ratio.toFixed(2)}x`)
  }
  const fair = rows.find((r) => r.name === 'crawlee-nocap')
  if (trawl && fair) {
    const ratio = trawl.pages / trawl.ms / (fair.pages / fair.ms)
    console.log(`Trawl/Crawlee pages/s (Crawlee uncapped, its best): ${ratio.toFixed(2)}x (target >= ${TARGET}x: ${ratio >= TARGET ? 'met' : 'NOT met'})`)
  }
}

await main()
