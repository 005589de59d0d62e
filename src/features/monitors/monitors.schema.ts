import { z } from 'zod'
import { unknownParameterMessage } from '../../http/param-aliases.ts'
import { webhookUrl } from '../../params/job.params.ts'
import * as p from '../../params/search.params.ts'
import { SearchParams } from '../search/search.schema.ts'
import { VERTICAL_SPECS } from '../search/verticals/vertical.specs.ts'

/** The POST /v1/monitors body, exactly its parameters (docs/monitors.md). */

export const MAX_MONITORS = 100
export const INTERVALS = { hourly: 3600, daily: 86_400, weekly: 604_800 } as const
export const MIN_INTERVAL_SECONDS = 3600
export const MAX_INTERVAL_SECONDS = 2_592_000
export const MAX_METADATA_BYTES = 2048

/** A saved search's options: every one may be cleared (PATCH null) back to its default. */
const SEARCH_OPTIONS = ['country', 'language', 'location', 'time', 'num', 'device', 'safe', 'include_domains', 'exclude_domains', 'engine'] as const

/** The saved-search fields (search and news) and the watched url (webpage). */
export const SAVED_SEARCH_FIELDS = ['q', ...SEARCH_OPTIONS] as const

const endpoint = z.enum(['search', 'news', 'webpage'], { error: 'endpoint must be search, news or webpage' })
const interval = z.enum(['hourly', 'daily', 'weekly'], { error: 'interval must be hourly, daily or weekly' })
const intervalSeconds = z
  .number({ error: 'interval_seconds must be an integer between 3,600 and 2,592,000' })
  .int('interval_seconds must be an integer between 3,600 and 2,592,000')
  .min(MIN_INTERVAL_SECONDS, 'interval_seconds must be between 3,600 and 2,592,000')
  .max(MAX_INTERVAL_SECONDS, 'interval_seconds must be between 3,600 and 2,592,000')
const num = p.intBetween('num', 1, 100)
const name = z.string({ error: 'name must be a string' }).trim().min(1, 'name must not be empty').max(200, 'name must be at most 200 characters')
const url = z.string({ error: 'url must be a URL string' }).trim().min(1, 'url must not be empty').max(8192, 'url must be at most 8,192 characters')
const metadata = z
  .record(z.string(), z.unknown(), { error: 'metadata must be a JSON object' })
  .refine((m) => Buffer.byteLength(JSON.stringify(m)) <= MAX_METADATA_BYTES, 'metadata must be at most 2 KB (2,048 bytes) as JSON')

const shape = {
  q: p.q.describe('search and news monitors: the query (up to 2,048 characters)'),
  url: url.describe('webpage monitors: the public http(s) page to watch'),
  endpoint: endpoint.describe('search (default), news or webpage'),
  interval: interval.describe('hourly, daily (default) or weekly'),
  interval_seconds: intervalSeconds.describe('3,600 to 2,592,000; overrides interval'),
  webhook_url: webhookUrl.describe('receives the signed monitor.results event; default: the account webhook'),
  name: name.describe('up to 200 characters; default: q or url'),
  active: p.flag('active').describe('false creates it paused; default true'),
  metadata: metadata.describe('any JSON object up to 2 KB; echoed on the monitor and in its webhooks'),
  country: p.country.describe('two-letter ISO code; default us'),
  language: p.language.describe('language code, optional region (en, pt-BR); default en'),
  location: p.location.describe('canonical location text; a trailing country name also sets country'),
  time: p.time.describe('hour, day, week, month or year'),
  num: num.describe('1 to 100 (default 10): watch only the top num results'),
  device: p.device.describe('search monitors: desktop (default) or mobile'),
  safe: p.safe.describe('search monitors: off (default) or active'),
  include_domains: p.domainList('include_domains').describe('up to 20 domains, path prefixes or TLDs (.gov) to keep'),
  exclude_domains: p.domainList('exclude_domains').describe('up to 20 domains, path prefixes or TLDs to drop'),
  engine: p.engine.describe('a provider name, a list of them, auto, or consensus (search monitors only); default the primary engine'),
}

type Shape = typeof shape
const optional = <K extends keyof Shape>(keys: readonly K[]) =>
  Object.fromEntries(keys.map((k) => [k, shape[k].optional()])) as { [P in K]: z.ZodOptional<Shape[P]> }
const nullable = <K extends keyof Shape>(keys: readonly K[]) =>
  Object.fromEntries(keys.map((k) => [k, shape[k].nullable().optional()])) as { [P in K]: z.ZodOptional<z.ZodNullable<Shape[P]>> }

const ALL = Object.keys(shape) as (keyof Shape)[]

export const MonitorParams = z.strictObject({
  ...optional(ALL),
  metadata: metadata
    .nullable()
    .optional()
    .describe(shape.metadata.description ?? ''),
})
export type MonitorParams = z.infer<typeof MonitorParams>

/** PATCH: any field of POST; null clears an optional one (back to its default). */
const CLEARABLE = ['name', 'metadata', 'webhook_url', ...SEARCH_OPTIONS] as const
const REQUIRED_IF_SENT = ALL.filter((k) => !(CLEARABLE as readonly string[]).includes(k))
export const MonitorPatch = z.strictObject({ ...optional(REQUIRED_IF_SENT), ...nullable(CLEARABLE) })
export type MonitorPatch = z.infer<typeof MonitorPatch>

export const MonitorRunsQuery = z.strictObject({
  limit: p.intBetween('limit', 1, 100).optional().describe('runs to return, newest first: 1 to 100 (default 20)'),
  before: z.iso
    .datetime({ offset: true, error: 'before must be an ISO 8601 time, e.g. 2026-11-24T10:00:00Z' })
    .optional()
    .describe('only runs due before this time (page back with the last due_at seen)'),
})
export type MonitorRunsQuery = z.infer<typeof MonitorRunsQuery>

/** Search parameters a monitor does not take (tbs, page, include_content…): a 400 that says so. */
const SEARCH_PARAMS = new Set([...Object.keys(SearchParams.shape), ...Object.keys(VERTICAL_SPECS.news.schema.shape)])

export function explainNonMonitorParam(name: string): string {
  if (SEARCH_PARAMS.has(name)) {
    return `${name} is not a monitor parameter; a monitor's saved search takes only ${SAVED_SEARCH_FIELDS.join(', ')} (and url for webpage monitors)`
  }
  return unknownParameterMessage(name)
}
