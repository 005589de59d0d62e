import type { FastifyInstance } from 'fastify'
import type { ApiError, ErrorCode } from '../../../errors.ts'
import { answerErrorsWith } from '../../../http/error-handler.ts'
import type { ErrorShape } from '../../../http/error-reply.ts'
import { errorResponses, jsonAnswer } from '../../../http/error-schema.ts'
import { TavilyError } from './tavily.response.ts'

/**
 * Trawl's error codes as the statuses Tavily's clients understand (tavily-python: 400 bad request,
 * 401 invalid key, 403/432/433 forbidden, 429 rate limit; @tavily/core reads `detail.error` of
 * any status). Out of credits and over a key's limit are Tavily's 432 (plan limit), over the
 * account's spend cap 433 (pay-as-you-go limit). 413, 415 and 503 keep their status.
 */
const TAVILY_STATUS: Partial<Record<ErrorCode, number>> = {
  insufficient_credits: 432,
  key_limit_reached: 432,
  daily_limit_reached: 432,
  spend_cap_reached: 433,
}

export function tavilyStatus(error: ApiError): number {
  return TAVILY_STATUS[error.code] ?? error.status
}

/**
 * Tavily's error body, `{"detail": {"error": "..."}}`. Not Trawl's `{"error": {code, …}}`:
 * @tavily/core reads an object `error` with a string `code` as its keyless-mode limit envelope.
 * The Trawl code stays available in the X-Trawl-Error-Code header.
 */
export const tavilyEnvelope: ErrorShape = (error) => ({
  status: tavilyStatus(error),
  body: { detail: { error: error.message } },
  headers: { 'x-trawl-error-code': error.code },
})

/** Inside the /compat/tavily scope every error, and every unknown path, answers in Tavily's shape. */
export function tavilyErrorHandling(scope: FastifyInstance) {
  answerErrorsWith(scope, tavilyEnvelope, "; Trawl answers Tavily's /search, /extract, /map, /crawl and /usage")
}

const tavilyError = (description: string) => jsonAnswer(description, TavilyError)

/**
 * The statuses these routes answer, with Tavily's body; the 4XX/5XX ranges (Trawl's envelope)
 * cover only what is refused before a route is chosen (a malformed URL or request line).
 */
export const tavilyErrorResponses = {
  400: tavilyError('Bad request: a parameter is missing, unknown, out of range or of the wrong type (also 413, 415)'),
  401: tavilyError('Missing, malformed, invalid or revoked API key'),
  403: tavilyError('Forbidden'),
  429: tavilyError('Too many requests per second for this key (Retry-After)'),
  432: tavilyError('Out of credits, or over the key’s monthly credit limit (Tavily: plan limit)'),
  433: tavilyError('Over the account’s monthly spend cap (Tavily: pay-as-you-go limit)'),
  500: tavilyError('Unexpected error; not billed'),
  503: tavilyError('The search engine or page could not be reached, blocked us or timed out (Retry-After); not billed'),
  ...errorResponses,
}
