import { ApiError } from '../../errors.ts'
import type { RouteAttempt } from './upstream.types.ts'

export type UpstreamErrorCode = 'upstream_blocked' | 'upstream_timeout' | 'upstream_error'

const RETRY_AFTER_SECONDS: Record<UpstreamErrorCode, number> = {
  // An engine that rate limits us usually keeps doing so for a while; a short retry only adds load.
  upstream_blocked: 30,
  upstream_timeout: 5,
  upstream_error: 5,
}

/**
 * An ApiError that also carries the attempts made, so a caller that catches it (engine=auto
 * fallback, consensus, batch jobs) can still report `meta.route`. The message names the engine
 * and nothing else: no proxy address, no mapped host, no stack.
 */
export class UpstreamError extends ApiError {
  constructor(
    code: UpstreamErrorCode,
    message: string,
    readonly attempts: RouteAttempt[],
    cause?: unknown,
  ) {
    super(code, message, { retryAfterSeconds: RETRY_AFTER_SECONDS[code], cause })
    this.name = 'UpstreamError'
  }
}

export const isUpstreamError = (e: unknown): e is UpstreamError => e instanceof UpstreamError

/** The attempts behind a failed fetch, or [] for any other error. */
export function attemptsOf(e: unknown): RouteAttempt[] {
  return isUpstreamError(e) ? e.attempts : []
}

export function upstreamErrorFor(code: UpstreamErrorCode, engine: string, attempts: RouteAttempt[]) {
  const message =
    code === 'upstream_blocked'
      ? `${engine} is rate limiting requests; try again later`
      : code === 'upstream_timeout'
        ? `${engine} did not answer in time`
        : `${engine} results could not be fetched`
  return new UpstreamError(code, message, attempts)
}
