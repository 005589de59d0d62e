import type { ParseQuality } from './engine.types.ts'

/**
 * Engine health: a rolling record per provider and layout (web search, news, images, …) of how
 * its answers went. Besides blocks and timeouts it watches parse quality, which no peer does: when
 * a provider that answered cleanly starts answering pages we cannot read (`partial`) or read as
 * empty, its page layout changed upstream (parser drift), and `auto` and `consensus` skip it until
 * it recovers instead of serving empty answers. A provider that is blocked or drifting is given a
 * single probe request once the cool-down has passed (a half-open circuit): a clean answer brings
 * it back, another failure restarts the cool-down.
 *
 * Routes (ways of getting one provider's results: Google's feature-phone page, its browser-drawn
 * page, …) are tracked one level down, as layout `search@wml`, and judged more strictly: a route
 * is an alternative tried inside the same request, so one refusal (a CAPTCHA, a JavaScript page,
 * a 403) or one page of which nothing was read cools it down at once (`blocked`, `drifting`), and
 * two network failures in a row (DNS, refused, TLS, timeout) make it `down`.
 */

export type EngineState = 'healthy' | 'degraded' | 'blocked' | 'drifting' | 'down'
export type HealthOutcome = 'ok' | 'blocked' | 'timeout' | 'error'

export interface HealthEvent {
  at: number
  outcome: HealthOutcome
  ms: number
  /** Parse quality of an answered page (outcome ok). */
  quality?: ParseQuality
  /** Why a failure failed (the block's cause, the gate's reason), in a few words. */
  reason?: string
}

export interface LayoutHealth {
  layout: string
  state: EngineState
  /** ISO time the current state began; null when nothing was recorded yet. */
  since: string | null
  requests: number
  block_rate: number
  timeout_rate: number
  error_rate: number
  /** Share of answered pages that were `partial` or `empty`. */
  unreadable_rate: number
  p50_ms: number | null
  p95_ms: number | null
  last_at: string | null
  /** Why the latest failure in the window failed (a block's cause, a timeout, …); null when none failed. */
  last_failure: string | null
}

/** Where events are shared between processes (Redis); memory only when absent. */
export interface HealthShare {
  push(key: string, event: HealthEvent): void
  /** Every shared window, by key; called in the background. */
  pull(): Promise<Map<string, HealthEvent[]>>
}

export const HEALTH_WINDOW = 50
// Drift: at least this many recent answers, this share of them unreadable, this much above the older baseline.
const RECENT = 10
const DRIFT_MIN_ANSWERS = 4
const DRIFT_SHARE = 0.6
const DRIFT_RISE = 0.4
const DEGRADED_FAILURE_SHARE = 0.3

interface Track {
  events: HealthEvent[]
  state: EngineState
  since: number | null
}

export class EngineHealth {
  private readonly tracks = new Map<string, Track>()

  constructor(private readonly opts: { cooldownMs: number; share?: HealthShare; now?: () => number }) {}

  private now() {
    return this.opts.now?.() ?? Date.now()
  }

  private track(key: string): Track {
    let t = this.tracks.get(key)
    if (!t) {
      t = { events: [], state: 'healthy', since: null }
      this.tracks.set(key, t)
    }
    return t
  }

  record(engine: string, layout: string, event: Omit<HealthEvent, 'at'>) {
    const key = `${engine}:${layout}`
    const full = { ...event, at: this.now() }
    this.add(key, this.track(key), full)
    this.opts.share?.push(key, full)
  }

  private add(key: string, t: Track, event: HealthEvent) {
    const wasUnavailable = COOLING.has(t.state)
    // A clean answer after a block or drift is the probe that shows recovery: the old window goes.
    if (wasUnavailable && event.outcome === 'ok' && event.quality === 'ok') t.events = []
    t.events.push(event)
    if (t.events.length > HEALTH_WINDOW) t.events.splice(0, t.events.length - HEALTH_WINDOW)
    this.settle(t, event.at, key)
  }

  private settle(t: Track, at: number, key: string) {
    const state = isRouteKey(key) ? routeStateOf(t.events) : stateOf(t.events)
    // Another failure while unavailable restarts the cool-down.
    if (state !== t.state || COOLING.has(state)) t.since = at
    t.state = state
  }

  /**
   * Whether `auto` and `consensus` may ask this provider now: yes unless it is blocked or drifting
   * and its cool-down has not passed (after it, one probe goes through).
   */
  available(engine: string, layout: string): boolean {
    const t = this.tracks.get(`${engine}:${layout}`)
    if (!t || !COOLING.has(t.state)) return true
    return this.now() - (t.since ?? 0) >= this.opts.cooldownMs
  }

  state(engine: string, layout: string): EngineState {
    return this.tracks.get(`${engine}:${layout}`)?.state ?? 'healthy'
  }

  /** The figures of every layout of `engine` that has seen traffic (routes not included). */
  layouts(engine: string): LayoutHealth[] {
    return this.figuresOf(engine).filter((l) => !isRouteKey(l.layout))
  }

  /** The figures of every route of `engine` that has seen traffic, as layout `search@wml`. */
  routes(engine: string): LayoutHealth[] {
    return this.figuresOf(engine).filter((l) => isRouteKey(l.layout))
  }

  private figuresOf(engine: string): LayoutHealth[] {
    const out: LayoutHealth[] = []
    for (const [key, t] of this.tracks) {
      if (!key.startsWith(`${engine}:`)) continue
      out.push(figures(key.slice(engine.length + 1), t))
    }
    return out.sort((a, b) => a.layout.localeCompare(b.layout))
  }

  /**
   * Replaces local windows with the shared ones (other processes' events included). Sharing is
   * best effort: when the share is down or slow, the local record stands.
   */
  async refresh() {
    if (!this.opts.share) return
    const timeout = new Promise<null>((resolve) => setTimeout(() => resolve(null), 1000).unref())
    const windows = await Promise.race([this.opts.share.pull().catch(() => null), timeout])
    if (!windows) return
    for (const [key, events] of windows) {
      const t = this.track(key)
      t.events = events.slice(-HEALTH_WINDOW)
      const last = t.events.at(-1)
      if (last) this.settle(t, last.at, key)
    }
  }
}

function stateOf(events: HealthEvent[]): EngineState {
  const last = events.at(-1)
  if (!last) return 'healthy'
  if (last.outcome === 'blocked') return 'blocked'
  const answered = events.filter((e) => e.outcome === 'ok')
  const recent = answered.slice(-RECENT)
  const older = answered.slice(0, -RECENT)
  if (recent.length >= DRIFT_MIN_ANSWERS && last.outcome === 'ok' && last.quality !== 'ok') {
    const share = unreadable(recent)
    if (share >= DRIFT_SHARE && share - unreadable(older) >= DRIFT_RISE) return 'drifting'
  }
  const tail = events.slice(-RECENT)
  const failures = tail.filter((e) => e.outcome !== 'ok').length
  if (tail.length >= 3 && failures / tail.length >= DEGRADED_FAILURE_SHARE) return 'degraded'
  return 'healthy'
}

/** The layout key of one route of a vertical: `search@wml`. */
export const routeLayout = (vertical: string, route: string) => `${vertical}@${route}`
const isRouteKey = (key: string) => key.includes('@')

/** States in which `auto`, `consensus` and the route walk pass a provider or route over until its cool-down ends. */
const COOLING = new Set<EngineState>(['blocked', 'drifting', 'down'])

function routeStateOf(events: HealthEvent[]): EngineState {
  const last = events.at(-1)
  if (!last) return 'healthy'
  if (last.outcome === 'blocked') return 'blocked'
  if (last.outcome === 'ok') return last.quality === 'partial' ? 'drifting' : stateOf(events)
  const previous = events.at(-2)
  if (previous && previous.outcome !== 'ok' && previous.outcome !== 'blocked') return 'down'
  return stateOf(events)
}

function unreadable(answers: HealthEvent[]): number {
  if (!answers.length) return 0
  return answers.filter((e) => e.quality !== 'ok').length / answers.length
}

function figures(layout: string, t: Track): LayoutHealth {
  const n = t.events.length
  const share = (o: HealthOutcome) => (n ? round(t.events.filter((e) => e.outcome === o).length / n) : 0)
  const ms = t.events.map((e) => e.ms).sort((a, b) => a - b)
  const last = t.events.at(-1)
  return {
    layout,
    state: t.state,
    since: t.since === null ? null : new Date(t.since).toISOString(),
    requests: n,
    block_rate: share('blocked'),
    timeout_rate: share('timeout'),
    error_rate: share('error'),
    unreadable_rate: round(unreadable(t.events.filter((e) => e.outcome === 'ok'))),
    p50_ms: percentile(ms, 0.5),
    p95_ms: percentile(ms, 0.95),
    last_at: last ? new Date(last.at).toISOString() : null,
    last_failure: lastFailure(t.events),
  }
}

function lastFailure(events: HealthEvent[]): string | null {
  const failed = events.findLast((e) => e.outcome !== 'ok')
  return failed ? (failed.reason ?? failed.outcome).slice(0, 300) : null
}

function percentile(sorted: number[], p: number): number | null {
  if (!sorted.length) return null
  return sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)] ?? null
}

const round = (x: number) => Math.round(x * 1000) / 1000
