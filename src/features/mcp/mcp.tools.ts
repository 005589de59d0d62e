import type { z } from 'zod'
import { mapLimit } from '../../jobs/map-limit.ts'
import { inline, link } from '../../text/markdown.text.ts'
import { countTokens, trimToTokens } from '../../text/tokens.ts'
import type { BatchJob } from '../batches/batches.response.ts'
import type { CrawlTask } from '../crawl/crawl.response.ts'
import type { MonitorResponse as Monitor } from '../monitors/monitors.response.ts'
import { contextTool } from './context.tool.ts'
import { type ApiReply, type ApiRequest, type CallApi, expectOk, ToolError } from './mcp.api.ts'
import { DEFAULT_MAX_TOKENS, decodeCursor, encodeCursor, fitItems, readStash, type Stash } from './mcp.pages.ts'
import {
  type DocListing,
  docListing,
  docRange,
  type Extracted,
  renderDocs,
  renderExtracted,
  renderJobResult,
  renderRunResults,
  renderSearchPage,
  SEARCH_EXTRAS,
} from './mcp.render.ts'
import {
  AccountInput,
  AccountOutput,
  BatchInput,
  BatchOutput,
  BatchResultInput,
  BatchResultOutput,
  CrawlInput,
  CrawlOutput,
  CrawlResultInput,
  CrawlResultOutput,
  ExtractInput,
  ExtractOutput,
  MapInput,
  MapOutput,
  MonitorCreateInput,
  MonitorCreateOutput,
  MonitorListInput,
  MonitorListOutput,
  MonitorRunsInput,
  MonitorRunsOutput,
  RankInput,
  RankOutput,
  SearchInput,
  SearchOutput,
  WebpageInput,
  WebpageOutput,
} from './mcp.schemas.ts'
import { waitFor } from './mcp.wait.ts'
import { researchTool } from './research.tool.ts'

/** What a tool runs with: the REST API on the caller's key, the caller's kept answers, progress. */
export interface ToolContext {
  api: CallApi
  stash: Stash
  /** Sends notifications/progress when the client asked for it (a progressToken). */
  progress?: (progress: number, total: number | undefined, message: string) => Promise<void>
}

export interface ToolAnnotations {
  readOnlyHint?: boolean
  destructiveHint?: boolean
  idempotentHint?: boolean
  openWorldHint?: boolean
}

export interface ToolDef<I extends z.ZodObject = z.ZodObject, O extends z.ZodObject = z.ZodObject> {
  name: string
  /** What the tool does, when to use it and what it costs, said once: the model reads it at every conversation start. */
  description: string
  input: I
  output: O
  annotations: ToolAnnotations
  run(ctx: ToolContext, args: z.infer<I>): Promise<{ text: string; structured: z.infer<O> }>
}

const tool = <I extends z.ZodObject, O extends z.ZodObject>(def: ToolDef<I, O>) => def as unknown as ToolDef

type Json = Record<string, unknown>

// ---- helpers -------------------------------------------------------------------------------

const call = async (ctx: ToolContext, req: ApiRequest) => expectOk(await ctx.api(req))

/** The REST body: the tool's arguments without the tool-only ones and without unset values. */
function restBody(args: Json, omit: readonly string[], rename: Record<string, string> = {}): Json {
  const out: Json = {}
  for (const [k, v] of Object.entries(args)) if (v !== undefined && !omit.includes(k)) out[rename[k] ?? k] = v
  return out
}

const billingOf = (reply: ApiReply) => ({
  request_id: reply.requestId,
  credits_used: reply.creditsUsed,
  credits_remaining: reply.creditsRemaining,
})
const FREE_PAGE = (requestId: string | null) => ({ request_id: requestId, credits_used: 0, credits_remaining: null })

type PageBilling = ReturnType<typeof billingOf>

/**
 * A paged answer: continued from its stash when a cursor is sent (free: no API call), otherwise
 * fetched now and billed like its REST call; its pages keep it in the stash.
 */
async function resumeOrFetch<K extends { requestId: string | null }>(
  ctx: ToolContext,
  tool: string,
  args: PageArgs,
  fetch: () => Promise<{ kept: K; reply: ApiReply }>,
): Promise<{ kept: K; billing: PageBilling; pages: Pager }> {
  const asked = argumentsKey(args)
  if (args.cursor) {
    const cursor = decodeCursor(args.cursor, tool)
    const kept = await readStash<K & { asked?: string }>(ctx.stash, cursor)
    // A cursor carried over to a call with another query would page that query's answer silently.
    if (kept.asked !== undefined && kept.asked !== asked) {
      throw new ToolError('invalid_request', `cursor continues a ${tool} call with other arguments; repeat that call's arguments with it, or leave cursor out`)
    }
    return { kept, billing: FREE_PAGE(kept.requestId), pages: pager(ctx, tool, args, cursor.offset, { value: kept, id: cursor.stash }) }
  }
  const { kept, reply } = await fetch()
  const asKept = { ...kept, asked }
  return { kept: asKept, billing: billingOf(reply), pages: pager(ctx, tool, args, 0, { value: asKept }) }
}

/** The arguments that choose an answer (not where to continue it, nor how much to show at once). */
function argumentsKey(args: object): string {
  const chosen = Object.entries(args).filter(([name, value]) => name !== 'cursor' && name !== 'max_tokens' && value !== undefined)
  return JSON.stringify(chosen.sort(([a], [b]) => (a < b ? -1 : 1)))
}

const creditsLine = (b: { credits_used: number | null; credits_remaining: number | null }) =>
  b.credits_used == null ? '' : `Credits used: ${b.credits_used}${b.credits_remaining != null ? ` · remaining: ${b.credits_remaining}` : ''}`

/** The paging note's length while fitting: a real cursor is shorter. */
const CURSOR_PLACEHOLDER = 'x'.repeat(72)

/** The arguments every paged tool takes: where to continue, and how much to show at once. */
interface PageArgs {
  cursor?: string
  max_tokens?: number
}

interface Paged {
  /** Items shown: [offset, end). */
  end: number
  text: string
  /** The structured answer's paging fields. */
  window: { offset: number; total: number; next_cursor: string | null }
}

/** The paging of one tool call: where it starts, and how its items fit max_tokens. */
interface Pager {
  /** The first item this call shows: 0, or where the cursor left off. */
  offset: number
  /** A cursor was sent: the call continues an earlier one. */
  continued: boolean
  /** max_tokens, or the default. */
  budget: number
  /**
   * Fits items [offset, total) into the budget (with the paging note) and makes the next cursor:
   * over the kept answer (stashed now, or the one the cursor named), or, without one, just the
   * offset (the tool reads its data again, free).
   */
  page(items: { total: number; render: (from: number, to: number) => string; range: (from: number, to: number) => string }): Promise<Paged>
}

function pager(ctx: ToolContext, tool: string, args: PageArgs, offset: number, keep?: { value: unknown; id?: string }): Pager {
  const budget = args.max_tokens ?? DEFAULT_MAX_TOKENS
  return {
    offset,
    continued: args.cursor !== undefined,
    budget,
    async page({ total, render, range }) {
      const note = (to: number, cursor: string | null) =>
        cursor ? `---\nShown: ${range(offset, to)}. Next page: call ${tool} again with the same arguments and cursor "${cursor}".` : ''
      const room = Math.max(200, budget - (await countTokens(note(offset + 1, CURSOR_PLACEHOLDER))))
      const fit = await fitItems(total - offset, room, (k) => render(offset, offset + k))
      const end = offset + fit.k
      let next: string | null = null
      if (end < total) {
        const stash = keep ? (keep.id ?? (await ctx.stash.put(keep.value))) : undefined
        next = encodeCursor({ tool, offset: end, stash })
      }
      const tail = note(end, next)
      return { end, text: tail ? `${fit.text}\n\n${tail}` : fit.text, window: { offset, total, next_cursor: next } }
    },
  }
}

/** Paging of a tool whose data is read again when continued (free): the cursor holds only the offset. */
const refetchPager = (ctx: ToolContext, tool: string, args: PageArgs) => pager(ctx, tool, args, args.cursor ? decodeCursor(args.cursor, tool).offset : 0)

// ---- search --------------------------------------------------------------------------------

interface KeptSearch {
  vertical: string
  body: Json
  requestId: string | null
}

const searchTool = tool({
  name: 'search',
  description:
    'Web search: ranked results as Markdown. vertical: web (with answer box, knowledge graph, related searches), news, images, videos, places (local businesses), maps (with coordinates), shopping, scholar or patents. 1 credit per 10 results (num=100: 7); empty is free.',
  input: SearchInput,
  output: SearchOutput,
  annotations: { readOnlyHint: true, openWorldHint: true },
  async run(ctx, args) {
    const { kept, billing, pages } = await resumeOrFetch<KeptSearch>(ctx, 'search', args, async () => {
      const vertical = args.vertical ?? 'web'
      const reply = await call(ctx, {
        method: 'POST',
        path: vertical === 'web' ? '/v1/search' : `/v1/${vertical}`,
        body: restBody(args, ['vertical', 'max_tokens', 'cursor']),
      })
      return { kept: { vertical, body: reply.body as Json, requestId: reply.requestId }, reply }
    })
    const { offset } = pages
    const results = Array.isArray(kept.body.results) ? (kept.body.results as Json[]) : []
    const paged = await pages.page({
      total: results.length,
      render: (from, to) => renderSearchPage(kept.vertical, kept.body, from, to),
      range: (from, to) => `results ${from + 1}–${to} of ${results.length}`,
    })
    const meta = (kept.body.meta ?? {}) as Json
    const request = (kept.body.request ?? {}) as Json
    const extras: Json = {}
    if (offset === 0) for (const key of SEARCH_EXTRAS) if (kept.body[key] != null) extras[key] = kept.body[key]
    return {
      text: paged.text,
      structured: {
        vertical: kept.vertical as 'web',
        query: typeof request.q === 'string' ? request.q : '',
        engine: typeof meta.engine === 'string' ? meta.engine : null,
        cached: meta.cached === true,
        parse_quality: typeof meta.parse_quality === 'string' ? meta.parse_quality : null,
        results: results.slice(offset, paged.end),
        extras: offset === 0 && Object.keys(extras).length > 0 ? extras : null,
        ...paged.window,
        ...billing,
      },
    }
  },
})

// ---- reading: webpage, extract -------------------------------------------------------------

interface KeptPages {
  listing: DocListing
  failed: { url: string; error: { code: string; message: string } }[]
  succeeded: number
  emptyPage: boolean
  /** With schema: each page's data and basis, shown first. */
  extracted: Extracted[] | null
  requestId: string | null
}

const READ_TIMEOUT_SECONDS = 30
/** With schema the model's calls come after the read, inside the same tool deadline: the read gets less. */
const READ_TIMEOUT_WITH_SCHEMA_SECONDS = 20

/** Reads (or continues) a pages answer, pages it by blocks and renders it. */
async function pagesAnswer(ctx: ToolContext, toolName: 'webpage' | 'extract', args: PageArgs, read: () => Promise<{ kept: KeptPages; reply: ApiReply }>) {
  const { kept, billing, pages } = await resumeOrFetch<KeptPages>(ctx, toolName, args, read)
  const { offset } = pages
  const failed =
    kept.failed.length > 0
      ? `Could not read (not billed):\n${kept.failed.map((f) => `- ${inline(f.url)}: ${f.error.code}: ${inline(f.error.message)}`).join('\n')}`
      : ''
  const data = kept.extracted?.length ? renderExtracted(kept.extracted, toolName === 'extract') : ''
  const preface = offset === 0 ? [data, failed].filter(Boolean).join('\n\n') : ''
  const footer = creditsLine(billing)
  const paged = await pages.page({
    total: kept.listing.blocks.length,
    render: (from, to) => [preface, renderDocs(kept.listing, from, to).text, footer].filter(Boolean).join('\n\n'),
    range: (from, to) => docRange(kept.listing, from, to),
  })
  const { parts } = renderDocs(kept.listing, offset, paged.end)
  const text = kept.emptyPage ? `No readable content was found on the page (not billed).\n\n${paged.text}` : paged.text
  return { text, parts, kept, paged, billing }
}

const readingBody = (args: Json) => ({
  ...restBody(args, ['max_tokens', 'cursor']),
  timeout: (args.timeout as number | undefined) ?? (args.schema ? READ_TIMEOUT_WITH_SCHEMA_SECONDS : READ_TIMEOUT_SECONDS),
})

/** The pages that came back with data (schema extraction), or null when no schema was sent. */
function extractedOf(args: { schema?: unknown }, pages: readonly Json[]): Extracted[] | null {
  if (!args.schema) return null
  return pages.map((p) => ({
    url: String(p.url ?? ''),
    title: typeof p.title === 'string' ? p.title : null,
    data: (p.data ?? null) as Json | null,
    basis: (p.basis ?? null) as Extracted['basis'],
  }))
}

const webpageTool = tool({
  name: 'webpage',
  description:
    'Read a web page or PDF as Markdown (main content, title, date); with query and highlights, the best passages first; with schema, its fields as data (+1 credit per model call). 1 credit; unreadable pages are free.',
  input: WebpageInput,
  output: WebpageOutput,
  annotations: { readOnlyHint: true, openWorldHint: true },
  async run(ctx, args) {
    const a = await pagesAnswer(ctx, 'webpage', args, async () => {
      const reply = await call(ctx, { method: 'POST', path: '/v1/webpage', body: readingBody(args) })
      const body = reply.body as Json
      const meta = (body.meta ?? {}) as Json
      return {
        reply,
        kept: {
          listing: docListing([body]),
          failed: [],
          succeeded: 1,
          emptyPage: meta.empty_page === true,
          extracted: extractedOf(args, [body]),
          requestId: reply.requestId,
        },
      }
    })
    const extracted = a.paged.window.offset === 0 ? a.kept.extracted?.[0] : undefined
    return {
      text: a.text,
      structured: {
        pages: a.parts,
        ...a.paged.window,
        empty_page: a.kept.emptyPage,
        ...(extracted && { data: extracted.data, basis: extracted.basis }),
        ...a.billing,
      },
    }
  },
})

const extractTool = tool({
  name: 'extract',
  description: 'Read up to 20 web pages or PDFs at once, as webpage does (schema too). 1 credit per page read; failed pages are listed with the reason, free.',
  input: ExtractInput,
  output: ExtractOutput,
  annotations: { readOnlyHint: true, openWorldHint: true },
  async run(ctx, args) {
    const a = await pagesAnswer(ctx, 'extract', args, async () => {
      const reply = await call(ctx, { method: 'POST', path: '/v1/extract', body: readingBody(args) })
      const body = reply.body as { results?: Json[]; failed?: KeptPages['failed'] }
      const results = body.results ?? []
      return {
        reply,
        kept: {
          listing: docListing(results),
          failed: body.failed ?? [],
          succeeded: results.length,
          emptyPage: false,
          extracted: extractedOf(args, results),
          requestId: reply.requestId,
        },
      }
    })
    const first = a.paged.window.offset === 0
    return {
      text: a.text,
      structured: {
        pages: a.parts,
        ...a.paged.window,
        failed: first ? a.kept.failed : [],
        succeeded: a.kept.succeeded,
        ...(a.kept.extracted && { extracted: first ? a.kept.extracted : [] }),
        ...a.billing,
      },
    }
  },
})

// ---- map -----------------------------------------------------------------------------------

interface MapItem {
  url: string
  title: string | null
  lastmod: string | null
  source: string
}
interface KeptMap {
  url: string
  results: MapItem[]
  requestId: string | null
}

const mapTool = tool({
  name: 'map',
  description: "List a site's URLs (sitemaps, start-page links) without reading them, to pick pages to read or crawl. 1 credit when URLs are found.",
  input: MapInput,
  output: MapOutput,
  annotations: { readOnlyHint: true, openWorldHint: true },
  async run(ctx, args) {
    const { kept, billing, pages } = await resumeOrFetch<KeptMap>(ctx, 'map', args, async () => {
      const reply = await call(ctx, { method: 'POST', path: '/v1/map', body: restBody(args, ['max_tokens', 'cursor']) })
      const body = reply.body as { request?: Json; results?: Json[] }
      const kept = {
        url: typeof body.request?.url === 'string' ? body.request.url : args.url,
        results: (body.results ?? []).map((r) => ({
          url: String(r.url),
          title: typeof r.title === 'string' ? r.title : null,
          lastmod: typeof r.lastmod === 'string' ? r.lastmod : null,
          source: String(r.source ?? 'page'),
        })),
        requestId: reply.requestId,
      }
      return { kept, reply }
    })
    const head = `# Map: ${inline(kept.url)}\n\n${kept.results.length} URL${kept.results.length === 1 ? '' : 's'} found.`
    const line = (r: MapItem) => `- ${inline(r.url)}${r.title ? ` — ${inline(r.title)}` : ''}${r.lastmod ? ` (updated ${inline(r.lastmod)})` : ''}`
    const paged = await pages.page({
      total: kept.results.length,
      render: (from, to) => [head, kept.results.slice(from, to).map(line).join('\n'), creditsLine(billing)].filter(Boolean).join('\n\n'),
      range: (from, to) => `URLs ${from + 1}–${to} of ${kept.results.length}`,
    })
    return {
      text: paged.text,
      structured: { url: kept.url, results: kept.results.slice(pages.offset, paged.end), ...paged.window, ...billing },
    }
  },
})

// ---- crawl ---------------------------------------------------------------------------------

const ENDED = new Set(['completed', 'failed', 'canceled'])

const readCrawl = async (ctx: ToolContext, id: string) => {
  const reply = await call(ctx, { method: 'GET', path: `/v1/crawl/${encodeURIComponent(id)}` })
  return { task: reply.body as CrawlTask, reply }
}

function crawlStatusText(t: CrawlTask): string {
  const p = t.progress
  const lines = [
    `Crawl ${t.id}: ${t.status}. ${p.pages_done} of at most ${p.limit} pages read, ${p.pages_failed} failed, ${p.pages_queued} queued, ${p.pages_discovered} discovered.`,
    `Credits: ${t.credits_reserved} reserved, ${t.credits_used} used${ENDED.has(t.status) ? ' (the rest was refunded)' : ' so far; unread pages are refunded when it ends'}.`,
  ]
  if (t.error) lines.push(`Error: ${t.error.code}: ${t.error.message}`)
  return lines.join('\n')
}

/** Waits on a crawl by polling GET /v1/crawl/{id} (each poll is that REST call, on the same key). */
async function waitCrawl(ctx: ToolContext, first: { task: CrawlTask; reply: ApiReply }, seconds: number) {
  return waitFor(
    ctx,
    seconds,
    first,
    () => readCrawl(ctx, first.task.id),
    (s) => ENDED.has(s.task.status),
    (s) => [s.task.progress.pages_done, s.task.progress.limit, `${s.task.status}: ${s.task.progress.pages_done} pages read`],
  )
}

const crawlTool = tool({
  name: 'crawl',
  description:
    'Start reading a whole site, or a section (include_paths), in the background, following links and sitemaps, honouring robots.txt; read it with crawl_result. Reserves limit credits; unread pages are refunded.',
  input: CrawlInput,
  output: CrawlOutput,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  async run(ctx, args) {
    const reply = await call(ctx, {
      method: 'POST',
      path: '/v1/crawl',
      body: restBody(args, ['wait_seconds'], { page_max_tokens: 'max_tokens' }),
    })
    const started = { task: reply.body as CrawlTask, reply }
    const now = args.wait_seconds ? await waitCrawl(ctx, started, args.wait_seconds) : started
    const t = now.task
    const next = ENDED.has(t.status)
      ? `Next: call crawl_result with id "${t.id}" to read the pages.`
      : `Next: call crawl_result with id "${t.id}" (it waits up to wait_seconds for the crawl to end) to read the pages.`
    return {
      text: `${crawlStatusText(t)}\n${next}`,
      structured: {
        id: t.id,
        status: t.status,
        progress: t.progress,
        credits_reserved: t.credits_reserved,
        credits_used: t.credits_used,
        error: t.error,
        request_id: reply.requestId,
        credits_remaining: reply.creditsRemaining,
      },
    }
  },
})

const crawlResultTool = tool({
  name: 'crawl_result',
  description: "A crawl's progress and, once it has ended, its pages as Markdown. Waits up to wait_seconds; call again to keep waiting. Free.",
  input: CrawlResultInput,
  output: CrawlResultOutput,
  annotations: { readOnlyHint: true, openWorldHint: false },
  async run(ctx, args) {
    const pages = refetchPager(ctx, 'crawl_result', args)
    const first = await readCrawl(ctx, args.id)
    const { task: t, reply } = pages.continued ? first : await waitCrawl(ctx, first, args.wait_seconds ?? 15)
    const base = {
      id: t.id,
      status: t.status,
      progress: t.progress,
      credits_used: t.credits_used,
      error: t.error,
      stats: t.result?.stats ?? null,
      request_id: reply.requestId,
    }
    if (!t.result) {
      const more = ENDED.has(t.status) ? '' : `\nStill ${t.status}: call crawl_result again with id "${t.id}" to keep waiting.`
      return { text: crawlStatusText(t) + more, structured: { ...base, failed: [], pages: [], offset: 0, total: 0, next_cursor: null } }
    }
    const listing = docListing(t.result.pages)
    const { offset } = pages
    const stats = t.result.stats
    const preface =
      offset === 0
        ? [
            `# Crawl of ${inline(t.result.url)}`,
            crawlStatusText(t),
            `Stopped: ${inline(stats.stopped)} after ${stats.seconds ?? '?'} s; robots.txt: ${inline(stats.robots)}.`,
            t.result.failed.length > 0
              ? `Could not read (not billed):\n${t.result.failed.map((f) => `- ${inline(f.url)}: ${f.error.code}: ${inline(f.error.message)}`).join('\n')}`
              : '',
          ]
            .filter(Boolean)
            .join('\n\n')
        : ''
    const paged = await pages.page({
      total: listing.blocks.length,
      render: (from, to) => [preface, renderDocs(listing, from, to).text].filter(Boolean).join('\n\n'),
      range: (from, to) => docRange(listing, from, to),
    })
    return {
      text: paged.text,
      structured: {
        ...base,
        failed: offset === 0 ? t.result.failed : [],
        pages: renderDocs(listing, offset, paged.end).parts,
        ...paged.window,
      },
    }
  },
})

// ---- rank ----------------------------------------------------------------------------------

const rankTool = tool({
  name: 'rank',
  description: "Where a domain ranks in Google's organic results for a keyword: its best position in the top num, and every match. 7 credits for 100.",
  input: RankInput,
  output: RankOutput,
  annotations: { readOnlyHint: true, openWorldHint: true },
  async run(ctx, args) {
    const reply = await call(ctx, { method: 'POST', path: '/v1/rank', body: restBody(args, []) })
    const body = reply.body as { domain: string; position: number | null; matches: { position: number; title: string; link: string }[]; checked: number }
    const billing = billingOf(reply)
    const head = `# Rank of ${inline(body.domain)} for “${inline(args.q)}”`
    const where =
      body.position == null
        ? `Not found in the top ${body.checked} organic results.`
        : `Best position: ${body.position} (of ${body.checked} organic results checked).`
    const matches = body.matches.map((m) => `${m.position}. ${link(m.title, m.link)}`).join('\n')
    return {
      text: [head, where, matches ? `Matches:\n${matches}` : '', creditsLine(billing)].filter(Boolean).join('\n\n'),
      structured: { query: args.q, domain: body.domain, position: body.position, matches: body.matches, checked: body.checked, ...billing },
    }
  },
})

// ---- batches -------------------------------------------------------------------------------

const batchTool = tool({
  name: 'batch',
  description: 'Queue 1 to 100 requests to one REST endpoint at half price, for results not needed now; read them with batch_result and the job ids.',
  input: BatchInput,
  output: BatchOutput,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  async run(ctx, args) {
    const reply = await call(ctx, { method: 'POST', path: '/v1/batches', body: restBody(args, []) })
    const entries = (reply.body as { batches: (BatchJob | { error: { code: string; message: string } })[] }).batches
    const jobs = entries.map((e, index) =>
      'id' in e
        ? { index, id: e.id, status: e.status, error: null }
        : { index, id: null, status: null, error: { code: e.error.code, message: e.error.message } },
    )
    const queued = jobs.filter((j) => j.id)
    const lines = jobs.map((j) => (j.id ? `${j.index + 1}. queued: ${j.id}` : `${j.index + 1}. refused: ${j.error?.code}: ${inline(j.error?.message)}`))
    const billing = billingOf(reply)
    const text = [
      `Batch of ${jobs.length} ${args.endpoint} request${jobs.length === 1 ? '' : 's'}: ${queued.length} queued, ${jobs.length - queued.length} refused.`,
      lines.join('\n'),
      creditsLine(billing),
      queued.length > 0 ? `Next: call batch_result with ids ${JSON.stringify(queued.map((j) => j.id))} to read the results.` : '',
    ]
      .filter(Boolean)
      .join('\n\n')
    return { text, structured: { endpoint: args.endpoint, jobs, queued: queued.length, refused: jobs.length - queued.length, ...billing } }
  },
})

interface JobState {
  id: string
  job: BatchJob | null
}
const JOB_ENDED = new Set(['done', 'failed'])

const batchResultTool = tool({
  name: 'batch_result',
  description: 'Status and results of batch jobs: done ones as Markdown, failed ones with the reason (refunded). Waits up to wait_seconds. Free.',
  input: BatchResultInput,
  output: BatchResultOutput,
  annotations: { readOnlyHint: true, openWorldHint: false },
  async run(ctx, args) {
    const pages = refetchPager(ctx, 'batch_result', args)
    const ids = [...new Set(args.ids)]
    const readAll = () =>
      mapLimit(ids, 8, async (id): Promise<JobState> => {
        const reply = await ctx.api({ method: 'GET', path: `/v1/batches/${encodeURIComponent(id)}` })
        if (reply.status === 404) return { id, job: null }
        return { id, job: expectOk(reply).body as BatchJob }
      })
    const finished = (s: JobState[]) => s.every((j) => !j.job || JOB_ENDED.has(j.job.status))
    const first = await readAll()
    const states =
      pages.continued || !args.wait_seconds
        ? first
        : await waitFor(ctx, args.wait_seconds, first, readAll, finished, (s) => {
            const n = s.filter((j) => !j.job || JOB_ENDED.has(j.job.status)).length
            return [n, s.length, `${n} of ${s.length} jobs finished`]
          })
    const items = await Promise.all(
      states.map(async (s, i) => {
        const j = s.job
        const status = j ? j.status : 'not_found'
        const head = `## Job ${i + 1} of ${states.length}: ${s.id} · ${status}${j ? ` · ${j.endpoint} · ${j.credits_used} credits` : ''}`
        let content: string | null = null
        let body = ''
        if (!j) body = 'No such job for this account, or its result expired (results are kept 24 hours).'
        else if (j.status === 'done') {
          content = (await trimToTokens(renderJobResult(j.endpoint, j.result), Math.max(200, pages.budget - 300))).text
          body = content
        } else if (j.error) body = `Error: ${j.error.code}: ${inline(j.error.message)}`
        else body = 'Not finished yet.'
        return {
          text: `${head}\n\n${body}`,
          data: { id: s.id, endpoint: j?.endpoint ?? null, status, credits_used: j?.credits_used ?? null, error: j?.error ?? null, content },
        }
      }),
    )
    const done = states.filter((s) => s.job?.status === 'done').length
    const pending = states.filter((s) => s.job && !JOB_ENDED.has(s.job.status)).length
    const { offset } = pages
    const summary = `${done} of ${states.length} jobs done, ${pending} not finished yet.`
    const paged = await pages.page({
      total: items.length,
      render: (from, to) => [offset === 0 ? summary : '', ...items.slice(from, to).map((it) => it.text)].filter(Boolean).join('\n\n'),
      range: (from, to) => `jobs ${from + 1}–${to} of ${items.length}`,
    })
    return {
      text: paged.text,
      structured: { jobs: items.slice(offset, paged.end).map((it) => it.data), done, pending, ...paged.window },
    }
  },
})

// ---- monitors ------------------------------------------------------------------------------

const every = (seconds: number) =>
  seconds % 86_400 === 0 ? `every ${seconds / 86_400} day(s)` : seconds % 3600 === 0 ? `every ${seconds / 3600} hour(s)` : `every ${seconds} s`

const monitorLine = (m: Monitor) =>
  `- **${inline(m.name)}** (id ${m.id}): ${m.endpoint} ${m.endpoint === 'webpage' ? inline(m.request?.url) : `“${inline(m.request?.q)}”`}, ${every(m.interval_seconds)}, ${
    m.active ? `active, next run ${m.next_run_at ?? 'soon'}` : 'paused'
  }${m.last_run_at ? `; last run ${m.last_run_at}: ${m.last_status}, ${m.last_new_results} new` : '; not run yet'}`

const monitorCreateTool = tool({
  name: 'monitor_create',
  description:
    'Watch a search (search or news, with q) or a page (webpage, with url): it runs every interval, the first at once, keeping what is new. Each run is billed as its search or read; empty runs are free.',
  input: MonitorCreateInput,
  output: MonitorCreateOutput,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  async run(ctx, args) {
    const reply = await call(ctx, { method: 'POST', path: '/v1/monitors', body: restBody(args, []) })
    const m = reply.body as Monitor
    return {
      text: `Monitor created.\n\n${monitorLine(m)}\n\nRead its runs with monitor_runs and id "${m.id}".`,
      structured: { monitor: m, request_id: reply.requestId },
    }
  },
})

const monitorListTool = tool({
  name: 'monitor_list',
  description: "The account's monitors: what each watches, how often, whether it is active, its last run. Free.",
  input: MonitorListInput,
  output: MonitorListOutput,
  annotations: { readOnlyHint: true, openWorldHint: false },
  async run(ctx, args) {
    const pages = refetchPager(ctx, 'monitor_list', args)
    const reply = await call(ctx, { method: 'GET', path: '/v1/monitors' })
    const monitors = (reply.body as { monitors: Monitor[] }).monitors
    const paged = await pages.page({
      total: monitors.length,
      render: (from, to) =>
        [`# Monitors (${monitors.length})`, monitors.length ? monitors.slice(from, to).map(monitorLine).join('\n') : 'No monitors yet.'].join('\n\n'),
      range: (from, to) => `monitors ${from + 1}–${to} of ${monitors.length}`,
    })
    return {
      text: paged.text,
      structured: { monitors: monitors.slice(pages.offset, paged.end), ...paged.window, request_id: reply.requestId },
    }
  },
})

type MonitorRun = {
  id: string
  status: string
  first_run: boolean
  due_at: string
  new_results: number
  results: Json[] | null
  results_expired: boolean
  credits_used: number
  error: { code: string; message: string } | null
}

const monitorRunsTool = tool({
  name: 'monitor_runs',
  description: "A monitor's runs, newest first, with the new results each found (kept 24 hours). Free.",
  input: MonitorRunsInput,
  output: MonitorRunsOutput,
  annotations: { readOnlyHint: true, openWorldHint: false },
  async run(ctx, args) {
    const pages = refetchPager(ctx, 'monitor_runs', args)
    const query = new URLSearchParams()
    if (args.limit !== undefined) query.set('limit', String(args.limit))
    if (args.before !== undefined) query.set('before', args.before)
    const qs = query.size > 0 ? `?${query}` : ''
    const reply = await call(ctx, { method: 'GET', path: `/v1/monitors/${encodeURIComponent(args.id)}/runs${qs}` })
    const body = reply.body as { monitor_id: string; runs: MonitorRun[]; next_before: string | null }
    const runText = async (r: MonitorRun) => {
      const head = `## Run due ${r.due_at}: ${r.status}, ${r.new_results} new${r.first_run ? ' (first run: everything is new)' : ''}, ${r.credits_used} credits`
      const detail = r.error
        ? `Error: ${r.error.code}: ${inline(r.error.message)}`
        : r.results_expired
          ? '(results expired; they are kept 24 hours)'
          : renderRunResults(r.results ?? [])
      return (await trimToTokens(detail ? `${head}\n\n${detail}` : head, Math.max(200, pages.budget - 300))).text
    }
    const runTexts = await Promise.all(body.runs.map(runText))
    const older = body.next_before ? `Older runs: call monitor_runs with before "${body.next_before}".` : ''
    const paged = await pages.page({
      total: body.runs.length,
      render: (from, to) =>
        [`# Runs of monitor ${body.monitor_id}`, body.runs.length ? runTexts.slice(from, to).join('\n\n') : 'No runs yet.', to >= body.runs.length ? older : '']
          .filter(Boolean)
          .join('\n\n'),
      range: (from, to) => `runs ${from + 1}–${to} of ${body.runs.length}`,
    })
    return {
      text: paged.text,
      structured: {
        monitor_id: body.monitor_id,
        runs: body.runs.slice(pages.offset, paged.end),
        next_before: body.next_before,
        ...paged.window,
        request_id: reply.requestId,
      },
    }
  },
})

// ---- account -------------------------------------------------------------------------------

const accountTool = tool({
  name: 'account',
  description: "The credit balance, plan, rate limit and this month's usage of the account and API key. Free.",
  input: AccountInput,
  output: AccountOutput,
  annotations: { readOnlyHint: true, openWorldHint: false },
  async run(ctx) {
    const reply = await call(ctx, { method: 'GET', path: '/v1/account' })
    const a = reply.body as {
      balance: number
      plan: string
      rate_limit_rps: number
      monthly_spend_cap: number | null
      key: { name: string; credit_limit: number | null; credits_used_month: number }
      month: { credits: number; requests: number }
    }
    const text = [
      `Balance: ${a.balance} credits (plan ${a.plan}, ${a.rate_limit_rps} requests per second per key).`,
      `This month: ${a.month.credits} credits over ${a.month.requests} requests; this key (${inline(a.key.name)}) used ${a.key.credits_used_month}${
        a.key.credit_limit != null ? ` of its ${a.key.credit_limit} limit` : ''
      }.`,
      a.monthly_spend_cap != null ? `Monthly spend cap: ${a.monthly_spend_cap} credits.` : '',
    ]
      .filter(Boolean)
      .join('\n')
    return { text, structured: a }
  },
})

/** Every tool, in the order tools/list gives them. */
export const TOOLS: readonly ToolDef[] = [
  searchTool,
  contextTool,
  researchTool,
  webpageTool,
  extractTool,
  mapTool,
  crawlTool,
  crawlResultTool,
  rankTool,
  batchTool,
  batchResultTool,
  monitorCreateTool,
  monitorListTool,
  monitorRunsTool,
  accountTool,
]
