import { toCredits } from '../../billing/money.ts'
import type { CrawlRow } from '../../store/schema.ts'
import type { CrawlTask } from './crawl.response.ts'

const iso = (ms: number | null) => (ms == null ? null : new Date(ms).toISOString())
const json = <T>(text: string | null): T | null => (text ? (JSON.parse(text) as T) : null)

/**
 * The result's JSON text around its pages. Pages are stored one a row as the crawl reads them
 * (crawl_pages, in order); crawls finished before that (migration 0008) kept them in the result,
 * which is then `whole`.
 */
type ResultText = { whole: string | null } | { before: string; after: string }

function resultText(row: CrawlRow): ResultText {
  if (!row.result) return { whole: null }
  const stored = JSON.parse(row.result) as { url: string; pages?: unknown[]; failed: unknown[]; stats: unknown }
  if (stored.pages) return { whole: row.result }
  const { url, failed, stats } = stored
  return { before: `{"url":${JSON.stringify(url)},"pages":[`, after: `],"failed":${JSON.stringify(failed)},"stats":${JSON.stringify(stats)}}` }
}

function resultJson(row: CrawlRow, pagesJson: string[] = []): string | null {
  const text = resultText(row)
  return 'whole' in text ? text.whole : `${text.before}${pagesJson.join(',')}${text.after}`
}

/** The crawl task: the wire form of a crawl row; `pagesJson` from crawl.store.ts `crawlPagesJson` (lists leave it out). */
export function toCrawlView(row: CrawlRow, webhookStatus: CrawlTask['webhook_status'], pagesJson?: string[]): CrawlTask {
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
    progress: json<CrawlTask['progress']>(row.progress) ?? { pages_done: 0, pages_failed: 0, pages_queued: 0, pages_discovered: 0, limit: request?.limit ?? 0 },
    result: json<CrawlTask['result']>(resultJson(row, pagesJson)),
    error: json<CrawlTask['error']>(row.error),
  }
}

/**
 * The same view as JSON text, in two parts with the stored pages to go between them (joined by
 * commas) when `pages` is true: a finished crawl's pages (tens of MB for a large crawl) are
 * neither parsed, validated nor serialised again on each poll, and can be streamed out as stored
 * (crawl.service.ts). Keys keep the view's order.
 */
export function crawlJsonFrame(row: CrawlRow, webhookStatus: CrawlTask['webhook_status']): { before: string; after: string; pages: boolean } {
  const { result: _stored, error, ...head } = toCrawlView({ ...row, result: null }, webhookStatus)
  const start = `${JSON.stringify(head).slice(0, -1)},"result":`
  const end = `,"error":${JSON.stringify(error)}}`
  const result = resultText(row)
  if ('whole' in result) return { before: `${start}${result.whole ?? 'null'}${end}`, after: '', pages: false }
  return { before: `${start}${result.before}`, after: `${result.after}${end}`, pages: true }
}
