import { z } from 'zod'
import type { EngineVerticalName, SearchEngine } from '../../engines/engine.ts'
import type { ParseQuality, SearchRequest, VerticalRequest } from '../../engines/engine.types.ts'
import type { Engines } from '../../engines/registry.ts'
import type { RouteAttempt } from '../../engines/upstream/upstream.types.ts'
import type { GateStats } from '../../engines/upstream/upstream-client.ts'
import { attemptsOf, whyFailed } from '../../engines/upstream/upstream-error.ts'
import { ApiError } from '../../errors.ts'

/**
 * The operator's live self-test (`trawl engines check`, `POST /admin/v1/engines/check`): one query
 * per provider, web search route and vertical, sent to the live engines with health bypassed, so
 * an operator sees at once which ways of getting results work from this machine today. Nothing
 * is billed or cached; each answer is still recorded in health, as any request is.
 */

export const CheckBody = z
  .strictObject({
    q: z.string().trim().min(1).max(200).optional().describe('the query sent everywhere (default "coffee")'),
    engines: z.array(z.string()).min(1).max(20).optional().describe('providers to check (default: all)'),
    verticals: z.array(z.string()).min(1).max(20).optional().describe('verticals to check (default: all each provider offers)'),
  })
  .describe('what to check; every field is optional')

export const CheckVerdict = z.enum(['ok', 'empty', 'partial', 'blocked', 'timeout', 'error', 'unavailable', 'skipped'])

export const CheckRow = z.object({
  engine: z.string(),
  vertical: z.string(),
  route: z.string().describe('the web search route, or "-" for a vertical'),
  status: z.number().int().nullable().describe('HTTP status of the last upstream answer'),
  verdict: CheckVerdict,
  results: z.number().int(),
  parse_quality: z.enum(['ok', 'partial', 'empty']).nullable(),
  latency_ms: z.number().int(),
  reason: z.string().nullable().describe('why it failed, route by route'),
})

export const CheckGate = z.object({
  gate: z.string().describe("an engine's proof-of-work gate: anubis (Startpage), altcha (Mojeek)"),
  solved: z.number().int().describe('challenges solved by this process since it started'),
  failed: z.number().int().describe('challenges not passed: harder than TRAWL_POW_TIMEOUT_MS allows, or refused after solving'),
  mean_solve_ms: z.number().int().nullable().describe('mean time of a solve on a worker thread; null before the first'),
})

export const CheckResponse = z.object({
  q: z.string(),
  primary: z.string(),
  primary_ok: z.boolean().nullable().describe('whether a web search route of the primary answered with results; null when the primary was not checked'),
  rows: z.array(CheckRow),
  gates: z.array(CheckGate).describe('proof-of-work gates met by this process (the check included), with their solves'),
})

export type CheckRow = z.infer<typeof CheckRow>
export type CheckResponse = z.infer<typeof CheckResponse>
type CheckVerdict = z.infer<typeof CheckVerdict>

// Verticals that need an id or an image rather than a query: not checked by a query.
const NEEDS_MORE: Partial<Record<EngineVerticalName, string>> = {
  reviews: 'needs a place id',
  lens: 'needs an image URL',
}

export async function checkEngines(engines: Engines, body: z.infer<typeof CheckBody> = {}, gateStats: () => GateStats[] = () => []): Promise<CheckResponse> {
  const q = body.q ?? 'coffee'
  // A name listed twice is checked once: each check is live traffic to the engine.
  const names = [...new Set(body.engines ?? engines.names())]
  for (const name of names) {
    if (!engines.get(name)) throw new ApiError('invalid_request', `engines: ${name} is not a provider of this server; known: ${engines.names().join(', ')}`)
  }
  const offered = new Set(names.flatMap((n) => engines.get(n)?.capabilities.verticals ?? []))
  for (const vertical of body.verticals ?? []) {
    if (!offered.has(vertical as EngineVerticalName)) {
      throw new ApiError('invalid_request', `verticals: ${vertical} is not offered by ${names.join(', ')}; offered: ${[...offered].join(', ')}`)
    }
  }
  const jobs: Promise<CheckRow>[] = []
  for (const name of names) {
    const engine = engines.get(name) as SearchEngine
    for (const vertical of engine.capabilities.verticals) {
      if (body.verticals && !body.verticals.includes(vertical)) continue
      if (vertical === 'search') {
        for (const route of engine.routes()) {
          if (route.unavailable) jobs.push(Promise.resolve(row(name, vertical, route.name, 'unavailable', { reason: route.unavailable })))
          else jobs.push(checkSearch(engine, q, route.name))
        }
      } else if (NEEDS_MORE[vertical]) {
        jobs.push(Promise.resolve(row(name, vertical, '-', 'skipped', { reason: NEEDS_MORE[vertical] ?? null })))
      } else {
        jobs.push(checkVertical(engine, q, vertical))
      }
    }
  }
  const rows = await Promise.all(jobs)
  const primary = engines.primary
  const primaryRows = rows.filter((r) => r.engine === primary && r.vertical === 'search')
  const primaryOk = primaryRows.length === 0 ? null : primaryRows.some((r) => r.verdict === 'ok')
  const gates = gateStats().map((g) => ({ gate: g.gate, solved: g.solved, failed: g.failed, mean_solve_ms: g.meanSolveMs }))
  return { q, primary, primary_ok: primaryOk, rows, gates }
}

async function checkSearch(engine: SearchEngine, q: string, route: string): Promise<CheckRow> {
  const req: SearchRequest = { endpoint: 'search', engine: engine.name, q, country: 'us', language: 'en', num: 10, page: 1, safe: 'off', device: 'desktop' }
  return measure(engine.name, 'search', route, () => engine.search(req, { route }))
}

async function checkVertical(engine: SearchEngine, q: string, vertical: EngineVerticalName): Promise<CheckRow> {
  const endpoint = vertical as VerticalRequest['endpoint']
  const req: VerticalRequest = { endpoint, engine: engine.name, q, country: 'us', language: 'en', num: 10, page: 1, safe: 'off' }
  return measure(engine.name, vertical, '-', async () => {
    const pending = engine.vertical?.(req)
    if (!pending) throw new ApiError('invalid_request', `${engine.name} does not offer ${vertical}`)
    return pending
  })
}

async function measure(
  engine: string,
  vertical: string,
  route: string,
  ask: () => Promise<{ page: { results: unknown[]; parse_quality: ParseQuality }; attempts: RouteAttempt[] }>,
): Promise<CheckRow> {
  const started = performance.now()
  const ms = () => Math.round(performance.now() - started)
  try {
    const { page, attempts } = await ask()
    const n = page.results.length
    const verdict: CheckVerdict = n > 0 ? (page.parse_quality === 'partial' ? 'partial' : 'ok') : page.parse_quality === 'partial' ? 'partial' : 'empty'
    return row(engine, vertical, route, verdict, { status: lastStatus(attempts), results: n, parse_quality: page.parse_quality, latency_ms: ms() })
  } catch (err) {
    const attempts = attemptsOf(err)
    const code = err instanceof ApiError ? err.code : 'internal'
    const verdict: CheckVerdict = code === 'upstream_blocked' ? 'blocked' : code === 'upstream_timeout' ? 'timeout' : 'error'
    const reason = whyFailed(attempts) || (err instanceof Error ? err.message : String(err))
    return row(engine, vertical, route, verdict, { status: lastStatus(attempts), latency_ms: ms(), reason })
  }
}

function row(engine: string, vertical: string, route: string, verdict: CheckVerdict, more: Partial<CheckRow> = {}): CheckRow {
  return { engine, vertical, route, status: null, verdict, results: 0, parse_quality: null, latency_ms: 0, reason: null, ...more }
}

function lastStatus(attempts: RouteAttempt[]): number | null {
  return attempts.findLast((a) => a.status !== undefined)?.status ?? null
}
