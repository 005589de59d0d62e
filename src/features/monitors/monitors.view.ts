import { toCredits } from '../../billing/money.ts'
import type { MonitorRow, MonitorRunRow } from '../../store/schema.ts'
import type { WebhookStatus } from '../../webhooks/webhooks.service.ts'
import type { MonitorResponse, MonitorRun } from './monitors.response.ts'

const iso = (ms: number) => new Date(ms).toISOString()
const isoOrNull = (ms: number | null) => (ms == null ? null : iso(ms))
const parsed = <T>(json: string | null): T | null => (json == null ? null : (JSON.parse(json) as T))

/** A monitor without a name is called by its query or its url. */
export function monitorName(row: Pick<MonitorRow, 'name' | 'request'>): string {
  if (row.name) return row.name
  const request = JSON.parse(row.request) as { q?: string; url?: string }
  return (request.q ?? request.url ?? '').slice(0, 200)
}

/**
 * A monitor's wire form. The stored last_status is the last run's outcome; a paused monitor shows `paused`
 * whatever the reason (10 failures, a revoked key, PATCH), and shows the last run's outcome again
 * once resumed. `webhookFailed`: the newest monitor.results delivery failed after all attempts.
 */
export function toMonitorView(row: MonitorRow, webhookFailed = false): MonitorResponse {
  const paused = row.status === 'paused'
  const lastStatus = paused ? 'paused' : row.last_status === 'ok' && webhookFailed ? 'webhook_failed' : row.last_status
  return {
    id: row.id,
    name: monitorName(row),
    endpoint: row.endpoint,
    request: JSON.parse(row.request),
    metadata: parsed(row.metadata),
    interval_seconds: row.interval_seconds,
    webhook_url: row.webhook_url,
    active: !paused,
    next_run_at: paused ? null : iso(row.run_at),
    last_run_at: isoOrNull(row.last_run_at),
    last_status: lastStatus,
    last_error: row.last_error,
    last_new_results: row.last_new_results,
    runs: row.runs,
    consecutive_failures: row.consecutive_failures,
    credits_used: toCredits(row.credits_used_mc),
    created_at: iso(row.created_at),
  }
}

/** One run-history record; results are shown for 24 hours, whether or not the pruner has cleared them yet. */
export function toRunView(row: MonitorRunRow, webhook: WebhookStatus | null, now: number): MonitorRun {
  const expired = row.status === 'ok' && (row.results === null || row.expires_at <= now)
  return {
    id: row.id,
    status: row.status,
    first_run: row.first_run === 1,
    due_at: iso(row.due_at),
    started_at: iso(row.started_at),
    completed_at: iso(row.completed_at),
    new_results: row.new_count,
    results: expired ? null : parsed<MonitorRun['results']>(row.results),
    results_expired: expired,
    credits_used: toCredits(row.credits_used_mc),
    error: parsed<MonitorRun['error']>(row.error),
    webhook_status: webhook,
  }
}
