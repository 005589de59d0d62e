/**
 * POST /v1/context, quality and latency, on the article-extraction benchmark's dev pages
 * (fixtures/corpora/article-extraction-benchmark: 91 news and blog articles with their article
 * text as ground truth) served from a loopback site.
 *
 * Each page is asked for by its title (as the reader extracts it). The search is a fake SearXNG
 * instance (engine=searxng) answering five results: the page asked for at position 1 + (i mod 5),
 * the next four pages of the corpus around it. Trawl runs as `npm start` runs it, in a process of
 * its own; nothing leaves the machine.
 *
 * Quality (the first pass, pages read live), against baselines from the same pages in the same run:
 *   - precision: share of the passages' words found in the ground-truth text of their page (as
 *     multisets, pooled per page; words are \w+ runs of the visible text: link targets and
 *     Markdown markers stripped, bench/reader/scoring.ts), and the same for 4-word shingles
 *     (the benchmark's own unit); baseline: the whole Markdown of the five pages read.
 *   - on target: share of the passages' tokens that come from the page asked for; baseline: the
 *     five pages' Markdown in result order cut to the same token budget (include_content's way).
 *   - coverage: share of the asked page's ground-truth words that the passages hold; same baseline.
 * Latency (later passes, search and pages cached with max_age): median and p95 of context calls,
 * against a plain cached /v1/search and a cached /v1/extract of the same five pages, interleaved.
 *
 * Run: npm run bench:context   (BENCH_ROUNDS: latency passes, default 3)
 */

import type { IncomingMessage, ServerResponse } from 'node:http'
import { searxngAnswer } from '../src/engines/searxng/searxng.fixture.ts'
import { readDocument } from '../src/reader/reader.service.ts'
import { countTokensNow as countTokens, trimToTokensNow as trimToTokens } from '../src/text/token-count.ts'
import { fakeUpstream } from '../test/support/fake-upstream.ts'
import { loadArticleBenchmark } from './reader/corpora.ts'
import { stripMarkdown } from './reader/scoring.ts'
import { startTrawlProcess } from './support/trawl-process.ts'

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3)
const NUM = 5
const BUDGET = 4000
const SEARX_HOST = 'searx.bench:8888'

interface Passage {
  text: string
  url: string
  position: number
  tokens: number
}
interface ContextAnswer {
  passages: Passage[]
  sources: { url: string; read: boolean; error?: { code: string } }[]
  meta: { tokens_used: number; truncated: boolean; credits_used: number; pages_read: number }
}

// ---- the corpus, its titles and the site serving it ------------------------------------------

const corpus = loadArticleBenchmark()
const pages: { id: string; html: string; gold: string; title: string }[] = []
for (const page of corpus) {
  const read = await readDocument({ url: page.url, contentType: 'html', body: Buffer.alloc(0), text: page.html }, { format: 'markdown' })
  if (read.title?.trim()) pages.push({ id: page.id, html: page.html, gold: page.gold, title: read.title.trim() })
}
const byId = new Map(pages.map((p) => [p.id, p]))

const site = await fakeUpstream((req: IncomingMessage, res: ServerResponse) => {
  const page = byId.get((req.url ?? '').replace(/^\/a\//, ''))
  if (!page) return res.writeHead(404).end()
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page.html)
})
const urlOf = (id: string) => `${site.url}/a/${id}`
const idOf = (url: string) => url.slice(`${site.url}/a/`.length)

/** The five results for the i-th page's title: it at position 1 + (i mod 5), its corpus neighbours around it. */
function resultsFor(i: number): string[] {
  const others = [1, 2, 3, 4].map((k) => pages[(i + k) % pages.length]!.id)
  const ids = [...others]
  ids.splice(i % NUM, 0, pages[i]!.id)
  return ids
}
const queryIndex = new Map(pages.map((p, i) => [p.title, i]))

const searx = await fakeUpstream((req, res) => {
  const url = new URL(req.url ?? '/', 'http://x')
  const i = queryIndex.get(url.searchParams.get('q') ?? '')
  const results =
    i === undefined
      ? []
      : resultsFor(i).map((id) => ({ url: urlOf(id), title: byId.get(id)!.title, content: '', engine: 'google', engines: ['google'], category: 'general' }))
  res
    .writeHead(200, { 'content-type': 'application/json' })
    .end(JSON.stringify(searxngAnswer({ query: url.searchParams.get('q'), results, answers: [], infoboxes: [] })))
})

const trawl = await startTrawlProcess({
  TRAWL_UPSTREAM_HOSTS: `*=${searx.url}`,
  TRAWL_SEARXNG_URL: `http://${SEARX_HOST}`,
  TRAWL_BROWSER: 'off',
})

const post = async <T>(path: string, body: unknown): Promise<{ body: T; ms: number }> => {
  const started = performance.now()
  const res = await trawl.call('POST', path, body)
  const text = await res.text()
  const ms = performance.now() - started
  if (res.status !== 200) throw new Error(`${path} answered ${res.status}: ${text.slice(0, 300)}`)
  return { body: JSON.parse(text) as T, ms }
}

// ---- scoring ----------------------------------------------------------------------------------

const words = (text: string) => stripMarkdown(text).match(/[\p{L}\p{N}\p{M}_]+/gu) ?? []
const shingles = (ws: string[]) => (ws.length < 4 ? [ws.join(' ')] : ws.slice(3).map((_, k) => ws.slice(k, k + 4).join(' ')))
const bag = (items: string[]) => {
  const m = new Map<string, number>()
  for (const x of items) m.set(x, (m.get(x) ?? 0) + 1)
  return m
}
/** How many of `items` the multiset `truth` holds (each truth item matched once). */
function found(items: string[], truth: Map<string, number>): number {
  const left = new Map(truth)
  let n = 0
  for (const x of items) {
    const k = left.get(x) ?? 0
    if (k > 0) {
      n++
      left.set(x, k - 1)
    }
  }
  return n
}

interface Tally {
  words: number
  wordsFound: number
  shingles: number
  shinglesFound: number
  tokens: number
  onTarget: number
  goldWords: number
  goldCovered: number
}
const tally = (): Tally => ({ words: 0, wordsFound: 0, shingles: 0, shinglesFound: 0, tokens: 0, onTarget: 0, goldWords: 0, goldCovered: 0 })

const goldWords = new Map(pages.map((p) => [p.id, bag(p.gold.match(/[\p{L}\p{N}\p{M}_]+/gu) ?? [])]))
const goldShingles = new Map(pages.map((p) => [p.id, bag(shingles(p.gold.match(/[\p{L}\p{N}\p{M}_]+/gu) ?? []))]))

/** Adds a selection of text per page (id → texts) to a tally, for the query whose page is `target`. */
function score(t: Tally, perPage: Map<string, { text: string; tokens: number }[]>, target: string) {
  for (const [id, parts] of perPage) {
    const ws = parts.flatMap((p) => words(p.text))
    const sh = parts.flatMap((p) => shingles(words(p.text)))
    t.words += ws.length
    t.wordsFound += found(ws, goldWords.get(id)!)
    t.shingles += sh.length
    t.shinglesFound += found(sh, goldShingles.get(id)!)
    const tokens = parts.reduce((n, p) => n + p.tokens, 0)
    t.tokens += tokens
    if (id === target) t.onTarget += tokens
  }
  const gold = goldWords.get(target)!
  const total = [...gold.values()].reduce((a, b) => a + b, 0)
  t.goldWords += total
  const targetWords = (perPage.get(target) ?? []).flatMap((p) => words(p.text))
  // Coverage: the asked page's ground-truth words the selection holds.
  t.goldCovered += found(targetWords, gold)
}

const pct = (a: number, b: number) => (b === 0 ? 'n/a' : `${((100 * a) / b).toFixed(1)}%`)
const quantile = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? 0
}

// ---- quality: first pass, pages read live --------------------------------------------------------

const passagesTally = tally()
const wholeTally = tally()
const naiveTally = tally()
let truncated = 0
let passageCount = 0
let failedReads = 0
let passageTokensUsed = 0
const markdownOf = new Map<string, string>()

for (const [i, page] of pages.entries()) {
  const { body } = await post<ContextAnswer>('/v1/context', { q: page.title, engine: 'searxng', num: NUM, max_tokens: BUDGET })
  failedReads += body.sources.filter((s) => !s.read).length
  truncated += body.meta.truncated ? 1 : 0
  passageCount += body.passages.length
  passageTokensUsed += body.meta.tokens_used
  const perPage = new Map<string, { text: string; tokens: number }[]>()
  for (const p of body.passages) {
    const id = idOf(p.url)
    perPage.set(id, [...(perPage.get(id) ?? []), { text: p.text, tokens: p.tokens }])
  }
  score(passagesTally, perPage, page.id)

  // Baselines from the same five pages, as /v1/extract gives them (from the cache: read just now).
  const ids = resultsFor(i)
  const missing = ids.filter((id) => !markdownOf.has(id))
  if (missing.length > 0) {
    const { body: read } = await post<{ results: { url: string; markdown: string }[] }>('/v1/extract', { urls: missing.map(urlOf), max_age: 86_400 })
    for (const r of read.results) markdownOf.set(idOf(r.url), r.markdown)
  }
  const whole = new Map(ids.filter((id) => markdownOf.has(id)).map((id) => [id, [{ text: markdownOf.get(id)!, tokens: countTokens(markdownOf.get(id)!) }]]))
  score(wholeTally, whole, page.id)
  // include_content's way: the pages in result order, whole, until the budget runs out (the last one cut).
  const naive = new Map<string, { text: string; tokens: number }[]>()
  let left = BUDGET
  for (const id of ids) {
    const md = markdownOf.get(id)
    if (!md || left <= 0) continue
    const cut = trimToTokens(md, left).text
    const tokens = countTokens(cut)
    naive.set(id, [{ text: cut, tokens }])
    left -= tokens
  }
  score(naiveTally, naive, page.id)
}

// ---- latency: search and pages cached --------------------------------------------------------------

const contextMs: number[] = []
const searchMs: number[] = []
const extractMs: number[] = []
for (let round = 0; round < ROUNDS; round++) {
  for (const [i, page] of pages.entries()) {
    const search = await post('/v1/search', { q: page.title, engine: 'searxng', max_age: 86_400 })
    const context = await post<ContextAnswer>('/v1/context', { q: page.title, engine: 'searxng', num: NUM, max_tokens: BUDGET, max_age: 86_400 })
    const extract = await post('/v1/extract', { urls: resultsFor(i).map(urlOf), max_age: 86_400 })
    // The first round warms the JIT and the caches' in-process layer; it is not counted.
    if (round === 0) continue
    searchMs.push(search.ms)
    contextMs.push(context.ms)
    extractMs.push(extract.ms)
    if (context.body.meta.credits_used !== 0.5 + NUM * 0.5) throw new Error(`cached context billed ${context.body.meta.credits_used}`)
  }
}

await trawl.close()
await site.close()
await searx.close()

// ---- report -------------------------------------------------------------------------------------

const q = pages.length
const precision = (t: Tally) => t.wordsFound / t.words
console.log(
  `context quality: ${q} article-extraction-benchmark dev pages asked for by title (of ${corpus.length}; the rest have no title), ${NUM} results each, max_tokens ${BUDGET}`,
)
console.log(
  `  passages: ${passageCount} (${(passageCount / q).toFixed(1)} per query), ${Math.round(passageTokensUsed / q)} tokens per answer, truncated ${truncated}/${q}, pages not read ${failedReads}`,
)
console.log(
  `  precision (words in ground truth): passages ${pct(passagesTally.wordsFound, passagesTally.words)}, whole pages ${pct(wholeTally.wordsFound, wholeTally.words)}; ratio ${(precision(passagesTally) / precision(wholeTally)).toFixed(3)}`,
)
console.log(
  `  precision (4-word shingles):        passages ${pct(passagesTally.shinglesFound, passagesTally.shingles)}, whole pages ${pct(wholeTally.shinglesFound, wholeTally.shingles)}; ratio ${(passagesTally.shinglesFound / passagesTally.shingles / (wholeTally.shinglesFound / wholeTally.shingles)).toFixed(3)}`,
)
console.log(
  `  on target (tokens from the page asked for): passages ${pct(passagesTally.onTarget, passagesTally.tokens)}, pages in result order cut to the budget ${pct(naiveTally.onTarget, naiveTally.tokens)}; ratio ${(passagesTally.onTarget / passagesTally.tokens / (naiveTally.onTarget / naiveTally.tokens)).toFixed(3)}`,
)
console.log(
  `  coverage (asked page's ground-truth words held): passages ${pct(passagesTally.goldCovered, passagesTally.goldWords)}, pages in result order cut to the budget ${pct(naiveTally.goldCovered, naiveTally.goldWords)}`,
)
const row = (name: string, xs: number[]) => `${name} median ${quantile(xs, 0.5).toFixed(1)} ms, p95 ${quantile(xs, 0.95).toFixed(1)} ms`
console.log(`context latency, cached search and pages (${contextMs.length} calls over ${ROUNDS - 1} rounds after one warm-up round, one at a time):`)
console.log(`  ${row('/v1/context num=5', contextMs)}`)
console.log(`  ${row('/v1/search (cached)', searchMs)}; context/search ratio ${(quantile(contextMs, 0.5) / quantile(searchMs, 0.5)).toFixed(2)}`)
console.log(
  `  ${row('/v1/extract of the 5 pages (cached)', extractMs)}; context/extract ratio ${(quantile(contextMs, 0.5) / quantile(extractMs, 0.5)).toFixed(2)}`,
)
