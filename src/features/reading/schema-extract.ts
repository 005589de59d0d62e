import { modelCallPriceMc } from '../../billing/prices.ts'
import { type ModelConfig, requireModel } from '../../llm/chat-model.ts'
import { type CheckOutput, compileOutputSchema } from '../../llm/json-schema.ts'
import type { ModelUsage } from '../../llm/model.schema.ts'
import { type FillOutcome, fillSchema } from '../../llm/schema-fill.ts'

/**
 * `schema` on /v1/webpage and /v1/extract (docs/models.md "Schema extraction"): checked before any
 * credit moves (501 without a model, 400 for a schema that cannot be used), then each page read is
 * filled by the model (llm/schema-fill.ts). A page costs its model calls only when its data is
 * returned; a fill that fails is that page's error, and its calls are not billed.
 */

/** A fill is at most two calls: one, and one retry with the errors. */
export const MAX_CALLS_PER_PAGE = 2

export interface SchemaJob {
  model: ModelConfig
  schema: Record<string, unknown>
  check: CheckOutput
  prompt?: string
  /** Price of one model call. */
  callMc: number
  /** The calls made for every page, and those billed (pages whose data was returned). */
  usage: ModelUsage
  billedCalls: number
}

export async function prepareSchemaJob(
  llm: ModelConfig | null | undefined,
  params: { schema?: Record<string, unknown>; prompt?: string },
): Promise<SchemaJob | null> {
  if (!params.schema) return null
  const model = requireModel(llm, 'schema')
  const check = await compileOutputSchema(params.schema, 'schema')
  return {
    model,
    schema: params.schema,
    check,
    ...(params.prompt && { prompt: params.prompt }),
    callMc: modelCallPriceMc(model.callCredits),
    usage: { model: model.model, calls: 0, prompt_tokens: 0, completion_tokens: 0 },
    billedCalls: 0,
  }
}

/** Fills the schema from one page's Markdown, counting the calls (billed when the data is returned). */
export async function extractFields(job: SchemaJob, page: { url: string; markdown: string }): Promise<FillOutcome> {
  const outcome = await fillSchema(job.model, 'extract', page, job.schema, job.check, job.prompt)
  job.usage.calls += outcome.calls
  job.usage.prompt_tokens += outcome.usage.prompt
  job.usage.completion_tokens += outcome.usage.completion
  if (outcome.ok) job.billedCalls += outcome.calls
  return outcome
}
