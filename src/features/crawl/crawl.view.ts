import type { CrawlRow } from '../../store/schema.ts'
import { toCredits } from '../credits/money.ts'

const iso = (ms: number | null) => (ms == null ? null : new Date(ms).toISOString())
const json = <T>(text: string | null): T | null => (text ? (JSON.parse(text) as T) : null)

/** SPEC "Crawl task": the wire form of a crawl row. */
export function toCrawlView(row: CrawlRow, webhookStatus: string | null) {
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
    result: json(row.result),
    error: json(row.error),
  }
}

export type CrawlView = ReturnType<typeof toCrawlView>
