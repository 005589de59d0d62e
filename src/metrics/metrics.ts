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

// Every metric is registered here, with its name, what it counts (help) and its labels.
const counter = <L extends string>(name: string, help: string, labelNames: readonly L[]) => new Counter({ name, help, labelNames, registers: [registry] })
const gauge = <L extends string>(name: string, help: string, labelNames: readonly L[]) => new Gauge({ name, help, labelNames, registers: [registry] })
const histogram = <L extends string>(name: string, help: string, labelNames: readonly L[], buckets: number[]) =>
  new Histogram({ name, help, labelNames, buckets, registers: [registry] })

/** Seconds; from a cached search (~1 ms) to the longest extract (90 s). */
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120]

const httpRequests = counter('trawl_http_requests_total', 'HTTP requests answered, by method, route pattern and status code', ['method', 'route', 'status'])

const httpDuration = histogram(
  'trawl_http_request_duration_seconds',
  'Time from the request arriving to its answer being sent, by method, route pattern and status code',
  ['method', 'route', 'status'],
  LATENCY_BUCKETS,
)

const upstreamAttempts = counter(
  'trawl_upstream_attempts_total',
  'Tries at fetching a search engine page, by engine, outcome (ok, blocked, timeout, error) and route (direct or proxy pool)',
  ['engine', 'outcome', 'pool'],
)

const upstreamDuration = histogram(
  'trawl_upstream_attempt_duration_seconds',
  'Time of one try at fetching a search engine page, by engine and outcome',
  ['engine', 'outcome'],
  LATENCY_BUCKETS,
)

const gateSolves = counter(
  'trawl_gate_solves_total',
  "Proof-of-work challenges of engines' gates, by gate (anubis, altcha) and outcome (solved, too_hard, failed, refused: solved but not taken)",
  ['gate', 'outcome'],
)

const gateSolveDuration = histogram(
  'trawl_gate_solve_duration_seconds',
  "CPU time of one solved proof-of-work challenge of an engine's gate, on a worker thread, by gate",
  ['gate'],
  [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2, 4, 8, 16],
)

const modelCalls = counter(
  'trawl_model_calls_total',
  "Calls to the operator's chat model (TRAWL_LLM_URL), by use (answer, extract, research) and outcome (ok, timeout, error, invalid)",
  ['use', 'outcome'],
)

const modelTokens = counter('trawl_model_tokens_total', "Tokens the operator's chat model reported, by use and kind (prompt, completion)", ['use', 'kind'])

const creditsDebited = counter('trawl_credits_debited_total', 'Credits taken from balances (held by realtime calls, or charged), by ledger endpoint', [
  'endpoint',
])

const creditsRefunded = counter(
  'trawl_credits_refunded_total',
  'Credits given back (the unused part of a hold, failed or empty calls, unread crawl pages), by ledger endpoint',
  ['endpoint'],
)

const readerThreadsRecycled = counter(
  'trawl_reader_threads_recycled_total',
  'Reader threads replaced because their heap ended a page read above TRAWL_READER_THREAD_MEMORY_MB',
  [],
)
const webhookAttempts = counter(
  'trawl_webhook_attempts_total',
  'Webhook delivery attempts, by event and outcome (delivered; retry: failed, another attempt is queued; failed: the last attempt failed)',
  ['event', 'outcome'],
)

const jobsQueued = gauge('trawl_jobs_queued', 'Background jobs due and waiting for a worker, by kind (read from the database at each scrape)', ['kind'])

const jobsRunning = gauge('trawl_jobs_running', 'Background jobs held by a worker (leased), by kind, across every process sharing the database', ['kind'])

const jobsOldestAge = gauge('trawl_jobs_oldest_queued_age_seconds', 'How long the longest-waiting due job has been waiting, by kind (0 when none waits)', [
  'kind',
])

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
  readerThreadRecycled() {
    readerThreadsRecycled.inc()
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
