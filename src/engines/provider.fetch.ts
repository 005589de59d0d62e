/** The fetch a bound provider's routes and verticals make through: the upstream client, under the request's deadline. */
import type { EngineHealth } from './health.ts'
import type { EngineFetch, Provider } from './provider.types.ts'
import type { AskOptions } from './search-engine.types.ts'
import type { RouteAttempt } from './upstream/upstream.types.ts'
import type { UpstreamClient } from './upstream/upstream-client.ts'
import { attemptsOf, type UpstreamError, upstreamErrorFor } from './upstream/upstream-error.ts'

/** A provider bound to the upstream client and the engines' health. */
export interface Binding {
  upstream: UpstreamClient
  provider: Provider
  health: EngineHealth
}

/**
 * Fetches for one ask of `route` (absent: a vertical): each fetch gets what is left of the
 * deadline, the provider's block detector and gate, and its attempts go into `attempts` under the
 * route's name.
 */
export function providerFetch({ upstream, provider }: Binding, attempts: RouteAttempt[], opts: AskOptions, route?: string): EngineFetch {
  const named = (list: RouteAttempt[]) => (route ? list.map((a) => ({ ...a, route })) : list)
  return async (url, headers, detectBlock, form, how) => {
    const remaining = opts.deadline === undefined ? undefined : opts.deadline - Date.now()
    if (remaining !== undefined && remaining <= 0) throw outOfTime(provider.name, route, url)
    // With routes or providers still to ask, a hung engine must not take all of it.
    const left = remaining !== undefined && opts.more ? Math.ceil(remaining / 2) : remaining
    try {
      const fetched = await upstream.fetchPage({
        engine: provider.name,
        url,
        headers,
        form,
        signal: opts.signal,
        ...(left !== undefined && { timeoutMs: left }),
        detectBlock: detectBlock ?? provider.detectBlock,
        render: how?.render,
        ...(provider.gate && { gate: provider.gate }),
      })
      attempts.push(...named(fetched.attempts))
      return fetched
    } catch (err) {
      attempts.push(...named(attemptsOf(err)))
      throw err
    }
  }
}

/** A fetch that would start after the request's deadline: a timeout, named as one. */
function outOfTime(engine: string, route: string | undefined, url: string): UpstreamError {
  const attempt: RouteAttempt = {
    engine,
    ...(route && { route }),
    host: new URL(url).host,
    pool: null,
    outcome: 'timeout',
    reason: 'the request deadline had passed',
    ms: 0,
  }
  return upstreamErrorFor('upstream_timeout', engine, [attempt])
}
