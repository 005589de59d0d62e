import { setTimeout as sleep } from 'node:timers/promises'
import { lockAccount } from '../../../billing/credits.store.ts'
import { charge, payerOf } from '../../../billing/credits.ts'
import { cancelBeforeStart, queuedHeldJob } from '../../../billing/held-job.ts'
import { searchPriceMc } from '../../../billing/prices.ts'
import { planEngines, resolveEngineName, searchNeed } from '../../../engines/choice.ts'
import type { Engines } from '../../../engines/registry.ts'
import { ApiError } from '../../../errors.ts'
import type { AuthContext } from '../../../http/auth.ts'
import { countActiveJobs } from '../../../jobs/jobs.store.ts'
import { type JobQueue, wakeJobs } from '../../../jobs/runner.ts'
import { type ModelConfig, requireModel } from '../../../llm/chat-model.ts'
import { compileOutputSchema } from '../../../llm/json-schema.ts'
import type { Store } from '../../../store/database.ts'
import type { ResearchJobRow } from '../../../store/schema.ts'
import { webhookDeliveryStatus } from '../../../webhooks/webhooks.service.ts'
import { contextSearch } from '../context.service.ts'
import type { ResearchParams } from './research.schema.ts'
import { findResearch, findResearchProgress, insertResearch, updateResearch } from './research.store.ts'
import { emptyMeta, normaliseResearch, RESEARCH_ENDPOINT, RESEARCH_JOB, RESEARCH_RESULT_TTL_MS, type ResearchRequest, worstCaseMc } from './research.types.ts'
import { sseEvent, toResearchView } from './research.view.ts'

export const MAX_ACTIVE_RESEARCH = 20
const tooMany = () =>
  new ApiError('rate_limited', `at most ${MAX_ACTIVE_RESEARCH} research jobs may be queued or running at once; wait for one to finish`, {
    retryAfterSeconds: 30,
  })

export type ResearchDeps = JobQueue & { engines: Engines; config: { llm?: ModelConfig | null } }

/** The price of one sub-query's search as runContext will price it: one page of results, per provider asked with consensus. */
function searchMcFor(engines: Engines, request: Pick<ResearchRequest, 'input' | 'engine'>): number {
  const search = contextSearch({ q: request.input, engine: request.engine, num: 1, max_tokens: 0, country: 'us', language: 'en' })
  // A choice that cannot serve a web search is a 400 now, before anything is held.
  const planned = planEngines(engines, request.engine, searchNeed(search))
  return searchPriceMc(search.num) * (request.engine === 'consensus' ? planned.length : 1)
}

/**
 * POST /v1/research: 400 for an engine or output_schema that cannot be used, then 501 without a
 * model, all before any credit moves; then the worst case is debited (the job refunds what it does not
 * use) and a queued row written, in one transaction under the account lock (at most 20 active).
 */
export async function startResearch(deps: ResearchDeps, auth: AuthContext, params: ResearchParams, requestId: string) {
  const request = normaliseResearch(params, resolveEngineName(params.engine, auth, { consensus: true }))
  const searchMc = searchMcFor(deps.engines, request)
  if (request.output_schema) await compileOutputSchema(request.output_schema)
  // After the request's own checks: a request that could never run is a 400 on any server.
  const model = requireModel(deps.config.llm, 'research')
  const reservedMc = worstCaseMc(request, searchMc, model.callCredits)
  const row: ResearchJobRow = {
    ...queuedHeldJob({ auth, requestId, request, reservedMc, webhookUrl: params.webhook_url }),
    steps: '[]',
    sources: '[]',
    meta: JSON.stringify(emptyMeta(model.model)),
  }
  const { store, signals } = deps
  const balanceMc = await store.transaction(async (tx) => {
    await lockAccount(tx, auth.accountId)
    if ((await countActiveJobs(tx, 'research_jobs', auth.accountId)) >= MAX_ACTIVE_RESEARCH) throw tooMany()
    const balance = await charge(store, payerOf(auth), reservedMc, requestId, RESEARCH_ENDPOINT, tx)
    await insertResearch(tx, row)
    return balance
  })
  wakeJobs(signals, RESEARCH_JOB)
  return { task: toResearchView(row, null), balanceMc }
}

const gone = (id: string) => new ApiError('not_found', `research ${id} does not exist, belongs to another account, or its result expired (kept 24 hours)`)
const expired = (row: { expires_at: number | null }) => row.expires_at != null && row.expires_at <= Date.now()

async function visibleResearch(store: Store, accountId: string, id: string) {
  const row = await findResearch(store.db, accountId, id)
  if (!row || expired(row)) throw gone(id)
  return row
}

/** GET /v1/research/{id}: the job, its steps and sources so far, and the result once it has ended. */
export async function getResearch(store: Store, accountId: string, id: string) {
  const row = await visibleResearch(store, accountId, id)
  const webhook = row.webhook_delivery_id ? await webhookDeliveryStatus(store, row.webhook_delivery_id) : null
  return toResearchView(row, webhook)
}

/**
 * DELETE /v1/research/{id}: a queued job is canceled and refunded at once; a running one is flagged
 * and stops at its next step (what it used is kept, the rest refunded); an ended one is left as it is.
 */
export async function cancelResearch({ store }: JobQueue, accountId: string, id: string) {
  const row = await visibleResearch(store, accountId, id)
  if (row.status === 'queued' && (await cancelBeforeStart(store, 'research_jobs', row, RESEARCH_ENDPOINT, RESEARCH_RESULT_TTL_MS)))
    return getResearch(store, accountId, id)
  // The worker reads the flag within a second, wherever it runs.
  if (row.status === 'queued' || row.status === 'running') await updateResearch(store.db, id, { cancel_requested: 1 })
  return getResearch(store, accountId, id)
}

/** How often the events stream looks at the job, and sends a comment to keep proxies from closing an idle stream. */
const EVENTS_POLL_MS = 250
const KEEP_ALIVE_MS = 15_000
/** A stream of a job that never runs (no worker) ends here; the client may connect again. */
const EVENTS_MAX_MS = 30 * 60_000

/** 404 before anything is streamed. */
export const assertResearchVisible = (store: Store, accountId: string, id: string) => visibleResearch(store, accountId, id).then(() => undefined)

/**
 * GET /v1/research/{id}/events: the steps after `after` (Last-Event-ID) as they are saved, one
 * `step` event each with its number as the event id, then one event named after the final status
 * holding the whole task, and the end of the stream. A client that connects late gets the steps
 * so far first.
 */
export async function* researchEvents(store: Store, accountId: string, id: string, after: number, signal: AbortSignal): AsyncGenerator<string> {
  const until = Date.now() + EVENTS_MAX_MS
  let sent = after
  let quietSince = Date.now()
  while (!signal.aborted && Date.now() < until) {
    const row = await findResearchProgress(store.db, accountId, id)
    if (!row || expired(row)) return
    const steps = JSON.parse(row.steps) as { n: number }[]
    for (const s of steps.filter((s) => s.n > sent)) {
      yield sseEvent('step', s, s.n)
      sent = s.n
      quietSince = Date.now()
    }
    if (row.status !== 'queued' && row.status !== 'running') {
      yield sseEvent(row.status, await getResearch(store, accountId, id))
      return
    }
    if (Date.now() - quietSince >= KEEP_ALIVE_MS) {
      yield ': keep-alive\n\n'
      quietSince = Date.now()
    }
    await sleep(EVENTS_POLL_MS, undefined, { signal }).catch(() => {})
  }
}
