import { modelCallPriceMc } from '../../../billing/prices.ts'
import { pagePriceMc } from '../../../reader/page-read.ts'
import type { ResearchMeta, ResearchSource, ResearchStep } from './research.response.ts'
import { RESEARCH_LIMITS, type ResearchParams } from './research.schema.ts'

/** What the service (queueing, reading, canceling) and the worker (running) share, so neither imports the other. */

/** The job kind's name: what `wakeJobs(signals, RESEARCH_JOB)` wakes. */
export const RESEARCH_JOB = 'research'
export const RESEARCH_RESULT_TTL_MS = 24 * 3600_000
export const RESEARCH_ENDPOINT = '/v1/research'

/** The request as stored and echoed: defaults filled in, the engine resolved for the key. */
export interface ResearchRequest {
  input: string
  max_searches: number
  max_pages: number
  max_tokens: number
  engine: string
  output_schema?: Record<string, unknown>
}

export function normaliseResearch(p: ResearchParams, engine: string): ResearchRequest {
  const { searches, pages, tokens } = RESEARCH_LIMITS
  return {
    input: p.input,
    max_searches: p.max_searches ?? searches.default,
    max_pages: p.max_pages ?? pages.default,
    max_tokens: p.max_tokens ?? tokens.default,
    engine,
    ...(p.output_schema && { output_schema: p.output_schema }),
  }
}

/** Report calls at most: one, and with output_schema one more when the first output fails it. */
export const reportCalls = (req: ResearchRequest) => (req.output_schema ? 2 : 1)

/**
 * The worst case, held when the job is queued: the planning call, every search at `searchMc` (a
 * consensus search pays per provider), every page, and every report call. Nothing the job does can
 * cost more; what it did not use is refunded when it ends.
 */
export function worstCaseMc(req: ResearchRequest, searchMc: number, callCredits: number): number {
  const modelMc = modelCallPriceMc(callCredits)
  return modelMc + req.max_searches * searchMc + req.max_pages * pagePriceMc(false) + reportCalls(req) * modelMc
}

/** The job's state as stored in its row: what a restarted job resumes from. */
export interface ResearchState {
  steps: ResearchStep[]
  sources: ResearchSource[]
  meta: ResearchMeta
}

export const emptyMeta = (model: string | null): ResearchMeta => ({
  model,
  calls: 0,
  calls_billed: 0,
  prompt_tokens: 0,
  completion_tokens: 0,
  searches: 0,
  pages_read: 0,
  tokens_used: 0,
})
