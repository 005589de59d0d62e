import { bm25Scores, tokenize } from '../text/bm25.ts'
import type { Highlight } from './reading.types.ts'

/** BM25 (src/text/bm25.ts) over ~600-character passages of the page, each with its nearest heading. */

const TARGET = 600

interface Passage {
  text: string
  heading: string | null
  index: number
}

const HEADING = /^(#{1,6})\s+(.+)$/

/** Splits Markdown or text on paragraph boundaries into passages of about TARGET characters. */
export function splitPassages(content: string): Passage[] {
  const passages: Passage[] = []
  let heading: string | null = null
  let buf: string[] = []
  let bufHeading: string | null = null
  let len = 0
  const flush = () => {
    const text = buf.join('\n\n').trim()
    if (text) passages.push({ text, heading: bufHeading, index: passages.length })
    buf = []
    len = 0
  }
  for (const raw of content.split(/\n{2,}/)) {
    const para = raw.trim()
    if (!para) continue
    const h = HEADING.exec(para)
    if (h && !para.includes('\n')) {
      flush()
      heading = h[2]!.trim()
      continue
    }
    // A paragraph far longer than a passage is cut at sentence ends so one passage stays readable.
    const pieces =
      para.length > TARGET * 1.5 ? (para.match(new RegExp(`[\\s\\S]{1,${TARGET}}(?:[.!?](?=\\s)|$)|[\\s\\S]{1,${TARGET}}`, 'g')) ?? [para]) : [para]
    for (const piece of pieces) {
      if (len > 0 && len + piece.length > TARGET) flush()
      if (buf.length === 0) bufHeading = heading
      buf.push(piece.trim())
      len += piece.length
    }
  }
  flush()
  return passages
}

/** The `count` passages that best match `query`, best first (ties keep page order). */
export function rankHighlights(content: string, query: string, count: number): Highlight[] {
  const passages = splitPassages(content)
  if (passages.length === 0 || count <= 0) return []
  const scores = bm25Scores(
    passages.map((p) => tokenize(p.text)),
    query,
  )
  return passages
    .map((p, i) => ({ p, score: scores[i] ?? 0 }))
    .filter((s) => s.score > 0)
    .sort((a, b) => b.score - a.score || a.p.index - b.p.index)
    .slice(0, count)
    .map((s) => ({ text: s.p.text, score: s.score, heading: s.p.heading }))
}
