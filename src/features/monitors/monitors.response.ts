import { z } from 'zod'
import { ErrorObject } from '../../http/error-schema.ts'

/** A monitor, its run history and the monitor.results body, for the OpenAPI document. */

const iso = z.string().describe('ISO 8601')

export const MonitorResponse = z.object({
  id: z.string(),
  name: z.string().describe('as sent, or the query / url when none was'),
  endpoint: z.enum(['search', 'news', 'webpage']),
  request: z
    .record(z.string(), z.unknown())
    .describe(
      'search and news: the saved search as the realtime endpoint normalises it (engine, q, country, language, num = top results watched, and the options sent); webpage: { url }',
    ),
  metadata: z.record(z.string(), z.unknown()).nullable().describe('echoed in every monitor.results webhook'),
  interval_seconds: z.number().int(),
  webhook_url: z.string().nullable().describe('null: the account webhook URL receives monitor.results'),
  active: z.boolean(),
  next_run_at: iso.nullable().describe('when the next run is due; null while paused'),
  last_run_at: iso.nullable(),
  last_status: z
    .enum(['ok', 'error', 'webhook_failed', 'paused'])
    .nullable()
    .describe('null before the first run; webhook_failed: the last run succeeded but the newest monitor.results delivery failed after all 8 attempts'),
  last_error: z.string().nullable(),
  last_new_results: z.number().int(),
  runs: z.number().int().describe('runs recorded, failed ones included'),
  consecutive_failures: z.number().int().describe('10 in a row pause the monitor'),
  credits_used: z.number().describe('all runs together'),
  created_at: iso,
})
export type MonitorResponse = z.infer<typeof MonitorResponse>

export const MonitorList = z.object({ monitors: z.array(MonitorResponse) })

export const MonitorDeleted = z.object({ id: z.string(), deleted: z.literal(true) })

const resultItems = z
  .array(z.record(z.string(), z.unknown()))
  .describe(
    'search: organic results as /v1/search returns them; news: news items as /v1/news returns them; webpage: one { change: new | changed, url, title, markdown }',
  )

export const MonitorRun = z.object({
  id: z.string().describe('<monitor id>:<due time in ms>; also the X-Trawl-Delivery id of its webhook'),
  status: z.enum(['ok', 'error']),
  first_run: z.boolean().describe('the first run of the saved search (or since it changed): everything found is new'),
  due_at: iso,
  started_at: iso,
  completed_at: iso,
  new_results: z.number().int(),
  results: resultItems.nullable().describe('the new results; null after 24 hours (the counts stay) and for failed runs'),
  results_expired: z.boolean(),
  credits_used: z.number(),
  error: ErrorObject.nullable(),
  webhook_status: z.enum(['pending', 'delivered', 'failed']).nullable().describe('null when the run sent no webhook (nothing new, or no URL)'),
})
export type MonitorRun = z.infer<typeof MonitorRun>

export const MonitorRuns = z.object({
  monitor_id: z.string(),
  runs: z.array(MonitorRun).describe('newest first'),
  next_before: iso.nullable().describe('pass as before= for older runs; null when there are none'),
})
export type MonitorRuns = z.infer<typeof MonitorRuns>

/** The monitor.results webhook body (sent only when a run found something new). */
export const MonitorResultsEvent = z.object({
  event: z.literal('monitor.results'),
  id: z.string().describe('the run id; equals X-Trawl-Delivery on every retry'),
  monitor_id: z.string(),
  name: z.string(),
  endpoint: z.enum(['search', 'news', 'webpage']),
  request: z.record(z.string(), z.unknown()),
  metadata: z.record(z.string(), z.unknown()).nullable().describe("the monitor's metadata, echoed"),
  first_run: z.boolean(),
  new_results: z.number().int(),
  results: resultItems,
  credits_used: z.number(),
  due_at: iso,
  created_at: iso.describe('when the run completed'),
  runs_url: z.string().describe('{base_url}/v1/monitors/<id>/runs'),
})
export type MonitorResultsEvent = z.infer<typeof MonitorResultsEvent>
