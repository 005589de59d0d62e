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
/**
 * What a provider threw, as the walk can take it: a page the parser could not go through (a stack
 * overflow on a nesting no real page has, a shape it did not expect) is that engine's unreadable
 * page, an upstream_error the walk moves past, not a 500. Trawl's own errors and aborts stay.
 */
export function asEngineError(err: unknown, engine: string): unknown {
  if (err instanceof ApiError || !(err instanceof Error) || err.name === 'AbortError' || err.name === 'TimeoutError') return err
  return new UpstreamError('upstream_error', `${engine} answered a page that could not be read (${err.message.slice(0, 200)})`, [], err)
}

export function attemptsOf(e: unknown): RouteAttempt[] {
  return isUpstreamError(e) ? e.attempts : []
}

/**
 * The error for a provider whose attempts all failed; its message says why, route by route
 * ("google results could not be fetched: wml: TLS handshake failed; web: JavaScript page"), so a
 * JavaScript page is never reported as rate limiting. Only engine-side reasons appear: no address.
 */
export function upstreamErrorFor(code: UpstreamErrorCode, engine: string, attempts: RouteAttempt[]) {
  const lead =
    code === 'upstream_blocked'
      ? `${engine} refused the request`
      : code === 'upstream_timeout'
        ? `${engine} did not answer in time`
        : `${engine} results could not be fetched`
  const why = whyFailed(attempts.filter((a) => a.engine === engine))
  return new UpstreamError(code, why ? `${lead}: ${why}` : lead, attempts)
}

/** Each distinct failure of `attempts` once, prefixed by its route: "wml: HTTP 403; web: JavaScript page". */
export function whyFailed(attempts: RouteAttempt[]): string {
  const failed = attempts.filter((a) => a.outcome !== 'ok')
  const reasonOf = (a: RouteAttempt) => a.reason ?? (a.status ? `HTTP ${a.status}` : a.outcome)
  // A bare status says less than the engine's own reading of the same answer: said once, by the latter.
  const explained = new Set(failed.filter((a) => !/^HTTP \d+$/.test(reasonOf(a))).map((a) => a.route ?? ''))
  const reasons: string[] = []
  for (const a of failed) {
    const reason = reasonOf(a)
    if (/^HTTP \d+$/.test(reason) && explained.has(a.route ?? '')) continue
    const line = a.route ? `${a.route}: ${reason}` : reason
    if (!reasons.includes(line)) reasons.push(line)
  }
  return reasons.join('; ')
}

/** The most useful code for a set of failed attempts: a refusal, else a timeout, else an error. */
export function codeOfAttempts(attempts: RouteAttempt[]): UpstreamErrorCode {
  if (attempts.some((a) => a.outcome === 'blocked')) return 'upstream_blocked'
  if (attempts.some((a) => a.outcome === 'timeout')) return 'upstream_timeout'
  return 'upstream_error'
}
