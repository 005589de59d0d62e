import type { Billing } from '../../billing/billed-lookup.ts'
import type { AppDeps } from '../../deps.ts'
import type { SearchRequest, VerticalRequest } from '../../engines/engine.types.ts'
import type { AuthContext } from '../../http/auth.ts'
import { runWebpage } from '../reading/webpage.service.ts'
import type { ResponseBody } from '../search/output/output.types.ts'
import { completeBody } from '../search/output/stable-shape.ts'
import { runSearch } from '../search/search.service.ts'
import { runVertical } from '../search/verticals/vertical.service.ts'
import { VERTICAL_SPECS } from '../search/verticals/vertical.specs.ts'
import type { MonitorEndpoint, SavedSearch, WatchedPage } from './monitors.request.ts'
import { depthFor } from './monitors.request.ts'

/**
 * One run's lookup: the same services as the realtime endpoints, without their reserve/settle.
 * The price of what was delivered (the realtime price) comes back, and the run's final transaction
 * charges it together with the run record, so a run is billed exactly when it is recorded.
 */
const AT_REALTIME_PRICE: Billing = { mode: 'prepaid', factor: 1 }

export type Found =
  | { kind: 'results'; items: Record<string, unknown>[]; usedMc: number }
  /** page null: the page had no readable content (an empty run). */
  | { kind: 'page'; page: { url: string; title: string | null; markdown: string } | null; usedMc: number }

export async function lookUp(deps: AppDeps, auth: AuthContext, endpoint: MonitorEndpoint, request: SavedSearch | WatchedPage, runId: string): Promise<Found> {
  if (endpoint === 'webpage') {
    const { url } = request as WatchedPage
    const out = await runWebpage(deps, auth, { url, format: 'markdown' }, runId, AT_REALTIME_PRICE)
    if (out.body.meta.empty_page) return { kind: 'page', page: null, usedMc: 0 }
    return { kind: 'page', page: { url: out.body.url, title: out.body.title, markdown: out.body.markdown ?? '' }, usedMc: out.usedMc }
  }
  const saved = request as SavedSearch
  // The engine is asked for the smallest depth it offers that covers num; only the top num are watched.
  const depth = depthFor(saved.num)
  if (endpoint === 'search') {
    const req = { ...saved, endpoint: 'search', num: depth, page: 1 } as SearchRequest
    const out = await runSearch(deps, auth, req, {}, runId, AT_REALTIME_PRICE)
    return { kind: 'results', items: itemsAsSent('search', out.body, saved.num), usedMc: out.usedMc }
  }
  const req = { ...saved, endpoint: 'news', num: depth, page: 1 } as VerticalRequest
  const out = await runVertical(deps, auth, VERTICAL_SPECS.news, req, {}, runId, AT_REALTIME_PRICE)
  return { kind: 'results', items: itemsAsSent('news', out.body, saved.num), usedMc: out.usedMc }
}

/** The top `num` items as the realtime endpoint's JSON has them: every item field, null when unknown. */
function itemsAsSent(vertical: 'search' | 'news', body: ResponseBody, num: number): Record<string, unknown>[] {
  return (completeBody(vertical, body).results as Record<string, unknown>[]).slice(0, num)
}
