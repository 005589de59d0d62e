import type { MonitorResponse as Monitor, MonitorRuns, MonitorRun as Run } from '../features/monitors/monitors.response.ts'
import { MonitorParams, MonitorPatch, MonitorRunsQuery } from '../features/monitors/monitors.schema.ts'
import { callApi } from './client.ts'
import { type Command, type Flags, type Parsed, positionalsExactly, UsageError } from './command.ts'
import { resolveConnection } from './config-file.ts'
import { paramsFrom, schemaFlags } from './flags.ts'
import { fields, print, printJson, table } from './output.ts'

/** `trawl monitor create|list|show|update|runs|run|pause|resume|delete`: /v1/monitors. */

const NAMED_INTERVALS: Record<number, string> = { 3600: 'hourly', 86400: 'daily', 604800: 'weekly' }
const every = (seconds: number) => NAMED_INTERVALS[seconds] ?? `every ${seconds} s`

function describeMonitor(m: Monitor): string {
  const { endpoint: _e, ...request } = m.request
  return fields([
    ['id', m.id],
    ['name', m.name],
    ['endpoint', m.endpoint],
    ['request', request],
    ['interval', `${every(m.interval_seconds)} (${m.interval_seconds} s)`],
    ['state', m.active ? 'active' : 'paused'],
    ['next run', m.next_run_at],
    ['last run', m.last_run_at],
    ['last status', m.last_status],
    ['last error', m.last_error ?? undefined],
    ['last new results', m.last_new_results],
    ['runs', `${m.runs} (${m.consecutive_failures} failed in a row)`],
    ['credits used', m.credits_used],
    ['webhook', m.webhook_url ?? 'account webhook'],
    ['metadata', m.metadata ?? undefined],
    ['created', m.created_at],
  ])
}

function describeRun(run: Run): string {
  const head = `${run.due_at}  ${run.status}  ${run.new_results} new${run.first_run ? ' (first run)' : ''}  ${run.credits_used} credits`
  if (run.error) return `${head}\n  ${run.error.code}: ${run.error.message}`
  if (run.results_expired) return `${head}\n  (results expired after 24 hours)`
  const items = (run.results ?? []).map((r) => {
    const title = (r.title as string | undefined) ?? (r.url as string | undefined) ?? ''
    const link = (r.link as string | undefined) ?? (r.url as string | undefined) ?? ''
    return `  - ${r.change ? `${r.change}: ` : ''}[${title}](${link})`
  })
  return [head, ...items].join('\n')
}

const monitorPath = (id: string) => `/v1/monitors/${encodeURIComponent(id)}`

/** A command on one monitor by id: prints the monitor it gets back. */
function onMonitor(name: string, summary: string, method: 'GET' | 'POST' | 'PATCH', suffix: string, body?: unknown): Command {
  return {
    name: `monitor ${name}`,
    summary,
    args: '<id>',
    flags: {},
    globals: 'client',
    async run(parsed) {
      const [id] = positionalsExactly(parsed, ['<id>']) as [string]
      const { body: monitor } = await callApi<Monitor>(resolveConnection(parsed.values), method, `${monitorPath(id)}${suffix}`, body)
      if (parsed.values.json) printJson(monitor)
      else print(describeMonitor(monitor))
      return 0
    },
  }
}

const createFlags: Flags = schemaFlags(MonitorParams, { skip: ['q', 'url'] })
const updateFlags: Flags = schemaFlags(MonitorPatch, { skip: ['url'] })
const runsFlags: Flags = schemaFlags(MonitorRunsQuery)

/** The query of a search or news monitor, or the page of a webpage monitor. */
function savedTarget(parsed: Parsed, endpoint: unknown): Record<string, string> {
  const words = parsed.positionals
  if (!words.length) throw new UsageError(endpoint === 'webpage' ? 'missing <url>' : 'missing <query...>')
  if (endpoint === 'webpage') {
    if (words.length > 1) throw new UsageError(`unexpected argument "${words[1]}": one URL`)
    return { url: words[0] as string }
  }
  return { q: words.join(' ') }
}

export const monitorCommands: Command[] = [
  {
    name: 'monitor create',
    summary: 'Create a monitor (POST /v1/monitors): a saved search or news query, or a watched page',
    details:
      'The positional argument is the query, or the page URL with --endpoint webpage. The first run is due at once.\nExamples: trawl monitor create "acme launch" --interval hourly\n          trawl monitor create https://example.com/pricing --endpoint webpage',
    args: '<query...|url>',
    flags: createFlags,
    globals: 'client',
    async run(parsed) {
      const params = paramsFrom(createFlags, parsed.values)
      const body = { ...params, ...savedTarget(parsed, params.endpoint) }
      const { body: monitor } = await callApi<Monitor>(resolveConnection(parsed.values), 'POST', '/v1/monitors', body)
      if (parsed.values.json) printJson(monitor)
      else print(describeMonitor(monitor))
      return 0
    },
  },
  {
    name: 'monitor list',
    summary: "The account's monitors (GET /v1/monitors)",
    flags: {},
    globals: 'client',
    async run(parsed) {
      positionalsExactly(parsed, [])
      const { body } = await callApi<{ monitors: Monitor[] }>(resolveConnection(parsed.values), 'GET', '/v1/monitors')
      if (parsed.values.json) printJson(body)
      else if (!body.monitors.length) print('No monitors.')
      else {
        const rows = body.monitors.map((m) => [
          m.id,
          m.name,
          m.endpoint,
          m.active ? 'active' : 'paused',
          every(m.interval_seconds),
          m.next_run_at,
          m.last_status,
        ])
        print(table(['id', 'name', 'endpoint', 'state', 'interval', 'next run', 'last status'], rows))
      }
      return 0
    },
  },
  onMonitor('show', 'A monitor (GET /v1/monitors/{id})', 'GET', ''),
  {
    name: 'monitor update',
    summary: 'Change a monitor (PATCH /v1/monitors/{id}); a changed saved search starts a new baseline',
    args: '<id>',
    flags: updateFlags,
    globals: 'client',
    async run(parsed) {
      const [id] = positionalsExactly(parsed, ['<id>']) as [string]
      const params = paramsFrom(updateFlags, parsed.values)
      if (!Object.keys(params).length) throw new UsageError('nothing to change: pass at least one option')
      const { body: monitor } = await callApi<Monitor>(resolveConnection(parsed.values), 'PATCH', monitorPath(id), params)
      if (parsed.values.json) printJson(monitor)
      else print(describeMonitor(monitor))
      return 0
    },
  },
  {
    name: 'monitor runs',
    summary: 'Run history, newest first (GET /v1/monitors/{id}/runs); new results are kept 24 hours',
    args: '<id>',
    flags: runsFlags,
    globals: 'client',
    async run(parsed) {
      const [id] = positionalsExactly(parsed, ['<id>']) as [string]
      const query = new URLSearchParams(Object.entries(paramsFrom(runsFlags, parsed.values)).map(([k, v]) => [k, String(v)])).toString()
      const { body } = await callApi<MonitorRuns>(resolveConnection(parsed.values), 'GET', `${monitorPath(id)}/runs${query ? `?${query}` : ''}`)
      if (parsed.values.json) printJson(body)
      else if (!body.runs.length) print('No runs yet.')
      else print(body.runs.map(describeRun).join('\n\n') + (body.next_before ? `\n\nolder runs: --before ${body.next_before}` : ''))
      return 0
    },
  },
  onMonitor('run', 'Run a monitor now (POST /v1/monitors/{id}/run): due at the next poll; a paused monitor is refused', 'POST', '/run'),
  onMonitor('pause', 'Pause a monitor (PATCH active=false)', 'PATCH', '', { active: false }),
  onMonitor('resume', 'Resume a paused monitor (PATCH active=true): runs at once, failures count from zero', 'PATCH', '', { active: true }),
  {
    name: 'monitor delete',
    summary: 'Delete a monitor with its run history (DELETE /v1/monitors/{id})',
    args: '<id>',
    flags: {},
    globals: 'client',
    async run(parsed) {
      const [id] = positionalsExactly(parsed, ['<id>']) as [string]
      const { body } = await callApi(resolveConnection(parsed.values), 'DELETE', monitorPath(id))
      if (parsed.values.json) printJson(body)
      else print(`monitor ${id} deleted`)
      return 0
    },
  },
]
