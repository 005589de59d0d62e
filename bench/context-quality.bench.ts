/**
 * POST /v1/context answer quality on judged questions (bench/context-questions.ts,
 * fixtures/context-questions): does the answer, a short span of one page, come back in the
 * passages, and in the first one?
 *
 * Each question is searched through a fake SearXNG (engine=searxng) that answers five results: the
 * question's page at position 1 + (i mod 5) and the four corpus pages most like it, served from a
 * loopback site. `num` 5; budgets 1,000 and 3,000 tokens. Trawl runs as `npm start` runs it, in a
 * process of its own; nothing leaves the machine (TRAWL_EMBEDDINGS_URL, when set, is passed on).
 *
 * Baselines from the same pages in the same run (their Markdown from /v1/extract):
 *   - in order: the five pages' Markdown in result order cut to the budget (include_content's way);
 *   - right page: the first `budget` tokens of the question's own page (an oracle that knows the page).
 * "Long" pages are those whose Markdown is longer than 1,000 tokens.
 *
 * Run: npm run bench:context-quality
 */

import type { IncomingMessage, ServerResponse } from 'node:http'
import { searxngAnswer } from '../src/engines/searxng/searxng.fixture.ts'
import { countTokensNow as countTokens, trimToTokensNow as trimToTokens } from '../src/text/token-count.ts'
import { fakeUpstream } from '../test/support/fake-upstream.ts'
import { holdsAnswer, loadQuestions, type Question } from './context-questions.ts'
import { loadArticleBenchmark } from './reader/corpora.ts'
import { startTrawlProcess } from './support/trawl-process.ts'

const BUDGETS = [1000, 3000]
const NUM = 5
const SEARX_HOST = 'searx.bench:8888'
const LONG = 1000

interface Answer {
  passages: { text: string; url: string; position: number; tokens: number }[]
  meta: { tokens_used: number; truncated: boolean; pages_read: number; ranking?: string; notes?: string[]; latency_ms: number }
}

const questions = loadQuestions()
const corpus = new Map(loadArticleBenchmark().map((p) => [p.id, p]))
const byQuery = new Map(questions.map((q) => [q.q, q]))

const site = await fakeUpstream((req: IncomingMessage, res: ServerResponse) => {
  const page = corpus.get((req.url ?? '').replace(/^\/a\//, ''))
  if (!page) return res.writeHead(404).end()
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page.html)
})
const urlOf = (id: string) => `${site.url}/a/${id}`
const idOf = (url: string) => url.slice(`${site.url}/a/`.length)

const searx = await fakeUpstream((req, res) => {
  const url = new URL(req.url ?? '/', 'http://x')
  const q = byQuery.get(url.searchParams.get('q') ?? '')
  const results = (q?.results ?? []).map((id) => ({
    url: urlOf(id),
    title: `Result ${id.slice(0, 6)}`,
    content: '',
    engine: 'google',
    engines: ['google'],
    category: 'general',
  }))
  res
    .writeHead(200, { 'content-type': 'application/json' })
    .end(JSON.stringify(searxngAnswer({ query: url.searchParams.get('q'), results, answers: [], infoboxes: [] })))
})

const passOn = Object.fromEntries(Object.entries(process.env).filter(([k]) => k.startsWith('TRAWL_EMBEDDINGS_'))) as Record<string, string>
const trawl = await startTrawlProcess({ TRAWL_UPSTREAM_HOSTS: `*=${searx.url}`, TRAWL_SEARXNG_URL: `http://${SEARX_HOST}`, TRAWL_BROWSER: 'off', ...passOn })

const post = async <T>(path: string, body: unknown): Promise<T> => {
  const res = await trawl.call('POST', path, body)
  const text = await res.text()
  if (res.status !== 200) throw new Error(`${path} answered ${res.status}: ${text.slice(0, 300)}`)
  return JSON.parse(text) as T
}

// ---- the pages' Markdown, for the baselines ------------------------------------------------------

const markdownOf = new Map<string, string>()
const ids = [...new Set(questions.flatMap((q) => q.results))]
for (let i = 0; i < ids.length; i += 10) {
  const read = await post<{ results: { url: string; markdown: string }[] }>('/v1/extract', { urls: ids.slice(i, i + 10).map(urlOf) })
  for (const r of read.results) markdownOf.set(idOf(r.url), r.markdown)
}
const pageTokens = new Map([...markdownOf].map(([id, md]) => [id, countTokens(md)]))

// ---- the questions -------------------------------------------------------------------------------

interface Outcome {
  q: Question
  budget: number
  found: boolean
  first: boolean
  empty: boolean
  truncated: boolean
  ranking: string
  passages: number
  tokens: number
  inOrder: boolean
  rightPage: boolean
  ms: number
}
const outcomes: Outcome[] = []

for (const budget of BUDGETS) {
  for (const q of questions) {
    const started = performance.now()
    // max_age: pages read once, then from the cache (the search too), so later budgets rank the same pages.
    const body = await post<Answer>('/v1/context', { q: q.q, engine: 'searxng', num: NUM, max_tokens: budget, max_age: 86_400 })
    const ms = performance.now() - started
    let left = budget
    let inOrderText = ''
    for (const id of q.results) {
      const md = markdownOf.get(id)
      if (!md || left <= 0) continue
      const cut = trimToTokens(md, left).text
      inOrderText += `\n\n${cut}`
      left -= countTokens(cut)
    }
    outcomes.push({
      q,
      budget,
      found: body.passages.some((p) => holdsAnswer(p.text, q.answer)),
      first: body.passages.length > 0 && holdsAnswer(body.passages[0]!.text, q.answer),
      empty: body.passages.length === 0 && body.meta.pages_read > 0,
      truncated: body.meta.truncated,
      ranking: body.meta.ranking ?? 'lexical',
      passages: body.passages.length,
      tokens: body.meta.tokens_used,
      inOrder: holdsAnswer(inOrderText, q.answer),
      rightPage: holdsAnswer(trimToTokens(markdownOf.get(q.page) ?? '', budget).text, q.answer),
      ms,
    })
  }
}

await trawl.close()
await site.close()
await searx.close()

// ---- report ----------------------------------------------------------------------------------------

const pct = (n: number, d: number) => (d === 0 ? '   n/a' : `${((100 * n) / d).toFixed(1).padStart(5)}%`)
const ratio = (a: number, b: number) => (b === 0 ? 'n/a' : (a / b).toFixed(2))
const groups: [string, (o: Outcome) => boolean][] = [
  ['all', () => true],
  ['lexical', (o) => o.q.type === 'lexical'],
  ['paraphrase', (o) => o.q.type === 'paraphrase'],
  ['paraphrase, long page', (o) => o.q.type === 'paraphrase' && (pageTokens.get(o.q.page) ?? 0) > LONG],
  ['tune half', (o) => o.q.half === 'tune'],
  ['check half', (o) => o.q.half === 'check'],
  ['check half, paraphrase', (o) => o.q.half === 'check' && o.q.type === 'paraphrase'],
]
console.log(
  `context answer quality: ${questions.length} questions (${questions.filter((q) => q.type === 'lexical').length} lexical, ${questions.filter((q) => q.type === 'paraphrase').length} paraphrased) on ${new Set(questions.map((q) => q.page)).size} pages, ${NUM} results each`,
)
for (const budget of BUDGETS) {
  const at = outcomes.filter((o) => o.budget === budget)
  console.log(`\nmax_tokens ${budget}:`)
  console.log(`  ${'questions'.padEnd(24)}   n  answer in passages  first passage  in order (ratio)   right page (ratio)`)
  for (const [name, keep] of groups) {
    const g = at.filter(keep)
    const found = g.filter((o) => o.found).length
    const first = g.filter((o) => o.first).length
    const inOrder = g.filter((o) => o.inOrder).length
    const right = g.filter((o) => o.rightPage).length
    console.log(
      `  ${name.padEnd(24)} ${String(g.length).padStart(3)}  ${pct(found, g.length).padStart(18)}  ${pct(first, g.length).padStart(13)}  ${pct(inOrder, g.length)} (${ratio(found, inOrder).padStart(5)})  ${pct(right, g.length)} (${ratio(found, right).padStart(5)})`,
    )
  }
  const rankings = new Map<string, number>()
  for (const o of at) rankings.set(o.ranking, (rankings.get(o.ranking) ?? 0) + 1)
  console.log(
    `  empty answers with a page read: ${at.filter((o) => o.empty).length}; truncated: ${at.filter((o) => o.truncated).length}/${at.length}; ${(at.reduce((n, o) => n + o.passages, 0) / at.length).toFixed(1)} passages and ${Math.round(at.reduce((n, o) => n + o.tokens, 0) / at.length)} tokens per answer; ranking ${[...rankings].map(([k, n]) => `${k} ${n}`).join(', ')}`,
  )
  if (process.env.BENCH_MISSES)
    for (const o of at.filter((x) => !x.found)) console.log(`    miss ${o.q.id} (${o.q.type}, ${o.q.half}): ${o.q.q} → ${o.q.answer}`)
}
