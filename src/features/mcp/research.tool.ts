import { z } from 'zod'
import { inline, link } from '../../text/markdown.text.ts'
import type { ResearchTask } from '../context/research/research.response.ts'
import { RESEARCH_LIMITS } from '../context/research/research.schema.ts'
import { type ApiReply, expectOk, ToolError } from './mcp.api.ts'
import type { ToolContext, ToolDef } from './mcp.tools.ts'
import { waitFor } from './mcp.wait.ts'

/**
 * The MCP tool `research`: POST /v1/research on the caller's key (so billed as that call: the
 * worst case held, the unused part refunded when the job ends), then GET /v1/research/{id} polled
 * for at most wait_seconds, as `crawl` waits on a crawl. A job still running then is waited on
 * again by calling the tool with its `id`. No cursor: a report is bounded by its model call, and
 * sources are listed without their passages (GET /v1/research/{id} has those).
 */

const { searches, pages, tokens } = RESEARCH_LIMITS
const DEFAULT_WAIT_SECONDS = 40
const ENDED = new Set(['completed', 'failed', 'canceled'])
/** What only starting a job takes: refused with `id`, which waits on one already started. */
const START_ONLY = ['input', 'max_searches', 'max_pages', 'max_tokens', 'output_schema', 'engine'] as const

export const ResearchInput = z.strictObject({
  input: z.string().trim().min(1).max(RESEARCH_LIMITS.input).optional().describe('The question or topic'),
  id: z.string().min(1).max(64).optional().describe('Instead of input: wait again for this research'),
  max_searches: z.number().int().min(searches.min).max(searches.max).optional().describe(`Sub-queries (default ${searches.default})`),
  max_pages: z.number().int().min(pages.min).max(pages.max).optional().describe(`Pages read in all (default ${pages.default})`),
  max_tokens: z.number().int().min(tokens.min).max(tokens.max).optional().describe(`Passage tokens in all (default ${tokens.default})`),
  output_schema: z.record(z.string(), z.unknown()).optional().describe("An object's JSON Schema: data with basis, not a report"),
  engine: z.string().min(1).max(200).optional().describe('As in search'),
  wait_seconds: z.number().int().min(0).max(45).optional().describe(`default ${DEFAULT_WAIT_SECONDS}`),
})

const object = z.record(z.string(), z.unknown())

/** Sources are {n, url, title, query, start, end} (no passage text); the credits are the job's own. */
export const ResearchOutput = z.looseObject({
  id: z.string(),
  status: z.string(),
  report: z.string().nullable(),
  data: object.nullable(),
  basis: object.nullable(),
  sources: z.array(z.unknown()),
  credits_reserved: z.number(),
  credits_used: z.number(),
  error: object.nullable(),
})

type Args = z.infer<typeof ResearchInput>
type Read = { task: ResearchTask; reply: ApiReply }

const path = (id: string) => `/v1/research/${encodeURIComponent(id)}`

/** Starts the job, or reads the one `id` names; a wrong mix of arguments is refused by name. */
async function startOrRead(ctx: ToolContext, args: Args): Promise<Read & { started: boolean }> {
  if (args.id !== undefined) {
    const extra = START_ONLY.filter((name) => args[name] !== undefined)
    if (extra.length > 0) {
      throw new ToolError('invalid_request', `${extra.join(', ')}: id waits on a research already started; leave them out, or leave out id to start one`)
    }
    const reply = expectOk(await ctx.api({ method: 'GET', path: path(args.id) }))
    return { task: reply.body as ResearchTask, reply, started: false }
  }
  if (args.input === undefined) throw new ToolError('invalid_request', 'input: required (or id, to wait for a research started earlier)')
  const body: Record<string, unknown> = {}
  for (const name of START_ONLY) if (args[name] !== undefined) body[name] = args[name]
  const reply = expectOk(await ctx.api({ method: 'POST', path: '/v1/research', body }))
  return { task: reply.body as ResearchTask, reply, started: true }
}

function progressOf(t: ResearchTask): [number, number | undefined, string] {
  const planned = t.steps.find((s) => s.kind === 'plan')?.queries.length
  const searched = t.steps.filter((s) => s.kind === 'search').length
  const total = planned === undefined ? undefined : planned + 2
  return [t.steps.length, total, `${t.status}: ${searched}${planned === undefined ? '' : ` of ${planned}`} sub-queries searched`]
}

/** The sources as listed to the model: those the result cites (all, when it cites none), numbered as [n]. */
function sourcesText(t: ResearchTask): string {
  const cited = new Set(t.result?.cited ?? [])
  const shown = cited.size > 0 ? t.sources.filter((s) => cited.has(s.n)) : t.sources
  if (shown.length === 0) return ''
  const lines = shown.map((s) => `[${s.n}] ${link(s.title || s.url, s.url) || inline(s.url)} (found for “${inline(s.query)}”)`)
  const rest = t.sources.length - shown.length
  return `## Sources\n\n${lines.join('\n')}${rest > 0 ? `\n\n${rest} other passage(s) found were not cited.` : ''}`
}

function resultText(t: ResearchTask): string {
  const r = t.result
  if (!r) return ''
  if (r.format === 'markdown') return r.report ?? ''
  const basis = Object.entries(r.basis ?? {}).map(([field, ns]) => `- ${inline(field)}: ${ns.map((n) => `[${n}]`).join('')}`)
  return [`## Data\n\n\`\`\`json\n${JSON.stringify(r.data ?? null, null, 2)}\n\`\`\``, basis.length ? `Basis (sources):\n${basis.join('\n')}` : '']
    .filter(Boolean)
    .join('\n\n')
}

function statusText(t: ResearchTask): string {
  const searched = t.steps.filter((s) => s.kind === 'search').length
  const ended = ENDED.has(t.status)
  const lines = [
    `Research ${t.id}: ${t.status}; ${searched} sub-quer${searched === 1 ? 'y' : 'ies'} searched, ${t.meta.pages_read} pages read, ${t.sources.length} passages found.`,
    `Credits: ${t.credits_reserved} held, ${t.credits_used} used${ended ? ' (the rest was refunded)' : ' so far; the unused part is refunded when it ends'}.`,
  ]
  if (t.error) lines.push(`Error: ${t.error.code}: ${inline(t.error.message)}`)
  if (!ended) lines.push(`Still ${t.status}: call research again with id "${t.id}" to keep waiting.`)
  return lines.join('\n')
}

function render(t: ResearchTask): string {
  const input = typeof t.request.input === 'string' ? t.request.input : ''
  return [`# Research: ${inline(input)}`, resultText(t), sourcesText(t), statusText(t)].filter(Boolean).join('\n\n')
}

export const researchTool = {
  name: 'research',
  description:
    "A cited report on a question needing several searches: the operator's model plans sub-queries, each is searched and read, the model writes the report (or output_schema data). Holds the worst case, refunds the rest.",
  input: ResearchInput,
  output: ResearchOutput,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  async run(ctx, args) {
    const first = await startOrRead(ctx, args)
    const wait = args.wait_seconds ?? DEFAULT_WAIT_SECONDS
    const read = async (): Promise<Read> => {
      const reply = expectOk(await ctx.api({ method: 'GET', path: path(first.task.id) }))
      return { task: reply.body as ResearchTask, reply }
    }
    const { task: t } = await waitFor(
      ctx,
      wait,
      first as Read,
      read,
      (s) => ENDED.has(s.task.status),
      (s) => progressOf(s.task),
    )
    return {
      text: render(t),
      structured: {
        id: t.id,
        status: t.status,
        report: t.result?.report ?? null,
        data: t.result?.data ?? null,
        basis: t.result?.basis ?? null,
        sources: t.sources.map(({ n, url, title, query, start, end }) => ({ n, url, title, query, start, end })),
        cited: t.result?.cited ?? [],
        credits_reserved: t.credits_reserved,
        credits_used: t.credits_used,
        error: t.error,
        request_id: first.reply.requestId,
        credits_remaining: first.started ? first.reply.creditsRemaining : null,
      },
    }
  },
} satisfies ToolDef<typeof ResearchInput, typeof ResearchOutput> as unknown as ToolDef
