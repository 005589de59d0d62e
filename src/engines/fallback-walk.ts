/**
 * The fallback walk, one set of rules for both levels: the providers of `auto` or a list
 * (choice.ts), and the web search routes of one provider (provider.routes.ts). Candidates that
 * health marks cooling down are passed over while another remains; the rest are asked in order
 * until one answers; a page with result markup of which nothing was read is kept as the last
 * resort; every attempt is collected for `meta.route`. What a failed walk is answered with is each
 * level's to say.
 */
import { ApiError } from '../errors.ts'
import type { ParseQuality } from './engine.types.ts'
import type { EngineHealth } from './health.ts'
import type { RouteAttempt } from './upstream/upstream.types.ts'

/** Something the walk may ask: a provider, or one route of a provider. Its health is kept under (engine, layout). */
export interface Candidate {
  engine: string
  /** A route's name; absent for a provider. */
  route?: string
  layout: string
}

type Page = { results: unknown[]; parse_quality: ParseQuality }

/** What asking one candidate came to; its attempts go into `meta.route` either way. */
export type Tried<P> = { page: P; attempts: RouteAttempt[] } | { error: unknown; attempts: RouteAttempt[] }

/** The candidate that answered, or the last failure when none did. */
export type Walked<C, P> = { answered: C; page: P; attempts: RouteAttempt[] } | { lastError: unknown; attempts: RouteAttempt[] }

export interface WalkRules {
  health: EngineHealth
  /** The request's one deadline (epoch ms): the candidates left when it has passed are not asked. */
  deadline?: number
}

/**
 * Asks `candidates` in order, healthy ones first, until one answers. `ask` gets `more` while
 * others wait after the candidate; an error that is not a refusal, timeout or failure upstream
 * ends the walk, thrown as is (a bug, a bad request, an abort).
 */
export async function walk<C extends Candidate, P extends Page>(
  candidates: readonly C[],
  rules: WalkRules,
  ask: (candidate: C, more: boolean) => Promise<Tried<P>>,
): Promise<Walked<C, P>> {
  const { ready, passedOver } = readyFirst(candidates, rules.health)
  const attempts = [...passedOver]
  let lastError: unknown
  let unreadable: { answered: C; page: P } | undefined
  for (const [i, candidate] of ready.entries()) {
    if (rules.deadline !== undefined && Date.now() >= rules.deadline) {
      attempts.push(...ready.slice(i).map((c) => notAsked(c, 'not asked: the request deadline had passed')))
      break
    }
    const more = i < ready.length - 1
    const tried = await ask(candidate, more)
    attempts.push(...tried.attempts)
    if ('error' in tried) {
      if (!isFallbackError(tried.error)) throw tried.error
      lastError = tried.error
      continue
    }
    // Result markup of which nothing was read: the next candidate may do better.
    if (more && tried.page.results.length === 0 && tried.page.parse_quality === 'partial') {
      attempts.push({ ...labelOf(candidate), host: '', pool: null, outcome: 'error', reason: 'page not understood (parse_quality partial)', ms: 0 })
      unreadable = { answered: candidate, page: tried.page }
      continue
    }
    return { answered: candidate, page: tried.page, attempts }
  }
  if (unreadable) return { ...unreadable, attempts }
  return { lastError, attempts }
}

/**
 * The candidates health lets through now, in order, and an attempt for each one cooling down.
 * Every candidate cooling down: trying them all beats a certain 503.
 */
export function readyFirst<C extends Candidate>(candidates: readonly C[], health: EngineHealth): { ready: readonly C[]; passedOver: RouteAttempt[] } {
  const ready = candidates.filter((c) => health.available(c.engine, c.layout))
  if (ready.length === 0) return { ready: candidates, passedOver: [] }
  const cooling = candidates.filter((c) => !ready.includes(c))
  const kind = (c: C) => (c.route === undefined ? 'engine' : 'route')
  return { ready, passedOver: cooling.map((c) => notAsked(c, `${kind(c)} ${health.state(c.engine, c.layout)}; not asked until its cool-down ends`)) }
}

/** A refusal, timeout or failure upstream: the next candidate may do better. */
export function isFallbackError(err: unknown): err is ApiError {
  return err instanceof ApiError && FALLBACK_CODES.has(err.code)
}

const FALLBACK_CODES = new Set(['upstream_blocked', 'upstream_timeout', 'upstream_error'])

function notAsked(candidate: Candidate, reason: string): RouteAttempt {
  return { ...labelOf(candidate), host: '', pool: null, outcome: 'skipped', reason, ms: 0 }
}

const labelOf = (c: Candidate): Pick<RouteAttempt, 'engine' | 'route'> => (c.route === undefined ? { engine: c.engine } : { engine: c.engine, route: c.route })
