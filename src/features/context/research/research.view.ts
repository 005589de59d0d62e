import { toCredits } from '../../../billing/money.ts'
import type { ResearchJobRow } from '../../../store/schema.ts'
import type { ResearchTask } from './research.response.ts'

const iso = (ms: number | null) => (ms == null ? null : new Date(ms).toISOString())
const json = <T>(text: string | null): T | null => (text ? (JSON.parse(text) as T) : null)

/** The research task: the wire form of a job row. */
export function toResearchView(row: ResearchJobRow, webhookStatus: ResearchTask['webhook_status']): ResearchTask {
  return {
    id: row.id,
    kind: 'research',
    // A leased row whose worker is gone still reads as running until another worker takes it.
    status: row.status,
    created_at: iso(row.created_at),
    started_at: iso(row.started_at),
    completed_at: iso(row.completed_at),
    request: JSON.parse(row.request) as Record<string, unknown>,
    credits_reserved: toCredits(row.credits_reserved_mc),
    credits_used: toCredits(row.credits_used_mc),
    webhook_status: webhookStatus,
    steps: JSON.parse(row.steps) as ResearchTask['steps'],
    sources: JSON.parse(row.sources) as ResearchTask['sources'],
    result: json<ResearchTask['result']>(row.result),
    meta: JSON.parse(row.meta) as ResearchTask['meta'],
    error: json<ResearchTask['error']>(row.error),
  }
}

/** One server-sent event: `data` is one line of JSON. */
export const sseEvent = (event: string, data: unknown, id?: number) =>
  `${id === undefined ? '' : `id: ${id}\n`}event: ${event}\ndata: ${JSON.stringify(data)}\n\n`
