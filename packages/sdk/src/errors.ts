import type { ApiErrorCode } from './types.ts'

/**
 * Codes of errors raised by the client itself, with no answer from the server to go by:
 * `timeout` (the call's deadline passed), `connection_error` (fetch failed: DNS, refused, reset,
 * CORS), `invalid_response` (an answer that is not the server's JSON, e.g. a proxy's HTML page).
 */
export type ClientErrorCode = 'timeout' | 'connection_error' | 'invalid_response'
export type TrawlErrorCode = ApiErrorCode | ClientErrorCode

export interface TrawlErrorInit {
  code: TrawlErrorCode
  message: string
  /** HTTP status; 0 when no answer came back. */
  status: number
  requestId?: string | undefined
  /** Seconds from the Retry-After header (429 and 503). */
  retryAfter?: number | undefined
  cause?: unknown
}

/**
 * Every error the client throws. Branch on `code` (or `instanceof` a subclass), never on
 * `message`: `code` is the server's error code, or a ClientErrorCode when no answer came back.
 */
export class TrawlError extends Error {
  readonly code: TrawlErrorCode
  readonly status: number
  readonly requestId: string | undefined
  readonly retryAfter: number | undefined

  constructor(init: TrawlErrorInit) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause })
    this.name = new.target.name
    this.code = init.code
    this.status = init.status
    this.requestId = init.requestId
    this.retryAfter = init.retryAfter
  }
}

/** 400 (also 409 for running a paused monitor, 413, 415): a parameter missing, unknown, out of range or of the wrong type. */
export class InvalidRequestError extends TrawlError {}
/** 401: the key is missing, malformed, invalid or revoked. */
export class UnauthorizedError extends TrawlError {}
/** 402: the balance is too low. */
export class InsufficientCreditsError extends TrawlError {}
/** 403: the key's monthly credit limit is reached. */
export class KeyLimitReachedError extends TrawlError {}
/** 403: the account's monthly spend cap is reached. */
export class SpendCapReachedError extends TrawlError {}
/** 403: not allowed, e.g. more than 100 monitors. */
export class ForbiddenError extends TrawlError {}
/** 404: no such job, crawl or monitor for this account (or its result expired). */
export class NotFoundError extends TrawlError {}
/** 429: too many requests per second, queued batch jobs or running crawls; retried by the client after Retry-After. */
export class RateLimitedError extends TrawlError {}
/** 429: the free tier's daily limit; not retried (it lasts until the next UTC day). */
export class DailyLimitReachedError extends TrawlError {}
/** 500: an unexpected error on the server; not billed. */
export class InternalError extends TrawlError {}
/** 501: a feature the operator has not set up (a chat model for answers and research); not retried. */
export class NotConfiguredError extends TrawlError {}
/** 503: the upstream page could not be fetched or parsed; retried after Retry-After. */
export class UpstreamError extends TrawlError {}
/** 503: the upstream is rate limiting; retried after Retry-After. */
export class UpstreamBlockedError extends TrawlError {}
/** 503: the search took too long; retried after Retry-After. */
export class UpstreamTimeoutError extends TrawlError {}
/** 503: the endpoint is temporarily unavailable; retried after Retry-After. */
export class UnavailableError extends TrawlError {}
/** The call's deadline (`timeout`) passed before an answer, retries included. */
export class TimeoutError extends TrawlError {}
/** fetch failed without an answer (connection refused or reset, DNS, CORS in a browser). */
export class ConnectionError extends TrawlError {}
/** An answer that is not the server's JSON (e.g. an HTML page from a proxy in front of it). */
export class InvalidResponseError extends TrawlError {}

/**
 * The class for each code. Typed over every code the generated ErrorEnvelope lists, so a code the
 * server adds fails type-checking here until it has a class.
 */
export const ERROR_CLASSES: { readonly [C in TrawlErrorCode]: new (init: TrawlErrorInit) => TrawlError } = {
  invalid_request: InvalidRequestError,
  unauthorized: UnauthorizedError,
  insufficient_credits: InsufficientCreditsError,
  key_limit_reached: KeyLimitReachedError,
  spend_cap_reached: SpendCapReachedError,
  forbidden: ForbiddenError,
  not_found: NotFoundError,
  rate_limited: RateLimitedError,
  daily_limit_reached: DailyLimitReachedError,
  internal: InternalError,
  not_configured: NotConfiguredError,
  upstream_error: UpstreamError,
  upstream_blocked: UpstreamBlockedError,
  upstream_timeout: UpstreamTimeoutError,
  unavailable: UnavailableError,
  timeout: TimeoutError,
  connection_error: ConnectionError,
  invalid_response: InvalidResponseError,
}

/** The error of the right class for a code. */
export function trawlError(init: TrawlErrorInit): TrawlError {
  const Class = Object.hasOwn(ERROR_CLASSES, init.code) ? ERROR_CLASSES[init.code] : TrawlError
  return new Class(init)
}

/** True when `err` is a TrawlError, optionally of one of the given codes (narrows `code`). */
export function isTrawlError<C extends TrawlErrorCode = TrawlErrorCode>(err: unknown, ...codes: C[]): err is TrawlError & { code: C } {
  return err instanceof TrawlError && (codes.length === 0 || (codes as TrawlErrorCode[]).includes(err.code))
}

/** Thrown by verifyWebhook when a delivery's signature or timestamp does not check out. */
export class WebhookVerificationError extends Error {
  override name = 'WebhookVerificationError'
}
