import type { OrganicResult } from '../../engines/engine.types.ts'
import { ApiError } from '../../errors.ts'
import { mapLimit } from '../../jobs/map-limit.ts'
import { type PageReadDeps, pagePriceMc, readPage } from '../../reader/page-read.ts'

/** Content of one result page, as attached by include_content. */
export interface ResultContent {
  content?: string
  content_title?: string | null
  content_cached?: boolean
  content_trimmed?: boolean
  content_error?: { code: string; message: string }
}

/**
 * Tokens kept per page. Search has no max_tokens parameter, and ten whole pages would drown the
 * results an agent asked for; /v1/extract reads a page in full.
 */
export const CONTENT_MAX_TOKENS = 4000
const PAGE_TIMEOUT_MS = 15_000

/**
 * Reads the top `count` organic results as Markdown (5 at a time, like extract) and attaches them
 * to the result items. Returns the millicredits earned: 1 credit per page read, 0.5 from the page
 * cache (with max_age), nothing for a page that failed or had no content.
 */
export async function attachContent(
  deps: PageReadDeps,
  results: (OrganicResult & ResultContent)[],
  count: number,
  maxAge: number | undefined,
): Promise<number> {
  const chosen = results.slice(0, count)
  const earned = await mapLimit(chosen, 5, async (result) => {
    try {
      const page = await readPage(deps, result.link, { format: 'markdown', maxTokens: CONTENT_MAX_TOKENS, timeoutMs: PAGE_TIMEOUT_MS }, maxAge)
      if (page.empty) {
        result.content_error = { code: 'empty_page', message: 'page has no readable content' }
        return 0
      }
      result.content = page.result.markdown ?? ''
      result.content_title = page.result.title
      result.content_cached = page.cached
      result.content_trimmed = page.trimmed
      return pagePriceMc(page.cached)
    } catch (err) {
      const e = err instanceof ApiError ? err : new ApiError('upstream_error', 'page could not be read')
      result.content_error = { code: e.code, message: e.message }
      return 0
    }
  })
  return earned.reduce((a, b) => a + b, 0)
}
