/**
 * Rendering throughput and memory: 1,000 pages of a local single-page app (test/support/spa-site.ts:
 * a shell plus a bundle that draws the article, its navigation and a lazily fetched section), in
 * the same run:
 * - static: read statically (what render=never returns, an empty shell);
 * - fresh: drawn as the renderer used to, the baseline: a fresh context for every page and a
 *   250 ms quiet window (`siteContexts: 0, quietMs: 250`);
 * - rendered: drawn by the renderer as it is (src/net/browser: one Chromium behind the guard proxy,
 *   the site's kept context, read at 100 ms of network idle, recycled every N pages).
 * Each page is fetched by safeFetch and read by the same reader every time, as readPage does.
 *   node bin/run-ts.mjs bench/render.bench.ts [--pages 1000] [--contexts 2] [--recycle 200] [--max-rss-mb 1024]
 * Memory is the node process plus every process under it (the browsers), read from /proc: RSS
 * (shared pages counted once per process) and PSS (shared pages divided among their users).
 */

import { allowAll } from '../src/net/address-policy.ts'
import { treeMemory } from '../src/net/browser/process-memory.ts'
import { Renderer } from '../src/net/browser/renderer.ts'
import { safeFetch } from '../src/net/safe-fetch.ts'
import { readDocument } from '../src/reader/reader.service.ts'
import { CHROMIUM_PATH } from '../test/support/browser.ts'
import { startSpaSite } from '../test/support/spa-site.ts'

const args = process.argv.slice(2)
const arg = (name: string, fallback: number) => (args.includes(name) ? Number(args[args.indexOf(name) + 1]) : fallback)
const PAGES = arg('--pages', 1000)
const CONTEXTS = arg('--contexts', 2)
const RECYCLE = arg('--recycle', 200)
const MAX_RSS_MB = arg('--max-rss-mb', 1024)

interface Phase {
  name: string
  ms: number
  times: number[]
  withContent: number
  failed: number
  peakRss: number
  peakPss: number
  /** Peak RSS over the first and the last tenth of the pages: flat when recycling works. */
  firstTenthRss: number
  lastTenthRss: number
}

const mb = (b: number) => b / 1048576
const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? 0
}

async function phase(name: string, urls: string[], readOne: (url: string) => Promise<string>): Promise<Phase> {
  const times: number[] = []
  let withContent = 0
  let failed = 0
  let done = 0
  let peakRss = 0
  let peakPss = 0
  let firstTenthRss = 0
  let lastTenthRss = 0
  const sample = () => {
    const m = treeMemory(process.pid)
    peakRss = Math.max(peakRss, m.rssBytes)
    peakPss = Math.max(peakPss, m.pssBytes)
    if (done < urls.length / 10) firstTenthRss = Math.max(firstTenthRss, m.rssBytes)
    if (done >= urls.length * 0.9) lastTenthRss = Math.max(lastTenthRss, m.rssBytes)
  }
  const sampler = setInterval(sample, 250)
  const started = performance.now()
  let next = 0
  const worker = async () => {
    while (next < urls.length) {
      const url = urls[next++]!
      const t = performance.now()
      try {
        const content = await readOne(url)
        if (content.includes('the flood tide reaches sandbank')) withContent++
      } catch (e) {
        failed++
        if (failed <= 3) console.log(`  ${name}: ${url} failed: ${(e as Error).message}`)
      }
      times.push(performance.now() - t)
      done++
      if (done % 100 === 0) {
        const m = treeMemory(process.pid)
        const rate = done / ((performance.now() - started) / 1000)
        console.log(
          `  ${name}: ${done}/${urls.length}, ${rate.toFixed(2)} pages/s, p50 ${pct(times, 50).toFixed(0)} ms, RSS now ${mb(m.rssBytes).toFixed(0)} MB (PSS ${mb(m.pssBytes).toFixed(0)}, ${m.processes} processes)`,
        )
      }
    }
  }
  await Promise.all(Array.from({ length: CONTEXTS }, worker))
  const ms = performance.now() - started
  clearInterval(sampler)
  sample()
  return { name, ms, times, withContent, failed, peakRss, peakPss, firstTenthRss, lastTenthRss }
}

async function main() {
  const site = await startSpaSite()
  const urls = Array.from({ length: PAGES }, (_, i) => `${site.url}/p/${i + 1}`)
  const fetchPage = (url: string) => safeFetch(url, { allowPrivateNetwork: true, timeoutMs: 30_000 })
  const options = { executablePath: CHROMIUM_PATH, contexts: CONTEXTS, pageTimeoutMs: 30_000, recyclePages: RECYCLE, maxRssMb: MAX_RSS_MB, policy: allowAll }
  const baseline = new Renderer({ ...options, siteContexts: 0, quietMs: 250, loadGraceMs: null })
  const renderer = new Renderer(options)
  const drawnBy = (r: Renderer) => async (url: string) => {
    const f = await fetchPage(url)
    const drawn = await r.render(f.url, { timeoutMs: 30_000 })
    return (await readDocument({ url: drawn.url, contentType: 'html', body: Buffer.from(drawn.html), text: drawn.html }, { format: 'markdown' })).markdown ?? ''
  }
  console.log(
    `render bench: ${PAGES} pages of a local SPA, ${CONTEXTS} at a time; browser recycled every ${RECYCLE} pages or above ${MAX_RSS_MB} MB PSS; node ${process.version}`,
  )
  const phases: Phase[] = []
  try {
    phases.push(
      await phase('static', urls, async (url) => {
        const f = await fetchPage(url)
        return (await readDocument({ url: f.url, contentType: f.contentType, body: f.body, text: f.text }, { format: 'markdown' })).markdown ?? ''
      }),
    )
    phases.push(await phase('fresh', urls, drawnBy(baseline)))
    await baseline.close()
    phases.push(await phase('rendered', urls, drawnBy(renderer)))
  } finally {
    const old = baseline.status()
    const status = renderer.status()
    await baseline.close()
    await renderer.close()
    await site.close()
    console.log(`\n  fresh: browsers launched: ${old.browsers_launched}, pages rendered: ${old.pages_rendered}`)
    console.log(
      `  rendered: browsers launched: ${status.browsers_launched}, pages rendered: ${status.pages_rendered}, site contexts opened ${status.site_contexts_opened}, reused ${status.site_contexts_reused}`,
    )
  }
  const [base, fresh, drawn] = phases as [Phase, Phase, Phase]
  console.log('mode       pages  with content  failed  pages/s  p50 ms  p95 ms  peak RSS MB  peak PSS MB  RSS first 10% / last 10%')
  for (const p of phases) {
    console.log(
      `${p.name.padEnd(9)} ${String(p.times.length).padStart(6)} ${String(p.withContent).padStart(13)} ${String(p.failed).padStart(7)} ${(p.times.length / (p.ms / 1000)).toFixed(1).padStart(8)} ${pct(p.times, 50).toFixed(0).padStart(7)} ${pct(p.times, 95).toFixed(0).padStart(7)} ${mb(p.peakRss).toFixed(0).padStart(12)} ${mb(p.peakPss).toFixed(0).padStart(12)}  ${mb(p.firstTenthRss).toFixed(0)} / ${mb(p.lastTenthRss).toFixed(0)}`,
    )
  }
  const rate = (p: Phase) => p.times.length / (p.ms / 1000)
  console.log(
    `rendered vs fresh (the baseline): ${(rate(drawn) / rate(fresh)).toFixed(2)}x pages/s (${rate(drawn).toFixed(2)} vs ${rate(fresh).toFixed(2)}), p50 ${pct(drawn.times, 50).toFixed(0)} vs ${pct(fresh.times, 50).toFixed(0)} ms (${(pct(drawn.times, 50) / pct(fresh.times, 50)).toFixed(2)}x), p95 ${pct(drawn.times, 95).toFixed(0)} vs ${pct(fresh.times, 95).toFixed(0)} ms; content found on ${drawn.withContent} vs ${fresh.withContent} pages`,
  )
  console.log(
    `rendered vs static: ${(rate(drawn) / rate(base)).toFixed(3)}x pages/s, ${(pct(drawn.times, 50) / pct(base.times, 50)).toFixed(1)}x p50, ${(pct(drawn.times, 95) / pct(base.times, 95)).toFixed(1)}x p95, ${(drawn.peakRss / base.peakRss).toFixed(1)}x peak RSS; content found on ${drawn.withContent} rendered pages vs ${base.withContent} static`,
  )
  console.log(`memory flat: last tenth's peak RSS is ${(drawn.lastTenthRss / drawn.firstTenthRss).toFixed(2)}x the first tenth's`)
}

await main()
