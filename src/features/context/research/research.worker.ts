import type { Billing } from '../../../billing/billed-lookup.ts'
import { refundUnused } from '../../../billing/held-job.ts'
import { toCredits } from '../../../billing/money.ts'
import { modelCallPriceMc } from '../../../billing/prices.ts'
import type { AppDeps } from '../../../deps.ts'
import type { AuthContext } from '../../../http/auth.ts'
import { endHeldJob } from '../../../jobs/jobs.store.ts'
import { type JobContext, type JobKind, requestQueuedTiming, wakeJobs } from '../../../jobs/runner.ts'
import { type ChatMessage, chat, type ModelConfig } from '../../../llm/chat-model.ts'
import { compileOutputSchema } from '../../../llm/json-schema.ts'
import type { ResearchJobRow } from '../../../store/schema.ts'
import { enqueueWebhook, WEBHOOK_JOB } from '../../../webhooks/webhooks.service.ts'
import { runContext } from '../context.service.ts'
import { type ResearchEnd, type ResearchEnv, runResearch } from './research.runner.ts'
import { findResearchById, readResearchCancel, saveLeasedResearch, updateResearch } from './research.store.ts'
import { RESEARCH_ENDPOINT, RESEARCH_JOB, RESEARCH_RESULT_TTL_MS, type ResearchRequest, type ResearchState } from './research.types.ts'

/** Searches and pages were held when the job was queued: runContext reports their usual price and debits nothing. */
const PREPAID: Billing = { mode: 'prepaid', factor: 1 }
const CANCEL_CHECK_MS = 1_000
/** Sub-queries not started within this long after the job (re)started are skipped; the report is still written. */
const SEARCH_TIME_MS = 5 * 60_000
const RESEARCH_PER_WORKER = 4
/** A job claimed this often without ending (its workers kept dying on it) ends with what it has. */
const MAX_CLAIMS = 5

export interface ResearchWorkerDeps extends AppDeps {
  /** The key that queued the job, as it is now (revoked: the job fails); the composition root supplies it. */
  authFor(keyId: string): Promise<AuthContext>
}

/**
 * Runs queued research jobs on the job runner (jobs/runner.ts). A job saves each step as it ends,
 * with what it used, fenced on its lease; a job taken over (a process died) or requeued (a
 * graceful stop) resumes from those steps, so no step is done or paid for twice. It ends in one
 * transaction fenced on the lease: final state, the report's model calls when completed, the
 * refund of what was held and not used, and the research.completed delivery.
 */
export function researchJobKind(deps: ResearchWorkerDeps): JobKind {
  const { config } = deps
  return {
    name: RESEARCH_JOB,
    table: 'research_jobs',
    concurrency: RESEARCH_PER_WORKER,
    ...requestQueuedTiming(config),
    requestIdColumn: 'request_id',
    run: (id, ctx) => runResearchJob(deps, id, ctx),
  }
}

/** One claimed job: its checks, the run from the steps saved so far, then its end (unless interrupted). */
async function runResearchJob(deps: ResearchWorkerDeps, id: string, ctx: JobContext) {
  const { store, config, log } = deps
  const row = await findResearchById(store.db, id)
  if (!row || row.lease_owner !== ctx.workerId || row.status !== 'running' || ctx.interrupted()) return
  const request = JSON.parse(row.request) as ResearchRequest
  const state: ResearchState = { steps: JSON.parse(row.steps), sources: JSON.parse(row.sources), meta: JSON.parse(row.meta) }
  if (row.attempts > MAX_CLAIMS) return finishResearch(deps, row, ctx, state, failed('internal', `the job was interrupted ${row.attempts - 1} times`))
  const model = config.llm
  if (!model) return finishResearch(deps, row, ctx, state, failed('not_configured', 'the operator removed the chat model (TRAWL_LLM_URL) before the job ran'))
  let auth: AuthContext
  try {
    auth = await deps.authFor(row.key_id)
  } catch (err) {
    return finishResearch(deps, row, ctx, state, failed('unauthorized', (err as Error).message))
  }
  void updateResearch(store.db, id, { started_at: row.started_at ?? Date.now() }).catch((err) => log.warn({ err, research: id }, 'start time not saved'))

  // DELETE sets the flag from any process; it is read here every second and aborts a model call in flight.
  const cancel = new AbortController()
  const cancelWatch = setInterval(async () => {
    if ((await readResearchCancel(store.db, id).catch(() => 0)) === 1) cancel.abort()
  }, CANCEL_CHECK_MS)
  cancelWatch.unref()
  let end: ResearchEnd
  try {
    const env = researchEnv(deps, { row, ctx, request, state, model, auth }, cancel.signal)
    // Accepted at POST, so it compiles again; its check is what the report's data must pass.
    if (request.output_schema) env.checkOutput = await compileOutputSchema(request.output_schema)
    end = row.cancel_requested === 1 ? { kind: 'canceled' } : await runResearch(request, state, env)
  } catch (err) {
    if (ctx.interrupted()) return
    log.error({ err, research: id }, 'research job failed unexpectedly')
    end = failed('internal', 'the job failed unexpectedly; what was not used is refunded')
  } finally {
    clearInterval(cancelWatch)
  }
  if (end.kind === 'interrupted') return
  await finishResearch(deps, row, ctx, state, end)
}

/** A job as its run sees it: the row as claimed, the claim, its request and state, the model, the key. */
interface ResearchRun {
  row: ResearchJobRow
  ctx: JobContext
  request: ResearchRequest
  state: ResearchState
  model: ModelConfig
  auth: AuthContext
}

/** The runner's I/O: the model (usage counted in the state), /v1/context's work billed prepaid, and the fenced save. */
function researchEnv(deps: ResearchWorkerDeps, { row, ctx, request, state, model, auth }: ResearchRun, signal: AbortSignal): ResearchEnv {
  const searchUntil = Date.now() + SEARCH_TIME_MS
  let usedMc = row.credits_used_mc
  return {
    modelMc: modelCallPriceMc(model.callCredits),
    checkOutput: null,
    now: Date.now,
    stop: () => (signal.aborted ? 'canceled' : ctx.interrupted() ? 'interrupted' : Date.now() > searchUntil ? 'searches_timed_out' : null),
    chat: async (messages: readonly ChatMessage[], opts) => {
      state.meta.calls++
      const reply = await chat(model, 'research', messages, { ...opts, signal })
      state.meta.prompt_tokens += reply.usage.prompt
      state.meta.completion_tokens += reply.usage.completion
      return reply
    },
    context: async (query, num, maxTokens) => {
      const req = { q: query, num, max_tokens: maxTokens, engine: request.engine, country: 'us', language: 'en' }
      const out = await runContext(deps, auth, req, row.request_id, PREPAID)
      return { passages: out.body.passages, pagesRead: out.body.meta.pages_read, tokensUsed: out.body.meta.tokens_used, usedMc: out.usedMc }
    },
    save: async (s, addMc) => {
      // Never past what was held: the hold is the worst case, so this only guards a mistake.
      const add = Math.max(0, Math.min(addMc, row.credits_reserved_mc - usedMc))
      const saved = await saveLeasedResearch(deps.store.db, row.id, ctx.workerId, stateColumns(s), add)
      if (saved) usedMc += add
      return saved
    },
  }
}

/** Final state, the report's calls when completed, the refund of what is left and the webhook: one transaction, fenced on the lease. */
async function finishResearch(
  deps: ResearchWorkerDeps,
  row: ResearchJobRow,
  ctx: JobContext,
  state: ResearchState,
  end: Exclude<ResearchEnd, { kind: 'interrupted' }>,
) {
  const { store, config, log } = deps
  const now = Date.now()
  const status = end.kind
  const error = end.kind === 'failed' ? end.error : end.kind === 'canceled' ? { code: 'canceled', message: `canceled after ${state.steps.length} steps` } : null
  if (end.kind === 'completed') state.meta.calls_billed += end.reportCalls
  const delivery = await store.transaction(async (tx) => {
    const ended = await endHeldJob(
      tx,
      'research_jobs',
      row.id,
      ctx.workerId,
      {
        status,
        ...stateColumns(state),
        result: end.kind === 'completed' ? JSON.stringify(end.result) : null,
        error: error ? JSON.stringify(error) : null,
        completed_at: now,
        expires_at: now + RESEARCH_RESULT_TTL_MS,
      },
      end.kind === 'completed' ? end.reportMc : 0,
    )
    if (!ended) {
      log.info({ research: row.id }, 'research lease lost before it ended; the worker that holds it ends it')
      return null
    }
    await refundUnused(store, ended, RESEARCH_ENDPOINT, tx)
    const payload = {
      event: 'research.completed',
      id: row.id,
      status,
      created_at: new Date(ended.created_at).toISOString(),
      completed_at: new Date(now).toISOString(),
      credits_used: toCredits(ended.credits_used_mc),
      error,
      poll_url: `${config.baseUrl}/v1/research/${row.id}`,
    }
    const queued = await enqueueWebhook(deps, { accountId: ended.account_id, event: 'research.completed', url: ended.webhook_url, payload }, tx)
    if (queued) await updateResearch(tx, row.id, { webhook_delivery_id: queued.id })
    log.info({ research: row.id, status, credits_used: toCredits(ended.credits_used_mc) }, 'research ended')
    return queued
  })
  // enqueueWebhook's own wake-up ran before the commit; this one finds the row.
  if (delivery) wakeJobs(deps.signals, WEBHOOK_JOB)
}

const failed = (code: string, message: string) => ({ kind: 'failed' as const, error: { code, message } })

const stateColumns = (s: ResearchState) => ({ steps: JSON.stringify(s.steps), sources: JSON.stringify(s.sources), meta: JSON.stringify(s.meta) })
