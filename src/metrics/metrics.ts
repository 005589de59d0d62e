import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client'

/**
 * The process's Prometheus metrics (prom-client), served at GET /metrics (metrics.routes.ts).
 * One registry per process: counters count what this process did. Modules report events through
 * the `metrics` object below and never touch prom-client themselves, so names, labels and units
 * are decided here, once. Labels only take values from small fixed sets (route patterns, engine
 * names, outcomes, endpoints, job kinds), never raw URLs, ids or keys.
 */
export const registry = new Registry()

// process_resident_memory_bytes, nodejs_heap_size_used_bytes, event-loop lag, GC, handles…
collectDefaultMetrics({ register: registry })

/** Seconds; from a cached search (~1 ms) to the longest extract (90 s). */
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120]

const httpRequests = new Counter({
  name: 'trawl_http_requests_total',
  help: 'HTTP requests answered, by method, route pattern and status code',
  labelNames: ['method', 'route', 'status'] as const,
  registers: [registry],
})

const httpDuration = new Histogram({
  name: 'trawl_http_request_duration_seconds',
  help: 'Time from the request arriving to its answer being sent, by method, route pattern and status code',
  labelNames: ['method', 'route', 'status'] as const,
  buckets: LATENCY_BUCKETS,
  registers: [registry],
})

const upstreamAttempts = new Counter({
  name: 'trawl_upstream_attempts_total',
  help: 'Tries at fetching a search engine page, by engine, outcome (ok, blocked, timeout, error) and route (direct or proxy pool)',
  labelNames: ['engine', 'outcome', 'pool'] as const,
  registers: [registry],
})

const upstreamDuration = new Histogram({
  name: 'trawl_upstream_attempt_duration_seconds',
  help: 'Time of one try at fetching a search engine page, by engine and outcome',
  labelNames: ['engine', 'outcome'] as const,
  buckets: LATENCY_BUCKETS,
  registers: [registry],
})

const gateSolves = new Counter({
  name: 'trawl_gate_solves_total',
  help: "Proof-of-work challenges of engines' gates, by gate (anubis, altcha) and outcome (solved, too_hard, failed, refused: solved but not taken)",
  labelNames: ['gate', 'outcome'] as const,
  registers: [registry],
})

const gateSolveDuration = new Histogram({
  name: 'trawl_gate_solve_duration_seconds',
  help: "CPU time of one solved proof-of-work challenge of an engine's gate, on a worker thread, by gate",
  labelNames: ['gate'] as const,
  buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2, 4, 8, 16],
  registers: [registry],
})

const modelCalls = new Counter({
  name: 'trawl_model_calls_total',
  help: "Calls to the operator's chat model (TRAWL_LLM_URL), by use (answer, extract, research) and outcome (ok, timeout, error, invalid)",
  labelNames: ['use', 'outcome'] as const,
  registers: [registry],
})

const modelTokens = new Counter({
  name: 'trawl_model_tokens_total',
  help: "Tokens the operator's chat model reported, by use and kind (prompt, completion)",
  labelNames: ['use', 'kind'] as const,
  registers: [registry],
})

const creditsDebited = new Counter({
  name: 'trawl_credits_debited_total',
  help: 'Credits taken from balances (held by realtime calls, or charged), by ledger endpoint',
  labelNames: ['endpoint'] as const,
  registers: [registry],
})

const creditsRefunded = new Counter({
  name: 'trawl_credits_refunded_total',
  help: 'Credits given back (the unused part of a hold, failed or empty calls, unread crawl pages), by ledger endpoint',
  labelNames: ['endpoint'] as const,
  registers: [registry],
})

const webhookAttempts = new Counter({
  name: 'trawl_webhook_attempts_total',
  help: 'Webhook delivery attempts, by event and outcome (delivered; retry: failed, another attempt is queued; failed: the last attempt failed)',
  labelNames: ['event', 'outcome'] as const,
  registers: [registry],
})

const jobsQueued = new Gauge({
  name: 'trawl_jobs_queued',
  help: 'Background jobs due and waiting for a worker, by kind (read from the database at each scrape)',
  labelNames: ['kind'] as const,
  registers: [registry],
})

const jobsRunning = new Gauge({
  name: 'trawl_jobs_running',
  help: 'Background jobs held by a worker (leased), by kind, across every process sharing the database',
  labelNames: ['kind'] as const,
  registers: [registry],
})

const jobsOldestAge = new Gauge({
  name: 'trawl_jobs_oldest_queued_age_seconds',
  help: 'How long the longest-waiting due job has been waiting, by kind (0 when none waits)',
  labelNames: ['kind'] as const,
  registers: [registry],
})

/** One kind's queue as read from its table (jobs/runner.ts queueStats). */
export interface QueueStat {
  kind: string
  queued: number
  running: number
  oldestQueuedAgeMs: number
}

/** Routes Fastify did not match (404s, probes) share one label value: raw URLs never become labels. */
const UNMATCHED = 'unmatched'

/**
 * Each request's counter and histogram series, looked up by one string: prom-client's labelled
 * `inc`/`observe` sort and hash the label object on every call, a few µs a request.
 */
const requestSeries = new Map<string, { count: { inc(): void }; duration: { observe(value: number): void } }>()

/** What instrumented code calls. Amounts are millicredits, as everywhere in the code; exported in credits. */
export const metrics = {
  request(method: string, route: string | undefined, status: number, seconds: number) {
    const key = `${method} ${route} ${status}`
    let series = requestSeries.get(key)
    if (!series) {
      const labels = { method, route: route || UNMATCHED, status: String(status) }
      series = { count: httpRequests.labels(labels), duration: httpDuration.labels(labels) }
      // Routes are patterns and methods and statuses few: the set is small, yet bounded all the same.
      if (requestSeries.size < 10_000) requestSeries.set(key, series)
    }
    series.count.inc()
    series.duration.observe(seconds)
  },
  upstreamAttempt(a: { engine: string; outcome: string; pool: string | null; ms: number }) {
    upstreamAttempts.inc({ engine: a.engine, outcome: a.outcome, pool: a.pool ?? 'direct' })
    upstreamDuration.observe({ engine: a.engine, outcome: a.outcome }, a.ms / 1000)
  },
  gateSolve(gate: string, outcome: 'solved' | 'too_hard' | 'failed' | 'refused', ms: number) {
    gateSolves.inc({ gate, outcome })
    if (outcome === 'solved') gateSolveDuration.observe({ gate }, ms / 1000)
  },
  modelCall(use: string, outcome: 'ok' | 'timeout' | 'error' | 'invalid', tokens: { prompt: number; completion: number }) {
    modelCalls.inc({ use, outcome })
    if (tokens.prompt > 0) modelTokens.inc({ use, kind: 'prompt' }, tokens.prompt)
    if (tokens.completion > 0) modelTokens.inc({ use, kind: 'completion' }, tokens.completion)
  },
  creditsDebited(endpoint: string, mc: number) {
    if (mc > 0) creditsDebited.inc({ endpoint }, mc / 1000)
  },
  creditsRefunded(endpoint: string, mc: number) {
    if (mc > 0) creditsRefunded.inc({ endpoint }, mc / 1000)
  },
  webhookAttempt(event: string, outcome: 'delivered' | 'retry' | 'failed') {
    webhookAttempts.inc({ event, outcome })
  },
  /** Replaces the queue gauges with a fresh reading. */
  queues(stats: QueueStat[]) {
    jobsQueued.reset()
    jobsRunning.reset()
    jobsOldestAge.reset()
    for (const s of stats) {
      jobsQueued.set({ kind: s.kind }, s.queued)
      jobsRunning.set({ kind: s.kind }, s.running)
      jobsOldestAge.set({ kind: s.kind }, s.oldestQueuedAgeMs / 1000)
    }
  },
}
