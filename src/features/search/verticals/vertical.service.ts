import type { AuthContext } from '../../../http/auth.ts'
import { type LookupDeps, type LookupOutcome, liveMeta, runBilledLookup } from '../billed-lookup.ts'
import { askEngines } from '../engine-choice.ts'
import type { SearchEngine } from '../engines/search-engine.ts'
import type { VerticalRequest } from '../search.types.ts'
import type { VerticalSpec } from './vertical.specs.ts'

export interface VerticalDeps extends LookupDeps {
  engines: Map<string, SearchEngine>
}

export interface VerticalResponseBody {
  request: VerticalRequest
  results: unknown[]
  meta: Record<string, unknown>
  [extra: string]: unknown
}

/** One call of a vertical: cache with max_age, reserve, ask the engine, settle on what came back. */
export function runVertical(
  deps: VerticalDeps,
  auth: AuthContext,
  spec: VerticalSpec,
  req: VerticalRequest,
  opts: { maxAge?: number },
  requestId: string,
): Promise<LookupOutcome<VerticalResponseBody>> {
  const started = performance.now()
  return runBilledLookup<VerticalResponseBody>(
    deps,
    auth,
    {
      endpoint: `/v1/${spec.name}`,
      request: req,
      priceMc: spec.priceMc(req),
      deliveredMc: (body) => spec.deliveredMc(req, body.results.length),
      maxAge: opts.maxAge,
      cacheable: 'max_age' in spec.schema.shape,
      live: () => liveVertical(deps, req, requestId, started),
    },
    requestId,
  )
}

async function liveVertical(deps: VerticalDeps, req: VerticalRequest, requestId: string, started: number): Promise<VerticalResponseBody> {
  const answer = await askEngines(deps.engines, req.engine ?? 'google', (engine) => engine.vertical?.(req))
  // Engines may print more than asked; the caller paid for `num`.
  const results = req.num ? answer.page.results.slice(0, req.num) : answer.page.results
  return {
    request: req,
    results,
    ...answer.page.extras,
    meta: liveMeta(requestId, answer, started, results.length, answer.page.parse_quality),
  }
}
