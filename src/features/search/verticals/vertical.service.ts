import {
  type Billing,
  cacheAnswer,
  holdCredits,
  type LookupDeps,
  type LookupOutcome,
  liveMeta,
  lookupTicket,
  payForCached,
  REALTIME,
  readCachedAnswer,
} from '../../../billing/billed-lookup.ts'
import { planEngines, searchVertical, verticalNeed } from '../../../engines/choice.ts'
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

/** One call of a vertical: cache with max_age, hold, ask the engine, settle on what came back. */
export async function runVertical(
  deps: VerticalDeps,
  auth: AuthContext,
  spec: VerticalSpec,
  req: VerticalRequest,
  opts: { maxAge?: number },
  requestId: string,
  /** Batch jobs pass prepaid: charged when queued, settled by the job. */
  billing: Billing = REALTIME,
): Promise<LookupOutcome<VerticalResponseBody>> {
  const ticket = lookupTicket(`/v1/${spec.name}`, req, requestId)
  // A choice that cannot serve the request is a 400 before anything is reserved.
  for (const name of planEngines(deps.engines, req.engine ?? deps.engines.primary, verticalNeed(req))) deps.engines.get(name)?.validateVertical?.(req)
  // Verticals without max_age could never read an entry back, so none is written.
  const cacheable = 'max_age' in spec.schema.shape

  const cached = await readCachedAnswer<VerticalResponseBody>(deps, ticket, opts.maxAge)
  if (cached) return payForCached(deps, auth, billing, ticket, cached, spec.deliveredMc(req, cached.body.results.length))
  const hold = await holdCredits(deps, auth, billing, ticket, spec.priceMc(req))
  let body: VerticalResponseBody
  let usedMc: number
  try {
    body = await askVertical(deps, req, ticket.requestId, ticket.started)
    usedMc = spec.deliveredMc(req, body.results.length)
    if (usedMc > 0 && cacheable) await cacheAnswer(deps, ticket, body)
  } catch (err) {
    await hold.release()
    throw err
  }
  return hold.settle(body, usedMc, null)
}

async function askVertical(deps: VerticalDeps, req: VerticalRequest, requestId: string, started: number): Promise<VerticalResponseBody> {
  const answer = await searchVertical(deps.engines, req)
  // Engines may print more than asked; the caller paid for `num`.
  const results = req.num ? answer.page.results.slice(0, req.num) : answer.page.results
  return {
    request: req,
    results,
    ...answer.page.extras,
    meta: liveMeta(requestId, answer, started, results, answer.page.parse_quality),
  }
}
