/** Every error code of the API, with its HTTP status (the OpenAPI document lists them). Domain code picks the code, never the status. */
const STATUS = {
  invalid_request: 400,
  unauthorized: 401,
  insufficient_credits: 402,
  key_limit_reached: 403,
  spend_cap_reached: 403,
  forbidden: 403,
  not_found: 404,
  rate_limited: 429,
  daily_limit_reached: 429,
  internal: 500,
  not_configured: 501,
  upstream_error: 503,
  upstream_blocked: 503,
  upstream_timeout: 503,
  unavailable: 503,
} as const

export type ErrorCode = keyof typeof STATUS

export interface ApiErrorOptions {
  retryAfterSeconds?: number
  /** Overrides the table, e.g. 409 invalid_request for running a paused monitor. */
  status?: number
  cause?: unknown
}

/** The one error type: it fills the HTTP error body, `failed[]` entries, `batches[]` entries and `job.error`. */
export class ApiError extends Error {
  readonly status: number

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly opts: ApiErrorOptions = {},
  ) {
    super(message, { cause: opts.cause })
    this.status = opts.status ?? STATUS[code]
  }

  toBody(requestId: string) {
    return { error: { code: this.code, message: this.message, request_id: requestId } }
  }

  /** The wire form without a request id, for stored job errors. */
  toJSON() {
    return { code: this.code, message: this.message }
  }
}

export const isApiError = (e: unknown): e is ApiError => e instanceof ApiError
