import type { CrawlRow } from '../../store/schema.ts'
import { toCredits } from '../credits/money.ts'

const iso = (ms: number | null) => (ms == null ? null : new Date(ms).toISOString())
const json = <T>(text: string | null): T | null => (text ? (JSON.parse(text) as T) : null)

/**
 * The result with its pages. Pages are stored one a row as the crawl reads them (crawl_pages, in
 * `pagesJson` here, in order); crawls finished before that (migration 0008) kept them in the result.
 */
function resultJson(row: CrawlRow, pagesJson: string[] = []): string | null {
  if (!row.result) return null
  const stored = JSON.parse(row.result) as { url: string; pages?: unknown[]; failed: unknown[]; stats: unknown }
  if (stored.pages) return row.result
  const { url, failed, stats } = stored
  return `{"url":${JSON.stringify(url)},"pages":[${pagesJson.join(',')}],"failed":${JSON.stringify(failed)},"stats":${JSON.stringify(stats)}}`
}

/** SPEC "Crawl task": the wire form of a crawl row; `pagesJson` from crawl.store.ts `crawlPagesJson` (lists leave it out). */
export function toCrawlView(row: CrawlRow, webhookStatus: string | null, pagesJson?: string[]) {
  const request = json<{ limit: number }>(row.request)
  return {
    id: row.id,
    kind: 'crawl' as const,
    // A leased row whose worker is gone still reads as running until another worker takes it.
    status: row.status,
    created_at: iso(row.created_at),
    started_at: iso(row.started_at),
    completed_at: iso(row.completed_at),
    credits_reserved: toCredits(row.credits_reserved_mc),
    credits_used: toCredits(row.credits_used_mc),
    webhook_status: webhookStatus,
    progress: json(row.progress) ?? { pages_done: 0, pages_failed: 0, pages_queued: 0, pages_discovered: 0, limit: request?.limit ?? 0 },
    result: json(resultJson(row, pagesJson)),
    error: json(row.error),
  }
}

export type CrawlView = ReturnType<typeof toCrawlView>

/**
 * The same view as JSON text, the stored pages spliced in as they are stored: a finished crawl's
 * pages (tens of MB for a large crawl) are neither parsed, validated nor serialised again on each
 * poll, which would hold several copies of them in memory at once. Keys keep the view's order.
 */
export function toCrawlJson(row: CrawlRow, webhookStatus: string | null, pagesJson?: string[]): string {
  const { result: _stored, error, ...head } = toCrawlView({ ...row, result: null }, webhookStatus)
  return `${JSON.stringify(head).slice(0, -1)},"result":${resultJson(row, pagesJson) ?? 'null'},"error":${JSON.stringify(error)}}`
}
