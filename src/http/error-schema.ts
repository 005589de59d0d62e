import { z } from 'zod'
import type { ErrorCode } from '../errors.ts'

/** Every error code of the API, for the OpenAPI enum; the check below fails to compile when errors.ts gains one. */
const ERROR_CODES = [
  'invalid_request',
  'unauthorized',
  'insufficient_credits',
  'key_limit_reached',
  'spend_cap_reached',
  'forbidden',
  'not_found',
  'rate_limited',
  'daily_limit_reached',
  'internal',
  'not_configured',
  'upstream_error',
  'upstream_blocked',
  'upstream_timeout',
  'unavailable',
] as const satisfies readonly ErrorCode[]
const everyCodeListed: Exclude<ErrorCode, (typeof ERROR_CODES)[number]> extends never ? true : never = true
void everyCodeListed

/** The body of every error, for the OpenAPI document. */
export const ErrorEnvelope = z
  .object({
    error: z.object({
      code: z
        .enum(ERROR_CODES)
        .describe(
          'branch on this, not on message: 400 invalid_request (also 409, 413, 415), 401 unauthorized, 402 insufficient_credits, 403 key_limit_reached, spend_cap_reached or forbidden, 404 not_found, 429 rate_limited or daily_limit_reached, 500 internal, 501 not_configured (a feature the operator has not set up, e.g. a model), 503 upstream_error, upstream_blocked, upstream_timeout or unavailable',
        ),
      message: z.string().describe('for people; names the parameter at fault'),
      request_id: z.string().describe('same as the X-Request-Id header'),
    }),
  })
  .describe('error envelope')

export const errorResponses = { '4xx': ErrorEnvelope, '5xx': ErrorEnvelope }

/** A documented JSON answer with a description of its own: a 202, or a compatible API's error body. */
export const jsonAnswer = (description: string, schema: z.ZodType) => ({ description, content: { 'application/json': { schema } } })

/** An error kept with a result (a page not read, a job or crawl that failed): the envelope's code and message. */
export const ErrorObject = z.object({ code: z.string(), message: z.string() })
