import type { ResearchStep, ResearchTask } from '../features/context/research/research.response.ts'
import { ResearchParams } from '../features/context/research/research.schema.ts'
import { callApi, poll, readEvents, sleep } from './client.ts'
import { type Command, type Flags, type Parsed, positionalsExactly, UsageError, WAIT_FLAGS } from './command.ts'
import { type Connection, resolveConnection } from './config-file.ts'
import { paramsFrom, schemaFlags } from './flags.ts'
import { credits, fields, print, printJson, warn } from './output.ts'
import { type Progress, startProgress } from './progress.ts'

/**
 * `trawl research "<input>"` starts a research job (POST /v1/research) and follows it to the end,
 * its steps on stderr as the events stream sends them (GET /v1/research/{id}/events; polling when
 * the stream cannot be read), then prints the report (or the data of --output-schema);
 * `research get` and `research cancel` act on one already started.
 */

const ENDED = new Set(['completed', 'failed', 'canceled'])

const researchFlags: Flags = {
  ...schemaFlags(ResearchParams, { skip: ['input'] }),
  'no-wait': { kind: 'boolean', help: 'print the research id (with --json, the job) and return at once' },
  ...WAIT_FLAGS,
}

const path = (id: string) => `/v1/research/${encodeURIComponent(id)}`

/** What the bar counts: steps done of the plan, one search per sub-query and the report. */
function progressState(task: Pick<ResearchTask, 'request' | 'steps'>) {
  const plan = task.steps.find((s) => s.kind === 'plan')
  const planned = plan?.queries.length ?? Number(task.request.max_searches ?? 3)
  return { done: task.steps.length, total: planned + 2, detail: stepLine(task.steps.at(-1)) }
}

function stepLine(step: ResearchStep | undefined): string {
  if (!step) return 'planning'
  if (step.kind === 'plan') return `planned ${step.queries.length} sub-quer${step.queries.length === 1 ? 'y' : 'ies'}`
  if (step.kind === 'search') return step.error ? `search failed: “${step.query}”` : `searched “${step.query}”: ${step.pages_read} pages read`
  return step.outcome === 'ok' ? 'report written' : `report attempt ${step.attempt}: ${step.outcome}`
}

function summary(task: ResearchTask): string {
  const used = `${credits(task.credits_used)} used of ${task.credits_reserved} held`
  if (task.error) return `${task.status}: ${task.error.code}: ${task.error.message}; ${used}`
  return `${task.status}: ${task.meta.searches} searches, ${task.meta.pages_read} pages read, ${task.sources.length} sources; ${used}`
}

/** The job as its events stream tells it: each step as it ends, then the final event's whole job (null if the stream ended early). */
async function followEvents(conn: Connection, task: ResearchTask, progress: Progress): Promise<ResearchTask | null> {
  const steps = [...task.steps]
  for await (const e of readEvents(conn, `${path(task.id)}/events`)) {
    if (e.event === 'step') {
      steps.push(e.data as ResearchStep)
      progress.update(progressState({ request: task.request, steps }))
    } else if (ENDED.has(e.event)) return e.data as ResearchTask
  }
  return null
}

async function followPolling(conn: Connection, id: string, progress: Progress): Promise<ResearchTask> {
  for (let polls = 0; ; polls++) {
    const task = await poll<ResearchTask>(conn, path(id))
    if (ENDED.has(task.status)) return task
    progress.update(progressState(task))
    await sleep(polls < 10 ? 500 : 1000)
  }
}

/** Follows the job to its end; Ctrl-C leaves it running and says how to come back to it. */
async function follow(conn: Connection, task: ResearchTask, quiet: boolean): Promise<ResearchTask> {
  const progress = startProgress(`research ${task.id}`, { quiet })
  const interrupted = () => {
    process.stderr.write(
      `\ntrawl: research ${task.id} keeps running: trawl research get ${task.id} --wait follows it, trawl research cancel ${task.id} stops it\n`,
    )
    process.exit(130)
  }
  process.once('SIGINT', interrupted)
  try {
    if (ENDED.has(task.status)) return task
    progress.update(progressState(task))
    // A stream that fails or ends without the final event (the server's 30-minute cap) is polled instead.
    const done = (await followEvents(conn, task, progress).catch(() => null)) ?? (await followPolling(conn, task.id, progress))
    progress.finish(summary(done))
    return done
  } finally {
    process.off('SIGINT', interrupted)
    progress.stop()
  }
}

/** The report's Markdown with its cited sources, or the data of --output-schema as JSON. */
function resultText(task: ResearchTask): string {
  const r = task.result!
  if (r.format === 'json') return JSON.stringify(r.data ?? null, null, 2)
  const cited = new Set(r.cited)
  const sources = task.sources.filter((s) => cited.has(s.n)).map((s) => `[${s.n}] ${s.title ?? s.url} <${s.url}>`)
  return sources.length ? `${(r.report ?? '').trim()}\n\n## Sources\n\n${sources.join('\n')}` : (r.report ?? '')
}

/** The ended job on stdout (the report, the data, or the JSON job); 1 unless completed. */
function printResult(task: ResearchTask, json: boolean): number {
  if (json) printJson(task)
  else if (task.result) print(resultText(task))
  if (task.status === 'completed') return 0
  warn(`research ${task.id} ${task.status}${task.error ? `: ${task.error.code}: ${task.error.message}` : ''}`)
  return 1
}

function describeTask(task: ResearchTask): string {
  return fields([
    ['id', task.id],
    ['status', task.status],
    ['input', task.request.input],
    ['steps', task.steps.map((s) => stepLine(s)).join('; ') || 'none yet'],
    ['sources', task.sources.length],
    ['credits', `${task.credits_used} used of ${task.credits_reserved} held`],
    ['error', task.error ? `${task.error.code}: ${task.error.message}` : undefined],
  ])
}

const quiet = (values: Parsed['values']) => values.quiet === true

export const researchCommands: Command[] = [
  {
    name: 'research',
    summary: "Research a question (POST /v1/research): the operator's model plans sub-queries, Trawl searches and reads them, the model writes a cited report",
    details:
      'Progress on stderr, the Markdown report and its sources on stdout (with --output-schema, the data as JSON); --json prints the job. Ctrl-C stops waiting, not the research. Needs a model on the server (TRAWL_LLM_URL).\nExample: trawl research "burr or blade grinder for espresso" --max-searches 3 > report.md',
    args: '<input...>',
    flags: researchFlags,
    globals: 'client',
    async run({ values, positionals }) {
      const conn = resolveConnection(values)
      if (!positionals.length) throw new UsageError('missing <input...>')
      const body = { ...paramsFrom(researchFlags, values), input: positionals.join(' ') }
      const { body: task } = await callApi<ResearchTask>(conn, 'POST', '/v1/research', body)
      if (values['no-wait']) {
        if (values.json) printJson(task)
        else print(task.id)
        return 0
      }
      return printResult(await follow(conn, task, quiet(values)), values.json === true)
    },
  },
  {
    name: 'research get',
    summary: 'A research job (GET /v1/research/{id}): its steps, or its report once completed; with --wait, follow it to the end',
    args: '<id>',
    flags: { wait: { kind: 'boolean', short: 'w', help: 'wait for the end and print the result like trawl research' }, ...WAIT_FLAGS },
    globals: 'client',
    async run(parsed) {
      const [id] = positionalsExactly(parsed, ['<id>']) as [string]
      const conn = resolveConnection(parsed.values)
      const json = parsed.values.json === true
      const task = await poll<ResearchTask>(conn, path(id))
      if (parsed.values.wait) return printResult(await follow(conn, task, quiet(parsed.values)), json)
      if (json) printJson(task)
      else print(task.result ? resultText(task) : describeTask(task))
      return 0
    },
  },
  {
    name: 'research cancel',
    summary: 'Cancel a research job (DELETE /v1/research/{id}): a queued one is refunded, a running one stops within a second',
    args: '<id>',
    flags: {},
    globals: 'client',
    async run(parsed) {
      const [id] = positionalsExactly(parsed, ['<id>']) as [string]
      const { body: task } = await callApi<ResearchTask>(resolveConnection(parsed.values), 'DELETE', path(id))
      if (parsed.values.json) printJson(task)
      else if (ENDED.has(task.status)) print(`research ${task.id}: ${task.status}; ${credits(task.credits_used)} used of ${task.credits_reserved} held`)
      else print(`research ${task.id}: cancel requested; it stops within a second and is refunded what it has not used`)
      return 0
    },
  },
]
