import { z } from 'zod'
import { ErrorObject } from '../../../http/error-schema.ts'

/** What GET /v1/research/{id}, its events and research.completed carry (docs/research.md). */

const stepBase = {
  n: z.number().int().describe('1, 2, 3… in the order the steps ended; the SSE event id'),
  at: z.string().describe('when the step ended'),
  note: z.string().nullable().describe('what Trawl did that the model did not ask for: a fallback, a limit applied, a check failed'),
}

export const ResearchPlanStep = z.object({
  ...stepBase,
  kind: z.literal('plan'),
  queries: z.array(z.string()).describe('the sub-queries to search, as Trawl kept them'),
  credits_used: z.number().describe('the model call, when it answered'),
})

export const ResearchSearchStep = z.object({
  ...stepBase,
  kind: z.literal('search'),
  query: z.string(),
  pages_read: z.number().int(),
  tokens: z.number().int().describe("the passages' o200k tokens"),
  sources: z.array(z.number().int()).describe('the numbers of the sources this search added'),
  credits_used: z.number().describe('the search and its pages, at the prices of POST /v1/context'),
  error: ErrorObject.nullable().describe('the search failed (not billed); the research goes on with the next'),
})

export const ResearchReportStep = z.object({
  ...stepBase,
  kind: z.literal('report'),
  attempt: z.number().int().describe('1, or 2 when the first output failed its schema'),
  outcome: z.enum(['ok', 'invalid', 'failed']).describe('ok: written and checked; invalid: the output failed its checks; failed: the model call failed'),
})

export const ResearchStep = z.discriminatedUnion('kind', [ResearchPlanStep, ResearchSearchStep, ResearchReportStep]).describe('one step of a research job')

export const ResearchSource = z.object({
  n: z.number().int().describe('what [n] and basis refer to'),
  url: z.string(),
  title: z.string().nullable(),
  query: z.string().describe('the sub-query it was found for'),
  text: z.string().describe("the passage: a slice of its page's Markdown as /v1/webpage returns it"),
  start: z.number().int(),
  end: z.number().int(),
  tokens: z.number().int(),
})

export const ResearchMeta = z.object({
  model: z.string().nullable().describe('TRAWL_LLM_MODEL, or null when the endpoint chooses'),
  calls: z.number().int().describe('model calls made'),
  calls_billed: z.number().int().describe('model calls billed: the plan when it answered, the report calls when the job completed'),
  prompt_tokens: z.number().int(),
  completion_tokens: z.number().int(),
  searches: z.number().int().describe('sub-queries searched'),
  pages_read: z.number().int(),
  tokens_used: z.number().int().describe("the sources' o200k tokens together; at most max_tokens"),
})

export const ResearchResult = z.object({
  format: z.enum(['markdown', 'json']),
  report: z.string().optional().describe('without output_schema: Markdown whose every sentence cites sources as [n]'),
  data: z.record(z.string(), z.unknown()).optional().describe('with output_schema: an object valid against it'),
  basis: z
    .record(z.string(), z.array(z.number().int()))
    .optional()
    .describe('with output_schema: for each top-level field filled, the sources it came from (only sources that exist)'),
  cited: z.array(z.number().int()).describe('the sources the report or basis cites, in order of first citation'),
})

export const ResearchTask = z.object({
  id: z.string(),
  kind: z.literal('research'),
  status: z.enum(['queued', 'running', 'completed', 'failed', 'canceled']),
  created_at: z.string().nullable(),
  started_at: z.string().nullable(),
  completed_at: z.string().nullable(),
  request: z.record(z.string(), z.unknown()).describe('the normalised request, defaults filled in'),
  credits_reserved: z.number().describe('the worst case, debited when queued; what is not used is refunded when the job ends'),
  credits_used: z.number(),
  webhook_status: z.enum(['pending', 'delivered', 'failed']).nullable(),
  steps: z.array(ResearchStep).describe('the steps so far'),
  sources: z.array(ResearchSource).describe('every passage found so far, numbered across sub-queries; kept when the job fails'),
  result: ResearchResult.nullable().describe('once completed'),
  meta: ResearchMeta,
  error: ErrorObject.nullable(),
})

export type ResearchStep = z.infer<typeof ResearchStep>
export type ResearchSource = z.infer<typeof ResearchSource>
export type ResearchMeta = z.infer<typeof ResearchMeta>
export type ResearchResult = z.infer<typeof ResearchResult>
export type ResearchTask = z.infer<typeof ResearchTask>
