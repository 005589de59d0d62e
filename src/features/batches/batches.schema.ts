import { z } from 'zod'
import { webhookUrl } from '../../params/job.params.ts'
import { BATCH_ENDPOINTS } from './batches.endpoints.ts'

/** A batch holds 1 to 100 requests (docs/batches.md). */
export const MAX_BATCH_REQUESTS = 100

const sizeMessage = `requests must be an array of 1 to ${MAX_BATCH_REQUESTS} request objects`

/**
 * POST /v1/batches (docs/batches.md). Each entry of `requests` is only required to be there: it is
 * validated on its own by the realtime endpoint's schema, so a bad entry becomes an error object in
 * `batches[]` instead of failing the whole call.
 */
export const BatchParams = z.strictObject({
  endpoint: z
    .enum(BATCH_ENDPOINTS, {
      error: (issue) => (issue.input === undefined ? 'endpoint is required' : `endpoint must be one of ${BATCH_ENDPOINTS.join(', ')}`),
    })
    .describe('the realtime endpoint every request of the batch is sent to'),
  requests: z
    .array(z.unknown(), { error: sizeMessage })
    .min(1, sizeMessage)
    .max(MAX_BATCH_REQUESTS, `requests may hold at most ${MAX_BATCH_REQUESTS} requests per batch; send more with several batches`)
    .describe('1 to 100 objects with the same fields as the realtime endpoint; each is validated on its own'),
  webhook_url: webhookUrl.optional().describe('receives one signed batch.completed per finished job; default: the account webhook'),
})

export type BatchParams = z.infer<typeof BatchParams>
