import { toCredits } from '../../../billing/money.ts'
import { type ApiError, isApiError } from '../../../errors.ts'
import type { ChatMessage, ModelReply } from '../../../llm/chat-model.ts'
import type { CheckOutput } from '../../../llm/json-schema.ts'
import type { ContextPassage } from '../context.schema.ts'
import {
  checkReport,
  dataMessages,
  PLAN_MAX_TOKENS,
  planMessages,
  REPORT_MAX_TOKENS,
  readData,
  readPlan,
  reportMessages,
  retryMessages,
} from './research.model.ts'
import type { ResearchResult, ResearchSource, ResearchStep } from './research.response.ts'
import type { ResearchRequest, ResearchState } from './research.types.ts'

/**
 * One research job, step by step (docs/research.md), over an env of I/O functions so that every
 * limit is tested without a network: the plan (one model call), a /v1/context search per
 * sub-query with its share of pages and tokens, then the report. Every step is saved as it ends,
 * with what it cost; a job restarted from its saved state skips the steps it has, so nothing is
 * done (or paid for) twice. The model's replies never change a limit: they are cut to them.
 */

/** Pages and tokens each sub-query needs at least: a sub-query that cannot have them is not searched. */
export const MIN_PAGES_PER_QUERY = 1
export const MIN_TOKENS_PER_QUERY = 300
/** /v1/context's own cap on pages read per call. */
export const MAX_PAGES_PER_QUERY = 10

export interface ContextFound {
  passages: readonly ContextPassage[]
  pagesRead: number
  tokensUsed: number
  usedMc: number
}

export interface ResearchEnv {
  /** One model call (counted in the state's meta by the env); throws ApiError when the model fails. */
  chat(messages: readonly ChatMessage[], opts: { json: boolean; maxTokens: number }): Promise<ModelReply>
  /** POST /v1/context's work for one sub-query, billed prepaid: what it used is reported, not debited. */
  context(query: string, num: number, maxTokens: number): Promise<ContextFound>
  /** Writes the state and adds `addMc` to what the job used; false when the lease was lost. */
  save(state: ResearchState, addMc: number): Promise<boolean>
  /** Why to stop now, if anything: DELETE, the runner stopping or the lease lost, the time for searches spent. */
  stop(): 'canceled' | 'interrupted' | 'searches_timed_out' | null
  /** Price of one model call that answered. */
  modelMc: number
  /** With output_schema: the compiled check. */
  checkOutput: CheckOutput | null
  now(): number
}

export type ResearchEnd =
  | { kind: 'completed'; result: ResearchResult; reportMc: number; reportCalls: number }
  | { kind: 'failed'; error: { code: string; message: string } }
  | { kind: 'canceled' }
  /** Stopping or the lease was lost: the job is left for its next claim. */
  | { kind: 'interrupted' }

class Halt extends Error {
  constructor(readonly end: ResearchEnd) {
    super(end.kind)
  }
}

const iso = (ms: number) => new Date(ms).toISOString()
const errorOf = (err: unknown) => (isApiError(err) ? (err as ApiError).toJSON() : { code: 'internal', message: (err as Error).message ?? 'failed' })

export async function runResearch(req: ResearchRequest, state: ResearchState, env: ResearchEnv): Promise<ResearchEnd> {
  try {
    const queries = await plan(req, state, env)
    await searchAll(req, queries, state, env)
    if (state.sources.length === 0) {
      return { kind: 'failed', error: { code: 'no_sources', message: 'no page read gave a passage: there was nothing to write a report from' } }
    }
    halt(env, false)
    return await report(req, state, env)
  } catch (err) {
    if (err instanceof Halt) return err.end
    throw err
  }
}

/** Throws the end to go to when the job must stop; searches that ran out of time only stop the searching. */
function halt(env: ResearchEnv, searching: boolean) {
  const why = env.stop()
  if (why === 'canceled') throw new Halt({ kind: 'canceled' })
  if (why === 'interrupted') throw new Halt({ kind: 'interrupted' })
  if (why === 'searches_timed_out' && searching) return 'timed_out'
  return null
}

async function step(state: ResearchState, env: ResearchEnv, s: ResearchStep, addMc: number) {
  state.steps.push(s)
  if (!(await env.save(state, addMc))) throw new Halt({ kind: 'interrupted' })
}

/** The plan step, or the one a restarted job saved; a failed call or a reply without queries falls back to the input. */
async function plan(req: ResearchRequest, state: ResearchState, env: ResearchEnv): Promise<string[]> {
  const saved = state.steps.find((s) => s.kind === 'plan')
  if (saved) return saved.queries
  halt(env, false)
  let reply: string | null = null
  let why: string | null = null
  try {
    reply = (await env.chat(planMessages(req.input, req.max_searches), { json: true, maxTokens: PLAN_MAX_TOKENS })).text
  } catch (err) {
    halt(env, false)
    why = `the planning call failed (${errorOf(err).message}), not billed`
  }
  const planned = readPlan(reply, req.input, req.max_searches)
  // Each sub-query needs a page and MIN_TOKENS_PER_QUERY tokens: more than the budget holds are not searched.
  const fits = Math.max(1, Math.min(req.max_pages / MIN_PAGES_PER_QUERY, Math.floor(req.max_tokens / MIN_TOKENS_PER_QUERY)))
  const queries = planned.queries.slice(0, fits)
  const notes = [why, planned.note, queries.length < planned.queries.length ? `only ${queries.length} sub-queries fit max_pages and max_tokens` : null]
  const note = notes.filter(Boolean).join('; ') || null
  if (reply !== null) state.meta.calls_billed++
  await step(
    state,
    env,
    { n: state.steps.length + 1, kind: 'plan', at: iso(env.now()), note, queries, credits_used: reply !== null ? toCredits(env.modelMc) : 0 },
    reply !== null ? env.modelMc : 0,
  )
  return queries
}

/** A /v1/context search per sub-query not yet searched, each with an equal share of what is left. */
async function searchAll(req: ResearchRequest, queries: readonly string[], state: ResearchState, env: ResearchEnv) {
  for (let i = state.steps.filter((s) => s.kind === 'search').length; i < queries.length; i++) {
    const query = queries[i]!
    const left = queries.length - i
    const base = { n: state.steps.length + 1, kind: 'search' as const, query, pages_read: 0, tokens: 0, sources: [], credits_used: 0 }
    if (halt(env, true) === 'timed_out') {
      await step(state, env, { ...base, at: iso(env.now()), note: 'not searched: the time for searches was spent', error: null }, 0)
      continue
    }
    const num = Math.min(MAX_PAGES_PER_QUERY, Math.floor((req.max_pages - state.meta.pages_read) / left))
    const maxTokens = Math.floor((req.max_tokens - state.meta.tokens_used) / left)
    let found: ContextFound
    try {
      found = await env.context(query, num, maxTokens)
    } catch (err) {
      halt(env, false)
      state.meta.searches++
      await step(state, env, { ...base, at: iso(env.now()), note: 'the search failed: not billed', error: errorOf(err) }, 0)
      continue
    }
    const added = addSources(state.sources, found.passages, query)
    state.meta.searches++
    state.meta.pages_read += found.pagesRead
    state.meta.tokens_used += found.tokensUsed
    const note = found.pagesRead === 0 ? 'no page of the results could be read' : found.passages.length === 0 ? 'no passage of the pages read matched' : null
    await step(
      state,
      env,
      {
        ...base,
        at: iso(env.now()),
        pages_read: found.pagesRead,
        tokens: found.tokensUsed,
        sources: added,
        credits_used: toCredits(found.usedMc),
        note,
        error: null,
      },
      found.usedMc,
    )
  }
}

/** Numbers the new passages after the sources so far; a passage another sub-query found already keeps its number. */
function addSources(sources: ResearchSource[], passages: readonly ContextPassage[], query: string): number[] {
  const numbers: number[] = []
  for (const p of passages) {
    const known = sources.find((s) => s.url === p.url && s.start === p.start && s.end === p.end)
    if (known) {
      if (!numbers.includes(known.n)) numbers.push(known.n)
      continue
    }
    const n = sources.length + 1
    sources.push({ n, url: p.url, title: p.title, query, text: p.text, start: p.start, end: p.end, tokens: p.tokens })
    numbers.push(n)
  }
  return numbers
}

/** The report: Markdown checked against the sources, or data valid against output_schema (one retry with the errors). */
async function report(req: ResearchRequest, state: ResearchState, env: ResearchEnv): Promise<ResearchEnd> {
  const count = state.sources.length
  const check = env.checkOutput
  const schema = req.output_schema
  let messages = schema && check ? dataMessages(req.input, state.sources, schema) : reportMessages(req.input, state.sources)
  const attempts = schema && check ? 2 : 1
  let answered = 0
  let problems = ''
  for (let attempt = 1; attempt <= attempts; attempt++) {
    const at = { n: 0, kind: 'report' as const, attempt }
    let reply: ModelReply
    try {
      reply = await env.chat(messages, { json: schema !== undefined, maxTokens: REPORT_MAX_TOKENS })
    } catch (err) {
      halt(env, false)
      const error = errorOf(err)
      await step(state, env, { ...at, n: state.steps.length + 1, at: iso(env.now()), outcome: 'failed', note: error.message }, 0)
      return { kind: 'failed', error: { code: error.code, message: `the report could not be written: ${error.message}` } }
    }
    answered++
    const end = (outcome: 'ok' | 'invalid', note: string | null) => step(state, env, { ...at, n: state.steps.length + 1, at: iso(env.now()), outcome, note }, 0)
    if (schema && check) {
      const read = readData(reply.text, check, count)
      if (read.ok) {
        await end('ok', null)
        const result: ResearchResult = { format: 'json', data: read.data, basis: read.basis, cited: read.cited }
        return { kind: 'completed', result, reportMc: answered * env.modelMc, reportCalls: answered }
      }
      problems = read.problems
      await end('invalid', `the output failed its schema: ${problems}`)
      halt(env, false)
      messages = retryMessages(messages, reply.text, problems)
      continue
    }
    const checked = checkReport(reply.text, count)
    if (!checked.text) {
      await end('invalid', 'the report cited none of the sources')
      return { kind: 'failed', error: { code: 'no_report', message: 'the model wrote no sentence citing a source; the sources found are kept' } }
    }
    await end('ok', checked.dropped > 0 ? `${checked.dropped} sentence(s) citing no source were dropped` : null)
    return {
      kind: 'completed',
      result: { format: 'markdown', report: checked.text, cited: checked.cited },
      reportMc: answered * env.modelMc,
      reportCalls: answered,
    }
  }
  return { kind: 'failed', error: { code: 'invalid_output', message: `the output failed output_schema twice: ${problems}` } }
}
