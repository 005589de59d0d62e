import { type Billing, type LookupDeps, type LookupOutcome, liveMeta, REALTIME, runBilledLookup } from '../../../billing/billed-lookup.ts'
import { askEngines, type EngineNeed, planEngines, sentParams } from '../../../engines/choice.ts'
import type { VerticalRequest } from '../../../engines/engine.types.ts'
import type { Engines } from '../../../engines/registry.ts'
import type { AuthContext } from '../../../http/auth.ts'
import type { VerticalSpec } from './vertical.specs.ts'

export interface VerticalDeps extends LookupDeps {
  engines: Engines
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
  /** Batch jobs pass prepaid: charged when queued, settled by the job. */
  billing: Billing = REALTIME,
): Promise<LookupOutcome<VerticalResponseBody>> {
  const started = performance.now()
  // A choice that cannot serve the request is a 400 before anything is reserved.
  for (const name of planEngines(deps.engines, req.engine ?? deps.engines.primary, verticalNeed(req))) deps.engines.get(name)?.validateVertical?.(req)
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
    billing,
  )
}

async function liveVertical(deps: VerticalDeps, req: VerticalRequest, requestId: string, started: number): Promise<VerticalResponseBody> {
  const answer = await askEngines(deps.engines, req.engine ?? deps.engines.primary, verticalNeed(req), (engine) => engine.vertical?.(req))
  // Engines may print more than asked; the caller paid for `num`.
  const results = req.num ? answer.page.results.slice(0, req.num) : answer.page.results
  return {
    request: req,
    results,
    ...answer.page.extras,
    meta: liveMeta(requestId, answer, started, results, answer.page.parse_quality),
  }
}

function verticalNeed(req: VerticalRequest): EngineNeed {
  return { vertical: req.endpoint, params: sentParams(req) }
}
