/** The /v1/scholar vertical on Google Scholar. */

import type { ParseQuality, ScholarResult } from '../../engine.types.ts'
import type { EngineVertical, VerticalAnswer } from '../../provider.types.ts'
import { detectScholarBlock } from './google-scholar.block.ts'
import { parseGoogleScholar } from './google-scholar.parse.ts'
import { buildGoogleScholarRequest, scholarSlices } from './google-scholar.request.ts'

/**
 * Scholar serves at most 20 results per page, so num 30/50/100 is honoured by fetching the
 * consecutive upstream pages one after another (stopping early when Scholar runs out). A refusal
 * on a later page keeps the results already read and marks the answer 'partial'; a refusal on
 * the first page is the caller's error.
 */
export const googleScholar: EngineVertical<ScholarResult> = {
  async run(req, fetch) {
    const num = req.num ?? 10
    const offset = ((req.page ?? 1) - 1) * num
    const results: ScholarResult[] = []
    const seen = new Set<string>()
    let quality: ParseQuality = 'ok'
    let total: number | undefined

    for (const [i, slice] of scholarSlices(req).entries()) {
      const { url, headers } = buildGoogleScholarRequest(req, slice)
      let body: string
      try {
        body = (await fetch(url, headers, (r) => detectScholarBlock(r))).body
      } catch (err) {
        if (i === 0) throw err
        quality = 'partial'
        break
      }
      const page = parseGoogleScholar(body)
      if (page.parse_quality === 'partial') quality = 'partial'
      total ??= page.total_results
      for (const item of page.results) {
        // Scholar can repeat a cluster across adjacent pages.
        const key = item.id ?? `${item.title}|${item.link ?? ''}`
        if (seen.has(key)) continue
        seen.add(key)
        results.push(item)
      }
      if (page.results.length < slice.num) break // the last page Scholar has
    }

    const page = results.slice(0, num).map((item, i) => ({ ...item, position: offset + i + 1 }))
    const answer: VerticalAnswer<ScholarResult> = { results: page, parse_quality: page.length ? quality : 'empty' }
    if (total !== undefined) answer.total_results = total
    return answer
  },
}
