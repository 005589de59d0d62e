import type { Highlight } from './reading.types.ts'

/**
 * BM25 over ~600-character passages of the page. Deterministic by construction: no randomness,
 * scores rounded to 4 decimals, ties broken by position on the page.
 */

const K1 = 1.2
const B = 0.75
const TARGET = 600

interface Passage {
  text: string
  heading: string | null
  index: number
}

const tokenize = (s: string) => s.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []

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

/** The `count` passages that best match `query`, best first. */
export function rankHighlights(content: string, query: string, count: number): Highlight[] {
  const passages = splitPassages(content)
  const terms = [...new Set(tokenize(query))]
  if (passages.length === 0 || terms.length === 0 || count <= 0) return []
  const docs = passages.map((p) => tokenize(p.text))
  const avg = docs.reduce((a, d) => a + d.length, 0) / docs.length || 1
  const df = new Map<string, number>()
  for (const d of docs) for (const t of new Set(d)) df.set(t, (df.get(t) ?? 0) + 1)
  const n = docs.length
  const scored = passages.map((p, i) => {
    const d = docs[i]!
    const tf = new Map<string, number>()
    for (const t of d) tf.set(t, (tf.get(t) ?? 0) + 1)
    let score = 0
    for (const t of terms) {
      const f = tf.get(t)
      if (!f) continue
      const idf = Math.log(1 + (n - df.get(t)! + 0.5) / (df.get(t)! + 0.5))
      score += (idf * f * (K1 + 1)) / (f + K1 * (1 - B + (B * d.length) / avg))
    }
    return { p, score: Math.round(score * 1e4) / 1e4 }
  })
  return scored
    .filter((s) => s.score > 0)
    .sort((a, b) => b.score - a.score || a.p.index - b.p.index)
    .slice(0, count)
    .map((s) => ({ text: s.p.text, score: s.score, heading: s.p.heading }))
}
