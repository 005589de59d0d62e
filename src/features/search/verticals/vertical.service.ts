import { type Billing, billedLookup, type LookupDeps, type LookupOutcome, type LookupTicket, REALTIME } from '../../../billing/billed-lookup.ts'
import { liveMeta } from '../../../billing/search-meta.ts'
import { planEngines, searchVertical, verticalNeed } from '../../../engines/choice.ts'
import type { VerticalRequest } from '../../../engines/engine.types.ts'
import type { Engines } from '../../../engines/registry.ts'
import type { AuthContext } from '../../../http/auth.ts'
import type { Built } from '../search.response.ts'
import type { VerticalResponse } from './vertical.response.ts'
import type { VerticalSpec } from './vertical.specs.ts'

/** What runVertical answers, for any vertical. */
export type VerticalBody = Built<VerticalResponse>

export interface VerticalDeps extends LookupDeps {
  engines: Engines
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
): Promise<LookupOutcome<VerticalBody>> {
  // A choice that cannot serve the request is a 400 before anything is reserved.
  for (const name of planEngines(deps.engines, req.engine ?? deps.engines.primary, verticalNeed(req))) deps.engines.get(name)?.validateVertical?.(req)
  return billedLookup(deps, auth, billing, requestId, {
    endpoint: `/v1/${spec.name}`,
    holdMc: spec.priceMc(req),
    ask: (ticket) => askVertical(deps, req, ticket),
    priceMc: (body) => spec.deliveredMc(req, body.results.length),
    // Verticals without max_age could never read an entry back, so none is written.
    ...('max_age' in spec.schema.shape && { cache: { key: req, maxAge: opts.maxAge } }),
  })
}

async function askVertical(deps: VerticalDeps, req: VerticalRequest, ticket: LookupTicket): Promise<VerticalBody> {
  const answer = await searchVertical(deps.engines, req)
  // Engines may print more than asked; the caller paid for `num`. Their items are the vertical's (results.schema.ts).
  const results = (req.num ? answer.page.results.slice(0, req.num) : answer.page.results) as VerticalBody['results']
  return {
    request: { ...req },
    results,
    ...answer.page.extras,
    meta: liveMeta(ticket.requestId, answer, ticket.started, results, answer.page.parse_quality),
  }
}
