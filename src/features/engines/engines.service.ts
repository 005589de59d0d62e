import { routeLayout } from '../../engines/health.ts'
import type { Engines } from '../../engines/registry.ts'
import type { EngineStatus } from './engines.response.ts'

const SEVERITY = ['healthy', 'degraded', 'drifting', 'down', 'blocked'] as const

/** Every provider with its capabilities and health, in `auto` order (GET /v1/engines, /healthz). */
export function engineStatuses(engines: Engines): EngineStatus[] {
  const auto = engines.autoOrder()
  const consensus = engines.consensusSet()
  return engines.all().map((engine) => {
    const layouts = engines.health.layouts(engine.name)
    const worst = layouts.reduce<(typeof layouts)[number] | undefined>(
      (w, l) => (!w || SEVERITY.indexOf(l.state) > SEVERITY.indexOf(w.state) ? l : w),
      undefined,
    )
    const routeHealth = engines.health.routes(engine.name)
    const routes = engine.routes().map((r) => ({
      name: r.name,
      available: r.unavailable === null,
      unavailable_reason: r.unavailable,
      health: routeHealth.find((h) => h.layout === routeLayout('search', r.name)) ?? null,
    }))
    // Web search with no route left to ask (each unusable here or cooling down) is at least
    // degraded, whatever its other layouts say: /healthz's counts must agree with its `degraded`.
    const stuck = routes.length > 0 && routes.every((r) => !r.available || !engines.health.available(engine.name, routeLayout('search', r.name)))
    const state = stuck && SEVERITY.indexOf(worst?.state ?? 'healthy') < SEVERITY.indexOf('degraded') ? 'degraded' : (worst?.state ?? 'healthy')
    return {
      name: engine.name,
      primary: engine.name === engines.primary,
      verticals: [...engine.capabilities.verticals],
      params: [...engine.capabilities.params],
      auto: auto.includes(engine.name),
      consensus: consensus.includes(engine.name),
      state,
      since: worst?.since ?? null,
      layouts,
      routes,
    }
  })
}

/** /healthz's line on engines: how many are in each state. Never fails readiness. */
export function engineSummary(engines: Engines): Record<string, number> {
  const counts: Record<string, number> = { healthy: 0, degraded: 0, drifting: 0, down: 0, blocked: 0 }
  for (const s of engineStatuses(engines)) counts[s.state] = (counts[s.state] ?? 0) + 1
  return counts
}
