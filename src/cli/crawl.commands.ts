import type { CrawlTask } from '../features/crawl/crawl.response.ts'
import { CrawlParams } from '../features/crawl/crawl.schema.ts'
import { callApi, poll, sleep } from './client.ts'
import { type Command, type Flags, type Parsed, positionalsExactly, UsageError, WAIT_FLAGS } from './command.ts'
import { type Connection, resolveConnection } from './config-file.ts'
import { paramsFrom, schemaFlags } from './flags.ts'
import { credits, fields, pagesAsMarkdown, print, printJson, warn } from './output.ts'
import { startProgress } from './progress.ts'

/**
 * `trawl crawl <url>` starts a crawl and follows it to the end (progress on stderr), then prints
 * the pages as Markdown; `crawl status` and `crawl cancel` act on one already started.
 */

const ENDED = new Set(['completed', 'failed', 'canceled'])

const crawlFlags: Flags = {
  ...schemaFlags(CrawlParams, { skip: ['url'] }),
  'no-wait': { kind: 'boolean', help: 'print the crawl id (with --json, the task) and return at once' },
  ...WAIT_FLAGS,
}

const path = (id: string) => `/v1/crawl/${encodeURIComponent(id)}`

function summary(task: CrawlTask): string {
  if (task.status === 'failed') return `failed: ${task.error?.code}: ${task.error?.message}; ${credits(task.credits_used)} used`
  const stats = task.result?.stats
  const pages = stats ? `${stats.pages} pages read, ${stats.failed} failed in ${stats.seconds} s` : `${task.progress.pages_done} pages read`
  return `${task.status}: ${pages}; ${credits(task.credits_used)} used${stats?.stopped ? ` (stopped: ${stats.stopped})` : ''}`
}

/** Polls until the crawl ends; Ctrl-C leaves it running and says how to come back to it. */
async function follow(conn: Connection, id: string, quiet: boolean): Promise<CrawlTask> {
  const progress = startProgress(`crawl ${id}`, { quiet })
  const interrupted = () => {
    process.stderr.write(`\ntrawl: crawl ${id} keeps running: trawl crawl status ${id} --wait follows it, trawl crawl cancel ${id} stops it\n`)
    process.exit(130)
  }
  process.once('SIGINT', interrupted)
  try {
    for (let polls = 0; ; polls++) {
      const task = await poll<CrawlTask>(conn, path(id))
      const p = task.progress
      if (ENDED.has(task.status)) {
        progress.finish(summary(task))
        return task
      }
      progress.update({ done: p.pages_done, total: p.limit, detail: `pages read (${task.status}, ${p.pages_failed} failed, ${p.pages_queued} queued)` })
      await sleep(polls < 10 ? 500 : 1000)
    }
  } finally {
    process.off('SIGINT', interrupted)
    progress.stop()
  }
}

/** The ended crawl on stdout (Markdown pages or the JSON task); failures on stderr; 1 unless completed. */
function printResult(task: CrawlTask, json: boolean): number {
  if (json) printJson(task)
  else if (task.result?.pages.length) print(pagesAsMarkdown(task.result.pages))
  for (const f of task.result?.failed ?? []) warn(`${f.url}: ${f.error.code}: ${f.error.message}`)
  if (task.status === 'completed') return 0
  warn(`crawl ${task.id} ${task.status}${task.error ? `: ${task.error.code}: ${task.error.message}` : ''}`)
  return 1
}

function describeTask(task: CrawlTask): string {
  const p = task.progress
  return fields([
    ['id', task.id],
    ['status', task.status],
    ['pages', `${p.pages_done} read, ${p.pages_failed} failed, ${p.pages_queued} queued, ${p.pages_discovered} discovered (limit ${p.limit})`],
    ['credits', `${task.credits_used} used of ${task.credits_reserved} reserved`],
    ['error', task.error ? `${task.error.code}: ${task.error.message}` : undefined],
  ])
}

const quiet = (values: Parsed['values']) => values.quiet === true

export const crawlCommands: Command[] = [
  {
    name: 'crawl',
    summary: 'Crawl a site (POST /v1/crawl) and wait for it: progress on stderr, the pages as Markdown on stdout',
    details:
      'A live progress bar on a terminal, plain progress lines otherwise. Ctrl-C stops waiting, not the crawl.\nExample: trawl crawl https://example.com/docs --limit 10 > docs.md',
    args: '<url>',
    flags: crawlFlags,
    globals: 'client',
    async run({ values, positionals }) {
      const conn = resolveConnection(values)
      if (positionals.length !== 1) throw new UsageError(positionals.length ? `unexpected argument "${positionals[1]}": one URL` : 'missing <url>')
      const { body: task } = await callApi<CrawlTask>(conn, 'POST', '/v1/crawl', { ...paramsFrom(crawlFlags, values), url: positionals[0] })
      if (values['no-wait']) {
        if (values.json) printJson(task)
        else print(task.id)
        return 0
      }
      return printResult(await follow(conn, task.id, quiet(values)), values.json === true)
    },
  },
  {
    name: 'crawl status',
    summary: 'A crawl’s progress (GET /v1/crawl/{id}); with --wait, follow it and print its pages',
    args: '<id>',
    flags: { wait: { kind: 'boolean', short: 'w', help: 'wait for the end and print the result like trawl crawl' }, ...WAIT_FLAGS },
    globals: 'client',
    async run(parsed) {
      const [id] = positionalsExactly(parsed, ['<id>']) as [string]
      const conn = resolveConnection(parsed.values)
      const json = parsed.values.json === true
      if (parsed.values.wait) return printResult(await follow(conn, id, quiet(parsed.values)), json)
      const task = await poll<CrawlTask>(conn, path(id))
      if (json) printJson(task)
      else print(describeTask(task))
      return 0
    },
  },
  {
    name: 'crawl cancel',
    summary: 'Cancel a crawl (DELETE /v1/crawl/{id}): a queued one is refunded, a running one stops at its next step',
    args: '<id>',
    flags: {},
    globals: 'client',
    async run(parsed) {
      const [id] = positionalsExactly(parsed, ['<id>']) as [string]
      const { body: task } = await callApi<CrawlTask>(resolveConnection(parsed.values), 'DELETE', path(id))
      if (parsed.values.json) printJson(task)
      else print(`crawl ${task.id}: ${task.status}`)
      return 0
    },
  },
]
