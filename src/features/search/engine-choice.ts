import { ApiError } from '../../errors.ts'
import type { AuthContext } from '../../http/auth.ts'
import type { EngineAnswer, SearchEngine } from './engines/search-engine.ts'
import type { RouteAttempt } from './engines/upstream/upstream.types.ts'
import { attemptsOf } from './engines/upstream/upstream-error.ts'

/** Providers tried, in order, for `engine=auto`: the primary first, then the alternatives (later issues). */
const AUTO_ORDER = ['google']

/** The `engine` parameter as one name: the primary, or `auto` (also for keys with fallback on and no engine sent). */
export function resolveEngineName(engine: string | string[] | undefined, auth: AuthContext): string {
  if (engine === undefined) return auth.allowFallback ? 'auto' : 'google'
  const names = (Array.isArray(engine) ? engine : engine.split(',')).map((s) => s.trim().toLowerCase()).filter(Boolean)
  for (const name of names) {
    if (name !== 'google' && name !== 'auto') {
      throw new ApiError('invalid_request', `engine ${name} is not available on this server; use google or auto`)
    }
  }
  return names.includes('auto') ? 'auto' : 'google'
}

/**
 * Asks the named engine, or each engine of `auto` in turn while the previous one is blocked or slow.
 * `ask` returns undefined when an engine does not offer what is asked (a vertical it lacks).
 */
export async function askEngines<P>(
  engines: Map<string, SearchEngine>,
  engineName: string,
  ask: (engine: SearchEngine) => Promise<EngineAnswer<P>> | undefined,
): Promise<{ engine: string; page: P; attempts: RouteAttempt[] }> {
  const names = engineName === 'auto' ? AUTO_ORDER : [engineName]
  const attempts: RouteAttempt[] = []
  let lastError: unknown
  for (const name of names) {
    const engine = engines.get(name)
    const pending = engine && ask(engine)
    if (!pending) continue
    try {
      const answer = await pending
      return { engine: name, page: answer.page, attempts: [...attempts, ...answer.attempts] }
    } catch (err) {
      attempts.push(...attemptsOf(err))
      lastError = err
      const code = err instanceof ApiError ? err.code : 'internal'
      if (code !== 'upstream_blocked' && code !== 'upstream_timeout' && code !== 'upstream_error') throw err
    }
  }
  throw lastError ?? new ApiError('unavailable', 'no search engine is configured for this request', { retryAfterSeconds: 60 })
}
