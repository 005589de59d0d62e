import { z } from 'zod'
import { ErrorEnvelope, ErrorObject } from '../../http/error-schema.ts'

/** A batch job, for the OpenAPI document. */
export const BatchJob = z.object({
  id: z.string().describe('UUID'),
  status: z.enum(['queued', 'running', 'done', 'failed']),
  endpoint: z.string().describe('the realtime path, e.g. /v1/search'),
  created_at: z.string(),
  completed_at: z.string().nullable(),
  credits_used: z.number().describe('0.5 x the realtime price: what was charged while queued or running, what it cost once done; 0 if failed'),
  poll_url: z.string(),
  webhook_url: z.string().nullable().describe('the batch webhook_url; null when the account webhook (if any) is used'),
  webhook_status: z
    .enum(['pending', 'delivered', 'failed'])
    .nullable()
    .describe('null until the job has finished, and when there is no webhook to send batch.completed to'),
  error: ErrorObject.nullable(),
  result: z
    .unknown()
    .describe('when done: the body the realtime endpoint returns (with format=markdown, the Markdown text as a string); null otherwise; kept 24 hours'),
})

export type BatchJob = z.infer<typeof BatchJob>

/** 202: one entry per request, in order: a queued job, or the error the realtime endpoint would have answered. */
export const BatchCreated = z.object({
  batches: z.array(z.union([BatchJob, ErrorEnvelope])),
})
