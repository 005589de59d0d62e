/**
 * BM25 (k1 1.2, b 0.75) over small in-memory collections: highlight passages, a site's URLs for
 * /v1/map `search`, link targets for best-first crawls; bm25Idf and bm25Tf are the same formula for
 * the context ranking's weighted query terms (features/context/context.rank.ts). Hand-written because the collections are
 * built per request and a search library's index would cost more than the scoring itself.
 * Deterministic: scores are rounded to 4 decimals so ties break by position, not float noise.
 */
const K1 = 1.2
const B = 0.75

export const tokenize = (s: string): string[] => s.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []

/** BM25's inverse document frequency of a term found in `df` of `n` documents. */
export const bm25Idf = (n: number, df: number): number => Math.log(1 + (n - df + 0.5) / (df + 0.5))

/** BM25's saturated term frequency: `tf` occurrences in a document of `length` terms, `avg` on average. */
export const bm25Tf = (tf: number, length: number, avg: number): number => (tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * length) / avg))

/** One score per document (documents given as token lists) for the distinct terms of the query. */
export function bm25Scores(docs: readonly string[][], query: string): number[] {
  const terms = [...new Set(tokenize(query))]
  if (docs.length === 0 || terms.length === 0) return docs.map(() => 0)
  const avg = docs.reduce((a, d) => a + d.length, 0) / docs.length || 1
  const df = new Map<string, number>()
  for (const d of docs) for (const t of new Set(d)) df.set(t, (df.get(t) ?? 0) + 1)
  const n = docs.length
  return docs.map((d) => {
    const tf = new Map<string, number>()
    for (const t of d) tf.set(t, (tf.get(t) ?? 0) + 1)
    let score = 0
    for (const t of terms) {
      const f = tf.get(t)
      if (!f) continue
      const dft = df.get(t) ?? 0
      const idf = Math.log(1 + (n - dft + 0.5) / (dft + 0.5))
      score += (idf * f * (K1 + 1)) / (f + K1 * (1 - B + (B * d.length) / avg))
    }
    return Math.round(score * 1e4) / 1e4
  })
}
