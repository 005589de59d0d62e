/**
 * Reader quality and speed: Trawl's reader vs plain Readability + Turndown, same process, same pages.
 *   node bin/run-ts.mjs bench/reader.bench.ts [--worst N] [--only aeb|traf|rtp] [--no-baseline]
 * Both systems produce Markdown (the product path, timed); each is scored on its Markdown with link
 * targets and markup stripped (bench/reader/scoring.ts), by each corpus's own rule.
 */
import { appendFileSync } from 'node:fs'
import { parseDocument } from 'htmlparser2'
import { writeMarkdown } from '../src/reader/markdown.convert.ts'
import { readDocument } from '../src/reader/reader.service.ts'
import { readWithReadability } from './reader/baseline.ts'
import { loadArticleBenchmark, loadReadabilityPages, loadTrafilaturaEval } from './reader/corpora.ts'
import {
  aggregateSegments,
  aggregateShingles,
  type PageCounts,
  pageF1,
  type SegmentCounts,
  segmentCounts,
  shingleCounts,
  stripMarkdown,
} from './reader/scoring.ts'

const args = process.argv.slice(2)
const worstN = Number(args[args.indexOf('--worst') + 1]) || (args.includes('--worst') ? 10 : 0)
const only = args.includes('--only') ? args[args.indexOf('--only') + 1] : undefined
// --dump FILE appends each page's Trawl score as "corpus id score" lines, to diff two versions.
const dump = args.includes('--dump') ? args[args.indexOf('--dump') + 1] : undefined
const dumpRow = (corpus: string, id: string, score: number) => dump && appendFileSync(dump, `${corpus} ${id} ${score}\n`)

interface Timing {
  ms: number
  max: number
  maxId: string
  bytes: number
  pages: number
}
const newTiming = (): Timing => ({ ms: 0, max: 0, maxId: '', bytes: 0, pages: 0 })

type System = 'trawl' | 'readability'
// --no-baseline skips Readability + Turndown, for quick quality checks while tuning (no ratios then).
const SYSTEMS: System[] = args.includes('--no-baseline') ? ['trawl'] : ['trawl', 'readability']

async function run(system: System, html: string, url: string): Promise<string> {
  if (system === 'readability') return readWithReadability(html, url).markdown
  const r = await readDocument({ url, contentType: 'html', body: Buffer.alloc(0), text: html }, { format: 'markdown' })
  return r.markdown ?? ''
}

async function timed(system: System, t: Timing, id: string, html: string, bytes: number, url: string): Promise<string> {
  const start = performance.now()
  const md = await run(system, html, url)
  const ms = performance.now() - start
  t.ms += ms
  t.bytes += bytes
  t.pages++
  if (ms > t.max) {
    t.max = ms
    t.maxId = id
  }
  return stripMarkdown(md)
}

const mb = (n: number) => (n / 1048576).toFixed(1)
const f3 = (n: number) => n.toFixed(3)

function printRow(system: System, q: { f1: number; precision: number; recall: number; accuracy?: number }, t: Timing) {
  const pps = t.pages / (t.ms / 1000)
  const mbps = t.bytes / 1048576 / (t.ms / 1000)
  console.log(
    `  ${system.padEnd(12)} F1 ${f3(q.f1)}  P ${f3(q.precision)}  R ${f3(q.recall)}  acc ${f3(q.accuracy ?? 0)}  | ${pps.toFixed(1).padStart(6)} pages/s ${mbps.toFixed(2).padStart(6)} MB/s  max ${t.max.toFixed(0)} ms (${t.maxId.slice(0, 40)})`,
  )
}

function rss(label: string) {
  console.log(`  RSS ${label}: ${mb(process.memoryUsage().rss)} MB`)
}

async function shingleCorpus(name: string, pages: ReturnType<typeof loadArticleBenchmark>) {
  console.log(`\n${name}: ${pages.length} pages, ${mb(pages.reduce((a, p) => a + p.bytes, 0))} MB`)
  rss('before')
  const counts: Record<System, PageCounts[]> = { trawl: [], readability: [] }
  const timing: Record<System, Timing> = { trawl: newTiming(), readability: newTiming() }
  const perPage: { id: string; trawl: number; readability: number }[] = []
  for (const p of pages) {
    const row = { id: p.id, trawl: 0, readability: 0 }
    for (const s of SYSTEMS) {
      const text = await timed(s, timing[s], p.id, p.html, p.bytes, p.url)
      const c = shingleCounts(text, p.gold)
      counts[s].push(c)
      row[s] = pageF1(c)
    }
    perPage.push(row)
    dumpRow(name.split(' ')[0]!, p.id, row.trawl)
  }
  for (const s of SYSTEMS) printRow(s, aggregateShingles(counts[s]), timing[s])
  rss('after')
  const wins = perPage.filter((r) => r.trawl > r.readability + 0.001).length
  const losses = perPage.filter((r) => r.trawl < r.readability - 0.001).length
  console.log(`  per page: trawl better on ${wins}, worse on ${losses}`)
  if (worstN) {
    for (const r of perPage.sort((a, b) => a.trawl - a.readability - (b.trawl - b.readability)).slice(0, worstN)) {
      console.log(`    ${r.id.slice(0, 50).padEnd(50)} trawl ${f3(r.trawl)} readability ${f3(r.readability)}`)
    }
  }
}

async function segmentCorpus() {
  const pages = loadTrafilaturaEval()
  console.log(`\ntrafilatura-eval: ${pages.length} pages, ${mb(pages.reduce((a, p) => a + p.bytes, 0))} MB`)
  rss('before')
  const counts: Record<System, SegmentCounts[]> = { trawl: [], readability: [] }
  const timing: Record<System, Timing> = { trawl: newTiming(), readability: newTiming() }
  const perPage: { id: string; trawl: number; readability: number }[] = []
  for (const p of pages) {
    const row = { id: p.id, trawl: 0, readability: 0 }
    for (const s of SYSTEMS) {
      const text = await timed(s, timing[s], p.id, p.html, p.bytes, p.url)
      const c = segmentCounts(text, p.with, p.without)
      counts[s].push(c)
      row[s] = c.tp + c.tn - c.fn - c.fp
    }
    perPage.push(row)
    dumpRow('trafilatura-eval', p.id, row.trawl)
  }
  for (const s of SYSTEMS) printRow(s, aggregateSegments(counts[s]), timing[s])
  rss('after')
  if (worstN) {
    for (const r of perPage.sort((a, b) => a.trawl - a.readability - (b.trawl - b.readability)).slice(0, worstN)) {
      console.log(`    ${r.id.slice(0, 70).padEnd(70)} trawl ${r.trawl} readability ${r.readability}`)
    }
  }
}

const htmlToText = (html: string) =>
  stripMarkdown(writeMarkdown(parseDocument(html).children, { baseUrl: 'http://fakehost/', plain: true, links: [], images: [], keepRepeats: true }))

if (!only || only === 'aeb') await shingleCorpus('article-extraction-benchmark', loadArticleBenchmark())
if (!only || only === 'traf') await segmentCorpus()
if (!only || only === 'rtp') await shingleCorpus('readability-test-pages (gold = Readability.js expected.html)', loadReadabilityPages(htmlToText))
