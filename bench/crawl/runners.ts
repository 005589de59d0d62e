import { spawn } from 'node:child_process'
import { resolve } from 'node:path'
import { cpuMsOf, peakRssMb, startTrawlProcess, type TrawlProcess } from '../support/trawl-process.ts'

/**
 * Each crawler runs in a process of its own, so that its peak RSS is its own: Trawl as `npm start`
 * runs it (bench/support/trawl-process.ts), Crawlee's CheerioCrawler in `crawlee.child.mjs`. The site is served by the bench process.
 */

/** What one crawler run produced. */
export interface CrawlRun {
  pages: number
  failed: number
  /** Trawl: from POST /v1/crawl to the end of the poll that sees it ended (its body in, not yet parsed). Crawlee: crawler.run(). */
  ms: number
  /** Peak resident set of the crawler's process (VmHWM), MB. */
  peakRssMb: number
  /** CPU time (user + system, every thread) the crawler's process spent over `ms`: less swayed by a busy machine than the clock. */
  cpuMs: number
  /** Characters of text or Markdown read, to show both really read each page. */
  chars: number
  note: string
}

export const CONCURRENCY = 5
export const LIMIT = 1000
export const MAX_DEPTH = 10
const ROOT = resolve(import.meta.dirname, '../..')

/**
 * Trawl as a client sees it: POST /v1/crawl and polling GET /v1/crawl/{id} every 50 ms (so the
 * measured time overstates the crawl by at most that), until the answer that has the result is in. No sitemap is offered by the site, so
 * `sitemap: 'skip'` only saves the probe requests for one (Crawlee does not look for sitemaps).
 */
export async function runTrawl(siteUrl: string, env: Record<string, string> = {}, opts: { warmUpPages?: number } = {}): Promise<CrawlRun> {
  const trawl = await startTrawlProcess(env)
  try {
    // A server that has crawled before: its reader threads up and its code compiled. A fresh
    // process starts them during its first crawl, on the same cores as the site it reads.
    if (opts.warmUpPages) await crawlToEnd(trawl, { url: `${siteUrl}/`, limit: opts.warmUpPages, max_depth: MAX_DEPTH, sitemap: 'skip' })
    const cpuStart = cpuMsOf(trawl.pid)
    const started = performance.now()
    const res = await trawl.call('POST', '/v1/crawl', { url: `${siteUrl}/`, limit: LIMIT, max_depth: MAX_DEPTH, sitemap: 'skip' })
    if (res.status !== 202) throw new Error(`POST /v1/crawl answered ${res.status}: ${await res.text()}`)
    const { id } = (await res.json()) as { id: string }
    for (;;) {
      await new Promise((r) => setTimeout(r, 50))
      const text = await (await trawl.call('GET', `/v1/crawl/${id}`)).text()
      // The crawl is over for the client once its answer is in: JSON.parse of the 11 MB result (60-70 ms
      // here) is the client's own work, as reading the pages is for the bare fetch() loops' caller.
      const answered = performance.now()
      const cpuMs = cpuMsOf(trawl.pid) - cpuStart
      const task = JSON.parse(text) as {
        status: string
        result: { pages: { markdown?: string }[]; stats: { pages: number; failed: number; stopped: string; robots_disallowed: number } } | null
      }
      if (!['completed', 'failed', 'canceled'].includes(task.status)) continue
      const ms = answered - started
      const parseMs = performance.now() - answered
      const stats = task.result?.stats
      const chars = (task.result?.pages ?? []).reduce((n, p) => n + (p.markdown?.length ?? 0), 0)
      return {
        pages: stats?.pages ?? 0,
        failed: stats?.failed ?? 0,
        ms,
        peakRssMb: peakRssMb(trawl.pid),
        cpuMs,
        chars,
        note: `status ${task.status}, stopped ${stats?.stopped}, robots_disallowed ${stats?.robots_disallowed}; client parsed the result in ${parseMs.toFixed(0)} ms (not timed)`,
      }
    }
  } finally {
    await trawl.close()
  }
}

async function crawlToEnd(trawl: TrawlProcess, body: object) {
  const res = await trawl.call('POST', '/v1/crawl', body)
  if (res.status !== 202) throw new Error(`POST /v1/crawl answered ${res.status}: ${await res.text()}`)
  const { id } = (await res.json()) as { id: string }
  for (;;) {
    await new Promise((r) => setTimeout(r, 50))
    const { status } = (await (await trawl.call('GET', `/v1/crawl/${id}`)).json()) as { status: string }
    if (['completed', 'failed', 'canceled'].includes(status)) return
  }
}

/** Pages/s of `concurrency` bare fetch() loops over `paths`: the machine's own ceiling, for reference. */
export async function fetchCeiling(siteUrl: string, paths: string[], concurrency: number): Promise<number> {
  let next = 0
  const started = performance.now()
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < paths.length) await (await fetch(`${siteUrl}${paths[next++]}`)).arrayBuffer()
    }),
  )
  return paths.length / ((performance.now() - started) / 1000)
}

/** Crawlee's CheerioCrawler in its own process (crawlee.child.mjs); `cap` sets maxRequestsPerCrawl. */
export async function runCrawlee(siteUrl: string, opts: { cap: boolean }): Promise<CrawlRun> {
  const args = [siteUrl, opts.cap ? 'cap' : 'nocap', String(CONCURRENCY), String(LIMIT)]
  const child = spawn(process.execPath, ['bench/crawl/crawlee.child.mjs', ...args], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  let out = ''
  child.stdout!.on('data', (d) => (out += d))
  const code = await new Promise<number | null>((r) => child.once('exit', r))
  const line = out.trim().split('\n').pop() ?? ''
  if (code !== 0 || !line.startsWith('{')) throw new Error(`crawlee child failed (${code}): ${out.slice(-2000)}`)
  return JSON.parse(line) as CrawlRun
}
