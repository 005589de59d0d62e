import { readFileSync } from 'node:fs'
import type { z } from 'zod'
import type { BatchJob as Job } from '../features/batches/batches.response.ts'
import { WebpageParams } from '../features/reading/reading.schema.ts'
import { SearchParams } from '../features/search/search.schema.ts'
import { VERTICAL_SPECS } from '../features/search/verticals/vertical.specs.ts'
import type { ErrorEnvelope } from '../http/error-schema.ts'
import { nestUnder } from '../text/markdown-outline.ts'
import { callApi, poll, sleep } from './client.ts'
import type { Command, Flags, Parsed } from './command.ts'
import { UsageError, WAIT_FLAGS } from './command.ts'
import { type Connection, resolveConnection } from './config-file.ts'
import { paramsFrom, schemaFlags } from './flags.ts'
import { credits, pageContent, print, printJson, table, warn } from './output.ts'
import { startProgress } from './progress.ts'
import { renderAutocomplete, renderLens } from './search.commands.ts'

/**
 * `trawl batch <endpoint>`: queue many requests of one endpoint at half price (POST /v1/batches,
 * 100 per call, so larger files become several batches), wait for every job with progress on
 * stderr, and print each result in request order. `trawl batch status` reads jobs by id.
 */

interface Endpoint {
  schema: z.ZodObject
  /** What one plain line of a --file (or a positional argument) is. */
  param: 'q' | 'url' | 'place_id'
  /** The realtime endpoint answers Markdown, so the jobs are asked for it unless --json. */
  markdown: boolean
}

/** The endpoints a batch may target (docs/batches.md) (BATCH_ENDPOINTS; a test keeps the two equal). */
export const BATCH_TARGETS: Record<string, Endpoint> = {
  search: { schema: SearchParams, param: 'q', markdown: true },
  images: { schema: VERTICAL_SPECS.images.schema, param: 'q', markdown: true },
  videos: { schema: VERTICAL_SPECS.videos.schema, param: 'q', markdown: true },
  news: { schema: VERTICAL_SPECS.news.schema, param: 'q', markdown: true },
  maps: { schema: VERTICAL_SPECS.maps.schema, param: 'q', markdown: true },
  places: { schema: VERTICAL_SPECS.places.schema, param: 'q', markdown: true },
  reviews: { schema: VERTICAL_SPECS.reviews.schema, param: 'place_id', markdown: true },
  shopping: { schema: VERTICAL_SPECS.shopping.schema, param: 'q', markdown: true },
  scholar: { schema: VERTICAL_SPECS.scholar.schema, param: 'q', markdown: true },
  patents: { schema: VERTICAL_SPECS.patents.schema, param: 'q', markdown: true },
  autocomplete: { schema: VERTICAL_SPECS.autocomplete.schema, param: 'q', markdown: false },
  lens: { schema: VERTICAL_SPECS.lens.schema, param: 'url', markdown: false },
  webpage: { schema: WebpageParams, param: 'url', markdown: false },
}

const MAX_PER_BATCH = 100

/** An entry of POST /v1/batches: a queued job, or the error the realtime endpoint answered. */
type EntryError = z.infer<typeof ErrorEnvelope>
type Entry = Job | EntryError

const isError = (e: Entry): e is EntryError => 'error' in e && !('id' in e)
const ended = (job: Job) => job.status === 'done' || job.status === 'failed'

/** Requests from --file (text: one per line; JSON lines: one request object per line) and the positional arguments. */
function readRequests(file: string | undefined, positionals: string[], param: Endpoint['param']): Record<string, unknown>[] {
  const requests: Record<string, unknown>[] = positionals.map((p) => ({ [param]: p }))
  if (file === undefined) return requests
  let text: string
  try {
    text = readFileSync(file === '-' ? 0 : file, 'utf8')
  } catch (err) {
    throw new UsageError(`cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`)
  }
  for (const [i, raw] of text.split(/\r?\n/).entries()) {
    const line = raw.trim()
    if (!line || line.startsWith('#')) continue
    if (!line.startsWith('{')) {
      requests.push({ [param]: line })
      continue
    }
    let parsed: unknown
    try {
      parsed = JSON.parse(line)
    } catch {
      throw new UsageError(`${file}:${i + 1}: not valid JSON`)
    }
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new UsageError(`${file}:${i + 1}: must be a JSON object`)
    requests.push(parsed as Record<string, unknown>)
  }
  return requests
}

async function submit(conn: Connection, endpoint: string, requests: Record<string, unknown>[], webhookUrl: unknown): Promise<Entry[]> {
  const entries: Entry[] = []
  for (let i = 0; i < requests.length; i += MAX_PER_BATCH) {
    const body = { endpoint, requests: requests.slice(i, i + MAX_PER_BATCH), ...(webhookUrl !== undefined && { webhook_url: webhookUrl }) }
    const { body: created } = await callApi<{ batches: Entry[] }>(conn, 'POST', '/v1/batches', body)
    entries.push(...created.batches)
  }
  return entries
}

/** Polls the unfinished jobs (8 at a time; GET /v1/batches/{id} is free and not rate limited) until every one has ended. */
async function waitForJobs(conn: Connection, entries: Entry[], quiet: boolean): Promise<Entry[]> {
  const jobs = entries.filter((e): e is Job => !isError(e))
  const byId = new Map(jobs.map((j) => [j.id, j]))
  const progress = startProgress(`batch (${jobs.length} job${jobs.length === 1 ? '' : 's'})`, { quiet })
  const count = () => {
    const all = [...byId.values()]
    return { done: all.filter(ended).length, failed: all.filter((j) => j.status === 'failed').length }
  }
  const interrupted = () => {
    process.stderr.write(`\ntrawl: the jobs keep running: trawl batch status ${jobs.map((j) => j.id).join(' ')} --wait\n`)
    process.exit(130)
  }
  process.once('SIGINT', interrupted)
  try {
    for (let polls = 0; ; polls++) {
      const pending = [...byId.values()].filter((j) => !ended(j))
      for (let i = 0; i < pending.length; i += 8) {
        const read = await Promise.all(pending.slice(i, i + 8).map((j) => poll<Job>(conn, `/v1/batches/${encodeURIComponent(j.id)}`)))
        for (const job of read) byId.set(job.id, job)
      }
      const { done, failed } = count()
      if (done === byId.size) {
        const used = [...byId.values()].reduce((sum, j) => sum + j.credits_used, 0)
        progress.finish(`${done} done, ${failed} failed; ${credits(Math.round(used * 1000) / 1000)} used`)
        break
      }
      progress.update({ done, total: byId.size, detail: `jobs ended (${failed} failed)` })
      await sleep(Math.min(3000, 1000 + polls * 250))
    }
  } finally {
    process.off('SIGINT', interrupted)
    progress.stop()
  }
  return entries.map((e) => (isError(e) ? e : (byId.get(e.id) as Job)))
}

function renderResult(endpoint: string, result: unknown): string {
  if (typeof result === 'string') return result.trim()
  if (endpoint === 'autocomplete') return renderAutocomplete(result)
  if (endpoint === 'lens') return renderLens(result)
  if (endpoint === 'webpage') {
    // Under this entry's `## N. url` heading: the page's own headings (its `# Title` first) go below it.
    const page = result as { url: string; markdown?: string }
    return page.markdown !== undefined ? nestUnder(page.markdown.trim(), 2) : pageContent(page).trim()
  }
  return `\`\`\`json\n${JSON.stringify(result, null, 2)}\n\`\`\``
}

/** Every entry in request order: a heading, then the result (or the error, also on stderr). 1 when any failed. */
function printEntries(endpoint: string, entries: Entry[], labels: string[], json: boolean): number {
  let failures = 0
  entries.forEach((entry, i) => {
    const error = isError(entry) ? entry.error : entry.status === 'failed' ? entry.error : null
    if (error) {
      failures++
      warn(`request ${i + 1} (${labels[i]}): ${error.code}: ${error.message}`)
    }
  })
  if (json) printJson(entries)
  else {
    const sections = entries.map((entry, i) => {
      const head = `## ${i + 1}. ${labels[i]}`
      if (isError(entry) || entry.status === 'failed') {
        const e = isError(entry) ? entry.error : entry.error
        return `${head}\n\nFailed: ${e?.code}: ${e?.message}\n`
      }
      if (!ended(entry)) return `${head}\n\nJob ${entry.id}: ${entry.status}\n`
      return `${head}\n\n${renderResult(endpoint, entry.result)}\n`
    })
    print(sections.join('\n'))
  }
  return failures ? 1 : 0
}

function batchCommand(endpoint: string, target: Endpoint): Command {
  const requestFlags = schemaFlags(target.schema, { skip: [target.param] })
  const flags: Flags = {
    file: {
      kind: 'string',
      short: 'f',
      placeholder: 'FILE',
      help: `requests, one per line: plain text (the ${target.param}) or a JSON object per line (.jsonl); - reads stdin`,
    },
    ...requestFlags,
    'webhook-url': {
      kind: 'string',
      param: 'webhook_url',
      placeholder: 'URL',
      help: 'receives one signed batch.completed per job (default: the account webhook)',
    },
    'no-wait': { kind: 'boolean', help: 'print the job ids (with --json, the 202 entries) and return at once' },
    ...WAIT_FLAGS,
  }
  return {
    name: `batch ${endpoint}`,
    summary: `Queue ${endpoint} requests at half price (POST /v1/batches) and print every result when done`,
    details: `Each positional argument and each line of --file is one request; the options apply to every request (a JSON line's own fields win). More than ${MAX_PER_BATCH} requests are sent as several batches.\nExample: trawl batch ${endpoint} --file ${target.param === 'q' ? 'queries.txt' : 'urls.txt'}`,
    args: `[<${target.param}>...]`,
    flags,
    globals: 'client',
    async run({ values, positionals }: Parsed) {
      const conn = resolveConnection(values)
      const requests = readRequests(typeof values.file === 'string' ? values.file : undefined, positionals, target.param)
      if (!requests.length) throw new UsageError(`no requests: pass --file FILE or <${target.param}> arguments`)
      const json = values.json === true
      const shared = paramsFrom(requestFlags, values)
      const merged = requests.map((r) => {
        const request = { ...shared, ...r }
        if (target.markdown && !json && request.format === undefined && request.fields === undefined) request.format = 'markdown'
        return request
      })
      const entries = await submit(conn, endpoint, merged, values['webhook-url'])
      const labels = merged.map((r, i) => String(r[target.param] ?? r.q ?? r.url ?? r.place_id ?? r.cid ?? r.fid ?? `request ${i + 1}`))
      if (values['no-wait']) {
        if (json) printJson(entries)
        else print(entries.map((e) => (isError(e) ? '-' : e.id)).join('\n'))
        for (const [i, e] of entries.entries()) if (isError(e)) warn(`request ${i + 1} (${labels[i]}): ${e.error.code}: ${e.error.message}`)
        return entries.some(isError) ? 1 : 0
      }
      const final = await waitForJobs(conn, entries, values.quiet === true)
      return printEntries(endpoint, final, labels, json)
    },
  }
}

export const batchCommands: Command[] = [
  ...Object.entries(BATCH_TARGETS).map(([endpoint, target]) => batchCommand(endpoint, target)),
  {
    name: 'batch status',
    summary: 'Batch jobs by id (GET /v1/batches/{id}, free); with --wait, wait for them and print their results',
    args: '<job-id...>',
    flags: { wait: { kind: 'boolean', short: 'w', help: 'wait until every job has ended, then print the results' }, ...WAIT_FLAGS },
    globals: 'client',
    async run({ values, positionals }) {
      if (!positionals.length) throw new UsageError('missing <job-id...>')
      const conn = resolveConnection(values)
      const json = values.json === true
      let jobs: Entry[] = await Promise.all(positionals.map((id) => poll<Job>(conn, `/v1/batches/${encodeURIComponent(id)}`)))
      if (values.wait) {
        jobs = await waitForJobs(conn, jobs, values.quiet === true)
        const endpoint = (jobs[0] as Job).endpoint.replace('/v1/', '')
        return printEntries(endpoint, jobs, positionals, json)
      }
      if (json) printJson(jobs)
      else {
        const rows = (jobs as Job[]).map((j) => [
          j.id,
          j.endpoint,
          j.status,
          j.credits_used,
          j.completed_at,
          j.error ? `${j.error.code}: ${j.error.message}` : '',
        ])
        print(table(['id', 'endpoint', 'status', 'credits', 'completed', 'error'], rows))
      }
      return 0
    },
  },
]
