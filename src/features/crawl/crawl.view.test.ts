import { describe, expect, it } from 'vitest'
import type { CrawlRow } from '../../store/schema.ts'
import type { CrawlTask } from './crawl.response.ts'
import { crawlJsonFrame, toCrawlView } from './crawl.view.ts'

/** The text GET /v1/crawl/{id} streams: the frame with the pages between its parts. */
const toCrawlJson = (row: CrawlRow, webhookStatus: CrawlTask['webhook_status'], pagesJson: string[] = []) => {
  const frame = crawlJsonFrame(row, webhookStatus)
  return frame.pages ? `${frame.before}${pagesJson.join(',')}${frame.after}` : frame.before
}

const row = (result: unknown): CrawlRow =>
  ({
    id: 'crawl_1',
    status: 'completed',
    created_at: 0,
    started_at: 0,
    completed_at: 1000,
    credits_reserved_mc: 10_000,
    credits_used_mc: 2000,
    request: JSON.stringify({ url: 'https://example.com/', limit: 10 }),
    progress: null,
    result: JSON.stringify(result),
    error: null,
  }) as unknown as CrawlRow

describe('crawl result with its stored pages', () => {
  const stats = { pages: 2, stopped: 'done' }
  const pages = [
    { url: 'https://example.com/', depth: 0, markdown: '# Home "quoted"' },
    { url: 'https://example.com/a', depth: 1, markdown: 'A' },
  ]

  it('puts the pages stored beside the result in it, in order, the same as text and as a view', () => {
    const stored = row({ url: 'https://example.com/', failed: [], stats })
    const pagesJson = pages.map((p) => JSON.stringify(p))
    const expected = { url: 'https://example.com/', pages, failed: [], stats }
    expect(toCrawlView(stored, null, pagesJson).result).toEqual(expected)
    const text = toCrawlJson(stored, 'delivered', pagesJson)
    expect(JSON.parse(text)).toEqual({ ...toCrawlView(stored, 'delivered', pagesJson) })
    expect(Object.keys(JSON.parse(text))).toEqual(Object.keys(toCrawlView(stored, 'delivered', pagesJson)))
  })

  it('serves a result stored with its pages (crawls finished before pages were stored apart)', () => {
    const stored = row({ url: 'https://example.com/', pages, failed: [], stats })
    expect((toCrawlView(stored, null, []).result as { pages: unknown[] }).pages).toEqual(pages)
    expect(JSON.parse(toCrawlJson(stored, null, [])).result.pages).toEqual(pages)
  })

  it('has no result while the crawl runs', () => {
    expect(JSON.parse(toCrawlJson({ ...row(null), result: null, status: 'running' }, null)).result).toBeNull()
  })
})
