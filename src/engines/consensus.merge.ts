import { siteKey } from '../site/urls/url.canonical.ts'
import type { OrganicResult } from './engine.types.ts'

/** Reciprocal rank fusion's damping constant (Cormack et al. 2009): rank 1 is not worth 60 times rank 60. */
const RRF_K = 60

export interface ProviderResults {
  engine: string
  results: OrganicResult[]
}

/**
 * `consensus`: one list from several providers' results. Results are the same page when their
 * canonical URLs match (the crawl's de-duplication key: scheme, `www.`, trailing slash, tracking
 * parameters and parameter order folded). Each page scores the sum of 1 / (60 + rank) over the
 * providers that returned it, so agreement counts first and rank second; ties keep the order of
 * the first provider. The first provider's title, link and snippet are kept, a missing snippet
 * or date is taken from the next, and `sources` lists every provider with its position there.
 */
export function mergeByUrl(lists: ProviderResults[]): OrganicResult[] {
  const merged = new Map<string, { result: OrganicResult; score: number; first: number }>()
  let order = 0
  for (const { engine, results } of lists) {
    for (const [i, r] of results.entries()) {
      const key = siteKey(r.link)
      const source = { engine, position: r.position }
      const seen = merged.get(key)
      if (!seen) {
        merged.set(key, { result: { ...r, sources: [source] }, score: 1 / (RRF_K + i + 1), first: order++ })
        continue
      }
      // One provider listing a page twice (a sitelink, a repeat) counts once.
      if (seen.result.sources?.some((s) => s.engine === engine)) continue
      seen.score += 1 / (RRF_K + i + 1)
      seen.result.sources?.push(source)
      seen.result.snippet ??= r.snippet
      seen.result.date ??= r.date
      seen.result.displayed_link ??= r.displayed_link
    }
  }
  return [...merged.values()].sort((a, b) => b.score - a.score || a.first - b.first).map((m, i) => ({ ...m.result, position: i + 1 }))
}
