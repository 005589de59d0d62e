import { ApiError } from '../errors.ts'
import type { AuthContext } from '../http/auth.ts'
import type { ParseQuality, SearchRequest, VerticalRequest } from './engine.types.ts'
import { type Candidate, isFallbackError, readyFirst, type Tried, walk } from './fallback-walk.ts'
import type { HealthOutcome } from './health.ts'
import type { EngineParam, EngineVerticalName } from './provider.types.ts'
import { ENGINE_NAMES, type EngineName, type Engines, PRIMARY_ENGINE } from './registry.ts'
import type { EngineAnswer, SearchEngine } from './search-engine.types.ts'
import { sentParams } from './sent-params.ts'
import type { RouteAttempt } from './upstream/upstream.types.ts'
import { asEngineError, attemptsOf, codeOfAttempts, UpstreamError, type UpstreamErrorCode, whyFailed } from './upstream/upstream-error.ts'

export { sentParams }

/**
 * The `engine` parameter as one canonical string, echoed in `request.engine` and part of the cache
 * key: a provider name, `auto`, `consensus`, or a comma-separated list of providers (in the order
 * given, duplicates dropped). No `engine` means the primary, or `auto` for a key with fallback on.
 */
export function resolveEngineName(engine: string | string[] | undefined, auth: AuthContext, opts: { consensus?: boolean } = {}): string {
  if (engine === undefined) return auth.allowFallback ? 'auto' : PRIMARY_ENGINE
  const names = [...new Set((Array.isArray(engine) ? engine : engine.split(',')).map((s) => s.trim().toLowerCase()).filter(Boolean))]
  const valid = [...ENGINE_NAMES, 'auto', ...(opts.consensus ? ['consensus'] : [])]
  // " " or "," names no engine; read as the default it would search (and bill) what was not asked for.
  if (names.length === 0) throw new ApiError('invalid_request', `engine must name a provider or mode: ${valid.join(', ')}`)
  for (const name of names) {
    if (name === 'consensus' && !opts.consensus) throw new ApiError('invalid_request', 'engine consensus is only supported on /v1/search')
    if (!valid.includes(name)) throw new ApiError('invalid_request', `engine ${name} is not known; use one of ${valid.join(', ')}, or a list of providers`)
  }
  const mode = names.find((n) => n === 'auto' || n === 'consensus')
  if (mode && names.length > 1) throw new ApiError('invalid_request', `engine ${mode} stands alone; a list names providers only`)
  return names.join(',')
}

/** What a request needs of an engine: the vertical, and the optional parameters it set. */
export interface EngineNeed {
  vertical: EngineVerticalName
  params: EngineParam[]
}

const paramLabel = (p: EngineParam) => (p === 'include_domains' ? 'include_domains / exclude_domains' : p)

/**
 * The providers a request may be answered by, in the order to try them. A named provider that
 * lacks the vertical or a parameter sent is a 400 naming the providers that have it (never a
 * parameter silently dropped); `auto`, `consensus` and lists keep the providers that can serve
 * the request, and are a 400 when none can. Thrown before anything is reserved.
 */
export function planEngines(engines: Engines, choice: string, need: EngineNeed): EngineName[] {
  const names = choice === 'auto' ? engines.autoOrder() : choice === 'consensus' ? engines.consensusSet() : (choice.split(',') as EngineName[])
  const absent = names.find((n) => !engines.get(n))
  if (absent) throw new ApiError('invalid_request', `engine ${absent} is not configured on this server; engines it has: ${engines.names().join(', ')}`)
  const where = need.vertical === 'search' ? '/v1/search' : `/v1/${need.vertical}`
  const offering = engines.offering(need.vertical)
  const fit = names.filter((n) => offering.includes(n))
  if (fit.length === 0) {
    throw new ApiError('invalid_request', `engine ${choice} does not offer ${where}; engines that do: ${offering.join(', ')}`)
  }
  const takes = (n: EngineName, p: EngineParam) => engines.get(n)?.takes(need.vertical, p) === true
  const able = fit.filter((n) => need.params.every((p) => takes(n, p)))
  if (able.length === 0 || (names.length === 1 && able.length < fit.length)) {
    const missing = need.params.find((p) => !fit.every((n) => takes(n, p))) ?? need.params[0]
    const takers = offering.filter((n) => missing && takes(n, missing))
    throw new ApiError(
      'invalid_request',
      `${missing ? paramLabel(missing) : 'this request'} is not supported by engine ${choice} on ${where}; engines that take it: ${takers.join(', ') || 'none'}`,
    )
  }
  return able
}

export interface Answered<P> {
  engine: string
  page: P
  attempts: RouteAttempt[]
}

type Page = { results: unknown[]; parse_quality: ParseQuality; saysNoResults?: true }

/**
 * Asks the chosen provider, or walks `auto` / a list (fallback-walk.ts): the next provider
 * whenever one is blocked, times out, fails, or answers a page it could not read. Providers that
 * health marks blocked or drifting are skipped while others remain. Every attempt is recorded for
 * health and in `meta.route`.
 */
export async function askEngines<P extends Page>(
  engines: Engines,
  choice: string,
  need: EngineNeed,
  ask: (engine: SearchEngine<EngineName>, deadline: number, more: boolean) => Promise<EngineAnswer<P>> | undefined,
): Promise<Answered<P>> {
  const planned = planEngines(engines, choice, need).map((name) => providerCandidate(name, need))
  // One deadline for the whole walk: every route and provider asked shares it.
  const deadline = Date.now() + engines.deadlineMs
  const walked = await walk(planned, { health: engines.health, deadline }, (c, more) =>
    askOne(engines, c.engine, need.vertical, (engine) => ask(engine, deadline, more)),
  )
  if ('answered' in walked) return { engine: walked.answered.engine, page: walked.page, attempts: walked.attempts }
  throw combinedError(walked.lastError, walked.attempts)
}

/**
 * `consensus`: every provider of the consensus set that can serve the request, in parallel, under
 * one deadline. Returns each provider that answered with results; failures stay in the attempts.
 */
export async function askConsensus<P extends Page>(
  engines: Engines,
  need: EngineNeed,
  ask: (engine: SearchEngine<EngineName>, signal: AbortSignal, deadline: number) => Promise<EngineAnswer<P>>,
): Promise<{ answers: Answered<P>[]; attempts: RouteAttempt[] }> {
  const planned = planEngines(engines, 'consensus', need).map((name) => providerCandidate(name, need))
  const { ready, passedOver } = readyFirst(planned, engines.health)
  const until = Date.now() + engines.deadlineMs
  const deadline = AbortSignal.timeout(engines.deadlineMs)
  const settled = await Promise.all(ready.map((c) => askOne(engines, c.engine, need.vertical, (engine) => ask(engine, deadline, until))))
  const attempts = [...passedOver]
  const answers: Answered<P>[] = []
  for (const [i, answer] of settled.entries()) {
    attempts.push(...answer.attempts)
    const name = ready[i]?.engine as EngineName
    if ('error' in answer) {
      if (!isFallbackError(answer.error) && !deadline.aborted) throw answer.error
      continue
    }
    if (answer.page.results.length > 0) answers.push({ engine: name, page: answer.page, attempts: answer.attempts })
  }
  if (answers.length === 0) {
    const failed = settled.find((a): a is { error: unknown; attempts: RouteAttempt[] } => 'error' in a)
    // Stopped by the shared deadline (an abort, not an engine's error): a timeout, said as one.
    if (failed && deadline.aborted && !isFallbackError(failed.error)) {
      throw new UpstreamError('upstream_timeout', `no engine of the consensus set answered within ${engines.deadlineMs / 1000} s`, attempts)
    }
    if (failed) throw combinedError(failed.error, attempts)
  }
  return { answers, attempts }
}

/** What a web search request needs of a provider: the search vertical and the parameters sent. */
export const searchNeed = (req: SearchRequest): EngineNeed => ({ vertical: 'search', params: sentParams(req) })

/** What a vertical request needs of a provider. */
export const verticalNeed = (req: VerticalRequest): EngineNeed => ({ vertical: req.endpoint, params: sentParams(req) })

/** A web search on `req.engine` (a provider, a list or auto), walked as askEngines does. */
export const searchWeb = (engines: Engines, req: SearchRequest) =>
  askEngines(engines, req.engine, searchNeed(req), (engine, deadline, more) => engine.search(req, { deadline, more }))

/** A web search on the consensus set, as askConsensus does. */
export const searchConsensus = (engines: Engines, req: SearchRequest) =>
  askConsensus(engines, searchNeed(req), (engine, signal, deadline) => engine.search(req, { signal, deadline }))

/** A vertical (images, news, …) on `req.engine`, the primary when none is named. */
export const searchVertical = (engines: Engines, req: VerticalRequest) =>
  askEngines(engines, req.engine ?? engines.primary, verticalNeed(req), (engine, deadline, more) => engine.vertical?.(req, { deadline, more }))

/** One provider asked once, its outcome recorded for health. */
async function askOne<P extends Page>(
  engines: Engines,
  name: EngineName,
  layout: EngineVerticalName,
  ask: (engine: SearchEngine<EngineName>) => Promise<EngineAnswer<P>> | undefined,
): Promise<Tried<P>> {
  const engine = engines.get(name)
  const started = performance.now()
  const pending = engine && ask(engine)
  if (!pending) return { error: new ApiError('invalid_request', `engine ${name} does not offer this request`), attempts: [] }
  try {
    const answer = await pending
    // A page that says nothing matched is a clean answer; one empty for no stated reason may be drift.
    const quality: ParseQuality = answer.page.saysNoResults
      ? 'ok'
      : answer.page.results.length === 0 && answer.page.parse_quality === 'ok'
        ? 'empty'
        : answer.page.parse_quality
    engines.health.record(name, layout, { outcome: 'ok', ms: Math.round(performance.now() - started), quality })
    return answer
  } catch (caught) {
    const error = asEngineError(caught, name)
    const ms = Math.round(performance.now() - started)
    const outcome = outcomeOf(error)
    engines.health.record(name, layout, { outcome, ms, ...(error instanceof Error && { reason: error.message }) })
    // An engine stopped by the consensus deadline (or failing before any request) has no attempts
    // of its own; the route still shows it was asked.
    const attempts = attemptsOf(error)
    const reason = error instanceof Error ? error.message : undefined
    return { error, attempts: attempts.length > 0 ? attempts : [{ engine: name, host: '', pool: null, outcome, ...(reason && { reason }), ms }] }
  }
}

/** A provider as the walk asks it: its health is kept per vertical. */
const providerCandidate = (name: EngineName, need: EngineNeed): Candidate & { engine: EngineName } => ({ engine: name, layout: need.vertical })

function outcomeOf(err: unknown): HealthOutcome {
  // The consensus deadline aborts a provider's request with the signal's own TimeoutError.
  if (err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError')) return 'timeout'
  const code = err instanceof ApiError ? err.code : 'internal'
  return code === 'upstream_blocked' ? 'blocked' : code === 'upstream_timeout' ? 'timeout' : 'error'
}

/** Blocked anywhere outranks a timeout, which outranks an error: the most useful thing to tell the caller. */
function combinedError(lastError: unknown, attempts: RouteAttempt[]): unknown {
  if (!isFallbackError(lastError)) return lastError ?? new ApiError('unavailable', 'no engine could answer this request', { retryAfterSeconds: 30 })
  const tried = [...new Set(attempts.filter((a) => a.outcome !== 'skipped').map((a) => a.engine))]
  if (tried.length <= 1)
    return lastError instanceof UpstreamError ? new UpstreamError(lastError.code as UpstreamErrorCode, lastError.message, attempts) : lastError
  const code = codeOfAttempts(attempts)
  // Each engine's reasons, route by route, so a caller of auto sees why each one failed.
  const lead =
    code === 'upstream_blocked'
      ? 'every engine tried refused the request'
      : code === 'upstream_timeout'
        ? 'no engine tried answered in time'
        : 'no engine tried could answer'
  const why = tried.map((name) => `${name}: ${whyFailed(attempts.filter((a) => a.engine === name)) || 'failed'}`).join(' | ')
  return new UpstreamError(code, `${lead} (${why})`, attempts)
}
