import { z } from 'zod'

/** SPEC "Errors": the body of every error, for the OpenAPI document. */
export const ErrorEnvelope = z
  .object({
    error: z.object({
      code: z.string().describe('branch on this: invalid_request, unauthorized, insufficient_credits, rate_limited, upstream_blocked, …'),
      message: z.string().describe('for people; names the parameter at fault'),
      request_id: z.string().describe('same as the X-Request-Id header'),
    }),
  })
  .describe('error envelope')

export const errorResponses = { '4xx': ErrorEnvelope, '5xx': ErrorEnvelope }
