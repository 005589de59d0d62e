/**
 * The corpora's own scoring rules, re-implemented from their READMEs' descriptions.
 */

/**
 * Markdown -> the plain text a scorer should see: link targets, image syntax and markers dropped.
 * One marker per line: a heading's own "1. " (a numbered section title) is text, not a list marker.
 */
export function stripMarkdown(md: string): string {
  return md
    .replace(/!\[[^\]]*\]\([^)]*\)/g, ' ')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/^```.*$/gm, '')
    .replace(/^(?:#{1,6}|\s*(?:[-*+]|\d+\.))\s+/gm, '')
    .replace(/^\s*>\s?/gm, '')
    .replace(/^\|?\s*:?-{3,}.*$/gm, '')
    .replace(/\s\|\s|^\|\s?|\s?\|$/gm, ' ')
    .replace(/(\*\*|__|~~|`)/g, '')
    .replace(/(^|\W)[_*](?=\S)/g, '$1')
    .replace(/(\S)[_*](?=\W|$)/g, '$1')
    .replace(/\\([\\`*_[\]{}()#+\-.!|>~])/g, '$1')
}

const tokenize = (s: string) => s.match(/[\p{L}\p{N}\p{M}_]+/gu) ?? []

function shingles(text: string): Map<string, number> {
  const tokens = tokenize(text)
  const out = new Map<string, number>()
  const add = (k: string) => out.set(k, (out.get(k) ?? 0) + 1)
  if (tokens.length < 4) add(tokens.join(' '))
  else for (let i = 0; i + 4 <= tokens.length; i++) add(tokens.slice(i, i + 4).join(' '))
  return out
}

export interface PageCounts {
  tp: number
  fp: number
  fn: number
  exact: boolean
}

/** article-extraction-benchmark: multiset 4-shingle overlap of \w+ tokens, per page. */
export function shingleCounts(predicted: string, gold: string): PageCounts {
  const p = shingles(predicted)
  const g = shingles(gold)
  let tp = 0
  let fp = 0
  let fn = 0
  for (const [k, n] of p) {
    const m = g.get(k) ?? 0
    tp += Math.min(n, m)
    fp += Math.max(0, n - m)
  }
  for (const [k, m] of g) fn += Math.max(0, m - (p.get(k) ?? 0))
  return { tp, fp, fn, exact: tokenize(predicted).join(' ') === tokenize(gold).join(' ') }
}

/** Means of per-page precision and recall (each page weighs the same), F1 of the two means. */
export function aggregateShingles(pages: PageCounts[]) {
  const ps: number[] = []
  const rs: number[] = []
  for (const { tp, fp, fn } of pages) {
    if (fp === 0 && fn === 0) {
      ps.push(1)
      rs.push(1)
      continue
    }
    if (tp + fp > 0) ps.push(tp / (tp + fp))
    if (tp + fn > 0) rs.push(tp / (tp + fn))
  }
  const mean = (a: number[]) => (a.length ? a.reduce((x, y) => x + y, 0) / a.length : 0)
  const precision = mean(ps)
  const recall = mean(rs)
  const f1 = precision + recall ? (2 * precision * recall) / (precision + recall) : 0
  return { f1, precision, recall, accuracy: pages.filter((p) => p.exact).length / (pages.length || 1) }
}

export const pageF1 = (c: PageCounts) => {
  if (c.fp === 0 && c.fn === 0) return 1
  const p = c.tp + c.fp ? c.tp / (c.tp + c.fp) : 0
  const r = c.tp + c.fn ? c.tp / (c.tp + c.fn) : 0
  return p + r ? (2 * p * r) / (p + r) : 0
}

const squash = (s: string) => s.replace(/\s+/g, ' ').trim()

export interface SegmentCounts {
  tp: number
  fn: number
  fp: number
  tn: number
}

/** trafilatura-eval: "with" segments must be substrings of the output, "without" must not. */
export function segmentCounts(extracted: string, withSegs: string[], withoutSegs: string[]): SegmentCounts {
  const text = squash(extracted)
  const c = { tp: 0, fn: 0, fp: 0, tn: 0 }
  for (const s of withSegs) text.includes(squash(s)) ? c.tp++ : c.fn++
  for (const s of withoutSegs) text.includes(squash(s)) ? c.fp++ : c.tn++
  return c
}

export function aggregateSegments(all: SegmentCounts[]) {
  const t = all.reduce((a, c) => ({ tp: a.tp + c.tp, fn: a.fn + c.fn, fp: a.fp + c.fp, tn: a.tn + c.tn }), { tp: 0, fn: 0, fp: 0, tn: 0 })
  const precision = t.tp / (t.tp + t.fp || 1)
  const recall = t.tp / (t.tp + t.fn || 1)
  return {
    f1: precision + recall ? (2 * precision * recall) / (precision + recall) : 0,
    precision,
    recall,
    accuracy: (t.tp + t.tn) / (t.tp + t.tn + t.fp + t.fn || 1),
  }
}
