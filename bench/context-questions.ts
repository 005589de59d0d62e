/**
 * The question set of `npm run bench:context-quality` (fixtures/context-questions): questions
 * written for this project about the article-extraction benchmark's dev pages
 * (fixtures/corpora/article-extraction-benchmark), each with a short answer span copied from the
 * page's ground truth, and the five results each question is answered from: its page and the four
 * pages of the corpus most like it (TF-IDF cosine of their ground-truth text), the page at
 * position 1 + (i mod 5).
 *
 * Run `node bin/run-ts.mjs bench/context-questions.ts` to rebuild questions.json from
 * questions.tsv (page index, type, question, answer: one a line); it checks that every answer is
 * in its page's ground truth and in the Markdown the reader makes of it.
 */

import { readFileSync, writeFileSync } from 'node:fs'
import { readFixture } from '../test/support/fixtures.ts'
import { loadArticleBenchmark } from './reader/corpora.ts'
import { stripMarkdown } from './reader/scoring.ts'

export interface Question {
  id: string
  /** The article's id in the corpus. */
  page: string
  /** lexical: the question uses the answer's words; paraphrase: it says them otherwise. */
  type: 'lexical' | 'paraphrase'
  /** Questions on pages at even places of the list tune the ranking; the others check it. */
  half: 'tune' | 'check'
  q: string
  answer: string
  /** The five results, in result order (article ids). */
  results: string[]
}

/** Lowercased words of visible text: what an answer is looked for in. */
export const answerWords = (text: string): string[] =>
  stripMarkdown(text)
    .toLowerCase()
    .match(/[\p{L}\p{N}]+/gu) ?? []

/** Whether `answer` (its words, in order) is in `text`. */
export function holdsAnswer(text: string, answer: string): boolean {
  const a = ` ${answerWords(answer).join(' ')} `
  return ` ${answerWords(text).join(' ')} `.includes(a)
}

export function loadQuestions(): Question[] {
  return JSON.parse(readFixture('context-questions/questions.json').toString('utf8')) as Question[]
}

/** The four pages most like each page: TF-IDF (log tf, log idf) cosine of the ground-truth text. */
export function similarPages(golds: readonly string[]): number[][] {
  const docs = golds.map((g) => g.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [])
  const df = new Map<string, number>()
  for (const d of docs) for (const t of new Set(d)) df.set(t, (df.get(t) ?? 0) + 1)
  const vectors = docs.map((d) => {
    const tf = new Map<string, number>()
    for (const t of d) tf.set(t, (tf.get(t) ?? 0) + 1)
    const v = new Map<string, number>()
    let norm = 0
    for (const [t, f] of tf) {
      const w = (1 + Math.log(f)) * Math.log(docs.length / df.get(t)!)
      v.set(t, w)
      norm += w * w
    }
    for (const [t, w] of v) v.set(t, w / (Math.sqrt(norm) || 1))
    return v
  })
  const cos = (a: Map<string, number>, b: Map<string, number>) => {
    let s = 0
    for (const [t, w] of a) s += w * (b.get(t) ?? 0)
    return s
  }
  return vectors.map((v, i) =>
    vectors
      .map((o, j) => [j, j === i ? -1 : cos(v, o)] as const)
      .sort((a, b) => b[1] - a[1] || a[0] - b[0])
      .slice(0, 4)
      .map(([j]) => j),
  )
}

async function build() {
  const { readDocument } = await import('../src/reader/reader.service.ts')
  const corpus = loadArticleBenchmark()
  const similar = similarPages(corpus.map((p) => p.gold))
  const rows = readFileSync(new URL('../fixtures/context-questions/questions.tsv', import.meta.url), 'utf8')
    .trim()
    .split('\n')
  const pageOrder = [...new Set(rows.map((r) => Number(r.split('\t')[0])))]
  const questions: Question[] = []
  const problems: string[] = []
  for (const [i, row] of rows.entries()) {
    const [index, type, q, answer] = row.split('\t') as [string, Question['type'], string, string]
    const page = corpus[Number(index)]!
    const results = similar[Number(index)]!.map((j) => corpus[j]!.id)
    results.splice(i % 5, 0, page.id)
    const read = await readDocument({ url: page.url, contentType: 'html', body: Buffer.alloc(0), text: page.html }, { format: 'markdown' })
    if (!holdsAnswer(page.gold, answer)) problems.push(`${i}: answer not in the ground truth: ${answer}`)
    if (!holdsAnswer(read.markdown ?? '', answer)) problems.push(`${i}: answer not in the page's Markdown: ${answer}`)
    const half = pageOrder.indexOf(Number(index)) % 2 === 0 ? 'tune' : 'check'
    questions.push({ id: `q${String(i + 1).padStart(3, '0')}`, page: page.id, type, half, q, answer, results })
  }
  if (problems.length > 0) throw new Error(problems.join('\n'))
  writeFileSync(new URL('../fixtures/context-questions/questions.json', import.meta.url), `${JSON.stringify(questions, null, 1)}\n`)
  console.log(`${questions.length} questions written`)
}

if (process.argv[1]?.endsWith('context-questions.ts')) await build()
