import { type TrawlError, trawlError } from './errors.ts'
import type {
  AccountResponse,
  ApiErrorCode,
  BatchEndpoint,
  BatchEntry,
  BatchJob,
  ContextParams,
  ContextResponse,
  CrawlParams,
  CrawlTask,
  CreateBatchParams,
  CreateMonitorParams,
  CseResponse,
  CustomSearchParams,
  EnginesResponse,
  Exact,
  ExtractParams,
  ExtractResponse,
  MapParams,
  MapResponse,
  Monitor,
  MonitorDeleted,
  MonitorList,
  MonitorRuns,
  MonitorRunsParams,
  operations,
  paths,
  RankParams,
  RankResponse,
  RequestBody,
  ResearchEvent,
  ResearchParams,
  ResearchTask,
  ResponseBody,
  Shaped,
  UpdateMonitorParams,
  WebpageParams,
  WebpageResponse,
} from './types.ts'

export const SDK_VERSION = '0.1.0'

type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE'

/**
 * Every public operation of the server (by its OpenAPI operationId) and where it lives. The GET
 * twins of the search verticals (`searchGet`, …), the keyless playground and the /compat/* shapes (for the vendors' own clients) are left out: the
 * client always POSTs a JSON body. `satisfies` makes this table exactly the generated operations
 * minus those, and RoutesMatch below checks each method and path against the generated `paths`.
 */
export const ROUTES = {
  getAccount: ['GET', '/v1/account'],
  listEngines: ['GET', '/v1/engines'],
  search: ['POST', '/v1/search'],
  news: ['POST', '/v1/news'],
  images: ['POST', '/v1/images'],
  videos: ['POST', '/v1/videos'],
  maps: ['POST', '/v1/maps'],
  places: ['POST', '/v1/places'],
  shopping: ['POST', '/v1/shopping'],
  scholar: ['POST', '/v1/scholar'],
  patents: ['POST', '/v1/patents'],
  autocomplete: ['POST', '/v1/autocomplete'],
  lens: ['POST', '/v1/lens'],
  reviews: ['POST', '/v1/reviews'],
  rank: ['POST', '/v1/rank'],
  context: ['POST', '/v1/context'],
  customSearch: ['GET', '/customsearch/v1'],
  extract: ['POST', '/v1/extract'],
  webpage: ['POST', '/v1/webpage'],
  map: ['POST', '/v1/map'],
  startCrawl: ['POST', '/v1/crawl'],
  getCrawl: ['GET', '/v1/crawl/{id}'],
  cancelCrawl: ['DELETE', '/v1/crawl/{id}'],
  startResearch: ['POST', '/v1/research'],
  getResearch: ['GET', '/v1/research/{id}'],
  researchEvents: ['GET', '/v1/research/{id}/events'],
  cancelResearch: ['DELETE', '/v1/research/{id}'],
  createBatch: ['POST', '/v1/batches'],
  getBatch: ['GET', '/v1/batches/{id}'],
  createMonitor: ['POST', '/v1/monitors'],
  listMonitors: ['GET', '/v1/monitors'],
  getMonitor: ['GET', '/v1/monitors/{id}'],
  updateMonitor: ['PATCH', '/v1/monitors/{id}'],
  deleteMonitor: ['DELETE', '/v1/monitors/{id}'],
  runMonitor: ['POST', '/v1/monitors/{id}/run'],
  listMonitorRuns: ['GET', '/v1/monitors/{id}/runs'],
} as const satisfies { [Op in PublicOperation]: readonly [Method, keyof paths] }

/** The operations the client offers: all but the GET twins, the playground and the other vendors' shapes (/compat/*). */
export type PublicOperation = Exclude<keyof operations, `${string}Get` | `playground${string}` | `${CompatVendor}${string}`>
type CompatVendor = 'tavily' | 'firecrawl' | 'searxng' | 'serper'

type RouteOf<Op extends PublicOperation> = (typeof ROUTES)[Op]
type RouteMatches<Op extends PublicOperation> =
  Lowercase<RouteOf<Op>[0]> extends keyof paths[RouteOf<Op>[1]]
    ? paths[RouteOf<Op>[1]][Lowercase<RouteOf<Op>[0]>] extends operations[Op]
      ? true
      : false
    : false
type Assert<T extends true> = T
/** Fails to type-check when a route in ROUTES is not the operation the generated `paths` put there. */
export type RoutesMatch = Assert<{ [Op in PublicOperation]: RouteMatches<Op> }[PublicOperation]>

/** The search verticals: one POST body in, the vertical's answer out. */
type Vertical = 'search' | 'news' | 'images' | 'videos' | 'maps' | 'places' | 'shopping' | 'scholar' | 'patents' | 'autocomplete' | 'lens' | 'reviews'

export interface TrawlOptions {
  /** The server, e.g. `https://trawl.example.com` (no trailing /v1). */
  baseUrl: string
  /** A `trawl_live_…` key. */
  apiKey: string
  /** A fetch to use instead of the global one (a proxy agent, a test double, a bound `window.fetch`). */
  fetch?: typeof fetch
  /** Deadline of one method call in milliseconds, retries and their waits included (default 120 000). */
  timeout?: number
  /** Retries of 429 rate_limited and 503 answers (default 2; 0 turns retrying off). */
  maxRetries?: number
  /** The longest wait before a retry, in milliseconds (default 60 000): a longer Retry-After is thrown, not waited for. */
  maxRetryDelay?: number
  /** Headers sent with every request. */
  headers?: Record<string, string>
  /** Called after every answer that came back (also errors and each retried attempt), e.g. to log credits. */
  onResponse?: (info: ResponseInfo) => void
}

export interface RequestOptions {
  signal?: AbortSignal
  /** Overrides the client's timeout for this call. */
  timeout?: number
  /** Overrides the client's maxRetries for this call. */
  maxRetries?: number
  headers?: Record<string, string>
}

/** The billing headers of an answer (docs/api-reference.md). Absent headers are undefined. */
export interface Billing {
  creditsUsed: number | undefined
  creditsRemaining: number | undefined
  costUsd: number | undefined
  cache: 'HIT' | 'MISS' | undefined
  latencyMs: number | undefined
  tokensEstimate: number | undefined
}

export interface ResponseInfo {
  method: Method
  url: string
  status: number
  requestId: string | undefined
  billing: Billing
  headers: Headers
  /** 0 for the first attempt. */
  attempt: number
}

export interface RawResponse<T = unknown> extends ResponseInfo {
  data: T
}

export interface WaitOptions<T> {
  /** Called after every poll with what the server answered. */
  onProgress?: (value: T) => void
  /** Milliseconds between polls (default 2000; the server asks for "every few seconds at most"). */
  pollMs?: number
  /** Stops waiting (the work itself goes on; cancel a crawl with cancelCrawl). */
  signal?: AbortSignal
  /** Give up after this many milliseconds with a TimeoutError (default: wait as long as it takes). */
  timeout?: number
}

export interface BatchProgress {
  total: number
  queued: number
  running: number
  done: number
  failed: number
  /** Every job as last seen, in the order the ids were given. */
  jobs: BatchJob[]
}

const RETRY_STATUSES = new Set([429, 503])
const FINISHED_CRAWL = new Set<CrawlTask['status']>(['completed', 'failed', 'canceled'])
const FINISHED_RESEARCH = new Set<ResearchTask['status']>(['completed', 'failed', 'canceled'])
const FINISHED_JOB = new Set<BatchJob['status']>(['done', 'failed'])

/**
 * The Trawl API client: one method per endpoint, named after its OpenAPI operationId, typed from
 * the server's own document (types.gen.ts). Works wherever `fetch` does (Node 20+, browsers,
 * Deno, Bun, workers).
 */
export class Trawl {
  readonly baseUrl: string
  readonly #apiKey: string
  readonly #fetch: typeof fetch
  readonly #timeout: number
  readonly #maxRetries: number
  readonly #maxRetryDelay: number
  readonly #headers: Record<string, string>
  readonly #onResponse: ((info: ResponseInfo) => void) | undefined

  constructor(options: TrawlOptions) {
    if (!options?.baseUrl) throw new TypeError('Trawl: baseUrl is required')
    if (!options.apiKey) throw new TypeError('Trawl: apiKey is required')
    this.baseUrl = options.baseUrl.replace(/\/+$/, '')
    this.#apiKey = options.apiKey
    const f = options.fetch ?? globalThis.fetch
    if (typeof f !== 'function') throw new TypeError('Trawl: no fetch available; pass options.fetch')
    // Called unbound: window.fetch throws "Illegal invocation" when called as a method of another object.
    this.#fetch = (input, init) => f(input, init)
    this.#timeout = options.timeout ?? 120_000
    this.#maxRetries = options.maxRetries ?? 2
    this.#maxRetryDelay = options.maxRetryDelay ?? 60_000
    this.#headers = options.headers ?? {}
    this.#onResponse = options.onResponse
  }

  // Search verticals. `format: 'markdown'` answers a string; `compact` and `fields` a reduced object.

  /** POST /v1/search: web results with people_also_ask, related_searches, knowledge_graph and the other blocks. */
  search<P extends RequestBody<'search'>>(params: Exact<P, RequestBody<'search'>>, options?: RequestOptions): Promise<Shaped<'search', P>> {
    return this.#vertical('search', params, options)
  }
  /** POST /v1/news */
  news<P extends RequestBody<'news'>>(params: Exact<P, RequestBody<'news'>>, options?: RequestOptions): Promise<Shaped<'news', P>> {
    return this.#vertical('news', params, options)
  }
  /** POST /v1/images */
  images<P extends RequestBody<'images'>>(params: Exact<P, RequestBody<'images'>>, options?: RequestOptions): Promise<Shaped<'images', P>> {
    return this.#vertical('images', params, options)
  }
  /** POST /v1/videos */
  videos<P extends RequestBody<'videos'>>(params: Exact<P, RequestBody<'videos'>>, options?: RequestOptions): Promise<Shaped<'videos', P>> {
    return this.#vertical('videos', params, options)
  }
  /** POST /v1/maps */
  maps<P extends RequestBody<'maps'>>(params: Exact<P, RequestBody<'maps'>>, options?: RequestOptions): Promise<Shaped<'maps', P>> {
    return this.#vertical('maps', params, options)
  }
  /** POST /v1/places */
  places<P extends RequestBody<'places'>>(params: Exact<P, RequestBody<'places'>>, options?: RequestOptions): Promise<Shaped<'places', P>> {
    return this.#vertical('places', params, options)
  }
  /** POST /v1/shopping */
  shopping<P extends RequestBody<'shopping'>>(params: Exact<P, RequestBody<'shopping'>>, options?: RequestOptions): Promise<Shaped<'shopping', P>> {
    return this.#vertical('shopping', params, options)
  }
  /** POST /v1/scholar */
  scholar<P extends RequestBody<'scholar'>>(params: Exact<P, RequestBody<'scholar'>>, options?: RequestOptions): Promise<Shaped<'scholar', P>> {
    return this.#vertical('scholar', params, options)
  }
  /** POST /v1/patents */
  patents<P extends RequestBody<'patents'>>(params: Exact<P, RequestBody<'patents'>>, options?: RequestOptions): Promise<Shaped<'patents', P>> {
    return this.#vertical('patents', params, options)
  }
  /** POST /v1/autocomplete (JSON only) */
  autocomplete<P extends RequestBody<'autocomplete'>>(
    params: Exact<P, RequestBody<'autocomplete'>>,
    options?: RequestOptions,
  ): Promise<Shaped<'autocomplete', P>> {
    return this.#vertical('autocomplete', params, options)
  }
  /** POST /v1/lens (JSON only) */
  lens<P extends RequestBody<'lens'>>(params: Exact<P, RequestBody<'lens'>>, options?: RequestOptions): Promise<Shaped<'lens', P>> {
    return this.#vertical('lens', params, options)
  }
  /** POST /v1/reviews; page on with `page_token: answer.next_page_token`. */
  reviews<P extends RequestBody<'reviews'>>(params: Exact<P, RequestBody<'reviews'>>, options?: RequestOptions): Promise<Shaped<'reviews', P>> {
    return this.#vertical('reviews', params, options)
  }

  /** POST /v1/rank: the best organic position of a domain for a query. */
  rank(params: RankParams, options?: RequestOptions): Promise<RankResponse> {
    return this.#json('rank', { body: params }, options)
  }

  /**
   * POST /v1/context: searches `q`, reads the top `num` results (default 5) and answers the passages
   * that best match `q`, best first, within `max_tokens` (default 4,000). 1 credit plus 1 per page read.
   */
  context(params: ContextParams, options?: RequestOptions): Promise<ContextResponse> {
    return this.#json('context', { body: params }, options)
  }

  /** GET /customsearch/v1: Google's Custom Search JSON API shape (the key goes as a Bearer header). */
  customSearch(params: CustomSearchParams, options?: RequestOptions): Promise<CseResponse> {
    return this.#json('customSearch', { query: params }, options)
  }

  // Page reading.

  /** POST /v1/extract: up to 20 pages; failures are in `failed`, free. */
  extract(params: ExtractParams, options?: RequestOptions): Promise<ExtractResponse> {
    return this.#json('extract', { body: params }, options)
  }
  /** POST /v1/webpage: one page as Markdown, text or HTML. */
  webpage(params: WebpageParams, options?: RequestOptions): Promise<WebpageResponse> {
    return this.#json('webpage', { body: params }, options)
  }
  /** POST /v1/map: a site's URLs from its sitemaps and start page. */
  map(params: MapParams, options?: RequestOptions): Promise<MapResponse> {
    return this.#json('map', { body: params }, options)
  }

  // Crawls.

  /** POST /v1/crawl: queues a crawl (202) and reserves `limit` credits; see waitForCrawl. */
  startCrawl(params: CrawlParams, options?: RequestOptions): Promise<CrawlTask> {
    return this.#json('startCrawl', { body: params }, options)
  }
  /** GET /v1/crawl/{id}: progress while it runs, the result once it ended. */
  getCrawl(id: string, options?: RequestOptions): Promise<CrawlTask> {
    return this.#json('getCrawl', { id }, options)
  }
  /** DELETE /v1/crawl/{id}: cancels; a queued crawl is refunded at once. */
  cancelCrawl(id: string, options?: RequestOptions): Promise<CrawlTask> {
    return this.#json('cancelCrawl', { id }, options)
  }

  /**
   * Polls GET /v1/crawl/{id} until the crawl is completed, failed or canceled and returns that
   * task (a failed or canceled crawl is returned, not thrown: look at `status` and `error`).
   * `onProgress` gets every polled task, the last one included.
   */
  async waitForCrawl(id: string, options: WaitOptions<CrawlTask> = {}): Promise<CrawlTask> {
    const until = options.timeout === undefined ? Number.POSITIVE_INFINITY : Date.now() + options.timeout
    for (;;) {
      const task = await this.getCrawl(id, { signal: options.signal })
      options.onProgress?.(task)
      if (FINISHED_CRAWL.has(task.status)) return task
      await this.#pollWait(options, until, `crawl ${id} did not end`)
    }
  }

  // Research.

  /** POST /v1/research: queues a research job (202) and holds its worst case; see waitForResearch and researchEvents. */
  startResearch(params: ResearchParams, options?: RequestOptions): Promise<ResearchTask> {
    return this.#json('startResearch', { body: params }, options)
  }
  /** GET /v1/research/{id}: the steps and sources so far, the result once it ended. */
  getResearch(id: string, options?: RequestOptions): Promise<ResearchTask> {
    return this.#json('getResearch', { id }, options)
  }
  /** DELETE /v1/research/{id}: cancels; a queued job is refunded at once, a running one at its next step. */
  cancelResearch(id: string, options?: RequestOptions): Promise<ResearchTask> {
    return this.#json('cancelResearch', { id }, options)
  }
  /** Polls GET /v1/research/{id} until the job is completed, failed or canceled and returns it (not thrown: look at `status`). */
  async waitForResearch(id: string, options: WaitOptions<ResearchTask> = {}): Promise<ResearchTask> {
    const until = options.timeout === undefined ? Number.POSITIVE_INFINITY : Date.now() + options.timeout
    for (;;) {
      const task = await this.getResearch(id, { signal: options.signal })
      options.onProgress?.(task)
      if (FINISHED_RESEARCH.has(task.status)) return task
      await this.#pollWait(options, until, `research ${id} did not end`)
    }
  }
  /**
   * GET /v1/research/{id}/events: each step as it ends (`event: 'step'`), then the job as it ended
   * (`event` its status); the iteration ends with the job. `lastEventId` resumes after that step.
   */
  async *researchEvents(id: string, options: { signal?: AbortSignal; lastEventId?: number } = {}): AsyncGenerator<ResearchEvent> {
    const headers: Record<string, string> = { ...this.#headers, authorization: `Bearer ${this.#apiKey}`, accept: 'text/event-stream' }
    if (options.lastEventId !== undefined) headers['last-event-id'] = String(options.lastEventId)
    const res = await this.#fetch(`${this.baseUrl}/v1/research/${encodeURIComponent(id)}/events`, { headers, signal: options.signal })
    if (!res.ok || !res.body) throw errorFromAnswer(res, await res.text(), res.headers.get('x-request-id') ?? undefined)
    const reader = res.body.pipeThrough(new TextDecoderStream()).getReader()
    let buffer = ''
    for (;;) {
      const { value, done } = await reader.read()
      if (done) return
      buffer += value
      for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
        const event = parseServerEvent(buffer.slice(0, end))
        buffer = buffer.slice(end + 2)
        if (event) yield event
      }
    }
  }

  // Batches.

  /**
   * POST /v1/batches: up to 100 requests for one endpoint at half price. The answer is 202 with one
   * entry per request, in order: a queued job, or `{ error }` for a request that was refused
   * (check each entry, e.g. with isBatchJob).
   */
  createBatch<E extends BatchEndpoint>(params: CreateBatchParams<E>, options?: RequestOptions): Promise<{ batches: BatchEntry[] }> {
    return this.#json('createBatch', { body: params }, options)
  }
  /** GET /v1/batches/{id}: one job; free. */
  getBatch(id: string, options?: RequestOptions): Promise<BatchJob> {
    return this.#json('getBatch', { id }, options)
  }

  /**
   * Polls the jobs until every one is done or failed and returns them in the order given. Takes
   * job ids, or the entries of createBatch (entries that are errors are skipped; a repeated id is
   * returned once). Jobs are polled 5 at a time, and a finished job is not polled again.
   */
  async waitForBatchJobs(jobs: readonly (string | BatchEntry)[], options: WaitOptions<BatchProgress> = {}): Promise<BatchJob[]> {
    const ids = [...new Set(jobs.flatMap((j) => (typeof j === 'string' ? [j] : isBatchJob(j) ? [j.id] : [])))]
    const until = options.timeout === undefined ? Number.POSITIVE_INFINITY : Date.now() + options.timeout
    const latest = new Map<string, BatchJob>()
    for (;;) {
      const pending = ids.filter((id) => !FINISHED_JOB.has(latest.get(id)?.status as BatchJob['status']))
      await eachLimit(pending, 5, async (id) => {
        latest.set(id, await this.getBatch(id, { signal: options.signal }))
      })
      const all = ids.map((id) => latest.get(id)!)
      const count = (s: BatchJob['status']) => all.filter((j) => j.status === s).length
      options.onProgress?.({ total: all.length, queued: count('queued'), running: count('running'), done: count('done'), failed: count('failed'), jobs: all })
      if (all.every((j) => FINISHED_JOB.has(j.status))) return all
      await this.#pollWait(options, until, 'batch jobs did not finish')
    }
  }

  // Monitors.

  /** POST /v1/monitors: a saved search or watched page; the first run is due at once unless `active: false`. */
  createMonitor(params: CreateMonitorParams, options?: RequestOptions): Promise<Monitor> {
    return this.#json('createMonitor', { body: params }, options)
  }
  /** GET /v1/monitors */
  listMonitors(options?: RequestOptions): Promise<MonitorList> {
    return this.#json('listMonitors', {}, options)
  }
  /** GET /v1/monitors/{id} */
  getMonitor(id: string, options?: RequestOptions): Promise<Monitor> {
    return this.#json('getMonitor', { id }, options)
  }
  /** PATCH /v1/monitors/{id}: null clears an optional field; a changed saved search starts a new baseline. */
  updateMonitor(id: string, params: UpdateMonitorParams, options?: RequestOptions): Promise<Monitor> {
    return this.#json('updateMonitor', { id, body: params }, options)
  }
  /** DELETE /v1/monitors/{id} */
  deleteMonitor(id: string, options?: RequestOptions): Promise<MonitorDeleted> {
    return this.#json('deleteMonitor', { id }, options)
  }
  /** POST /v1/monitors/{id}/run: due at once (a paused monitor is 409 invalid_request). */
  runMonitor(id: string, options?: RequestOptions): Promise<Monitor> {
    return this.#json('runMonitor', { id }, options)
  }
  /** GET /v1/monitors/{id}/runs: newest first; page back with `before: runs.next_before`. */
  listMonitorRuns(id: string, params: MonitorRunsParams = {}, options?: RequestOptions): Promise<MonitorRuns> {
    return this.#json('listMonitorRuns', { id, query: params }, options)
  }

  // Account and engines.

  /** GET /v1/account: balance, limits and this month's usage for the key; free. */
  getAccount(options?: RequestOptions): Promise<AccountResponse> {
    return this.#json('getAccount', {}, options)
  }
  /** GET /v1/engines: the search providers, their capabilities and health. */
  listEngines(options?: RequestOptions): Promise<EnginesResponse> {
    return this.#json('listEngines', {}, options)
  }

  /**
   * Any operation, answered with its status, headers and billing beside the body. Retries,
   * timeout and errors work as in the named methods.
   */
  async request<Op extends PublicOperation>(
    operation: Op,
    args: { id?: string; query?: object; body?: unknown } = {},
    options: RequestOptions = {},
  ): Promise<RawResponse<ResponseBody<Op> | string>> {
    const [method, template] = ROUTES[operation]
    let path: string = template
    if (path.includes('{id}')) {
      if (typeof args.id !== 'string' || args.id === '') throw new TypeError(`${operation}: an id is required`)
      path = path.replace('{id}', encodeURIComponent(args.id))
    }
    const url = new URL(this.baseUrl + path)
    for (const [name, value] of Object.entries(args.query ?? {})) {
      if (value === undefined || value === null) continue
      for (const v of Array.isArray(value) ? value : [value]) url.searchParams.append(name, String(v))
    }
    return this.#send(method, url.href, args.body, options) as Promise<RawResponse<ResponseBody<Op> | string>>
  }

  async #json<Op extends PublicOperation>(
    operation: Op,
    args: { id?: string; query?: object; body?: unknown },
    options?: RequestOptions,
  ): Promise<ResponseBody<Op>> {
    return (await this.request(operation, args, options)).data as ResponseBody<Op>
  }

  #vertical<Op extends Vertical, P extends RequestBody<Op>>(operation: Op, params: P, options?: RequestOptions): Promise<Shaped<Op, P>> {
    return this.#json(operation, { body: params }, options) as Promise<Shaped<Op, P>>
  }

  /** One call: attempts until an answer that is not retried, within the deadline. */
  async #send(method: Method, url: string, body: unknown, options: RequestOptions): Promise<RawResponse> {
    const timeout = options.timeout ?? this.#timeout
    const deadline = Date.now() + timeout
    const maxRetries = options.maxRetries ?? this.#maxRetries
    const headers: Record<string, string> = { ...this.#headers, ...options.headers, authorization: `Bearer ${this.#apiKey}` }
    if (body !== undefined) headers['content-type'] = 'application/json'
    const payload = body === undefined ? undefined : JSON.stringify(body)

    for (let attempt = 0; ; attempt++) {
      const remaining = deadline - Date.now()
      if (remaining <= 0) throw timeoutError(timeout)
      const { signal, cleanup, timedOut } = deadlineSignal(remaining, options.signal)
      let res: Response
      let text: string
      try {
        res = await this.#fetch(url, { method, headers, body: payload, signal })
        text = await res.text()
      } catch (cause) {
        if (options.signal?.aborted) throw options.signal.reason
        if (timedOut()) throw timeoutError(timeout, cause)
        // No answer: a POST may have been received and acted on, so only the idempotent methods retry.
        const err = trawlError({ code: 'connection_error', status: 0, message: `${method} ${url} failed: ${describe(cause)}`, cause })
        if (method !== 'POST' && attempt < maxRetries) {
          await this.#retryWait(backoff(attempt), deadline, options.signal, err)
          continue
        }
        throw err
      } finally {
        cleanup()
      }

      const info: ResponseInfo = {
        method,
        url,
        status: res.status,
        requestId: res.headers.get('x-request-id') ?? undefined,
        billing: billingOf(res.headers),
        headers: res.headers,
        attempt,
      }
      this.#onResponse?.(info)
      const type = res.headers.get('content-type') ?? ''
      if (res.ok) {
        if (type.includes('application/json')) {
          try {
            return { ...info, data: JSON.parse(text) }
          } catch (cause) {
            throw trawlError({ code: 'invalid_response', status: res.status, requestId: info.requestId, message: 'the answer is not valid JSON', cause })
          }
        }
        return { ...info, data: text }
      }

      const err = errorFromAnswer(res, text, info.requestId)
      if (attempt < maxRetries && retried(err)) {
        const wait = err.retryAfter !== undefined ? err.retryAfter * 1000 + jitter(Math.min(1000, err.retryAfter * 100)) : backoff(attempt)
        if (wait <= this.#maxRetryDelay) {
          await this.#retryWait(wait, deadline, options.signal, err)
          continue
        }
      }
      throw err
    }
  }

  /** Sleeps before a retry, unless that would pass the deadline: then the answer's error is thrown now. */
  async #retryWait(ms: number, deadline: number, signal: AbortSignal | undefined, err: TrawlError) {
    if (Date.now() + ms >= deadline) throw err
    await sleep(ms, signal)
  }

  async #pollWait(options: Omit<WaitOptions<never>, 'onProgress'>, until: number, what: string) {
    const pollMs = options.pollMs ?? 2000
    if (Date.now() + pollMs > until) throw trawlError({ code: 'timeout', status: 0, message: `${what} within ${options.timeout} ms` })
    await sleep(pollMs, options.signal)
  }
}

/** One `event:`/`id:`/`data:` block of a server-sent event stream; null for a comment (keep-alive). */
function parseServerEvent(block: string): ResearchEvent | null {
  const field = (name: string) =>
    block
      .split('\n')
      .find((l) => l.startsWith(`${name}: `))
      ?.slice(name.length + 2)
  const event = field('event')
  const data = field('data')
  if (!event || data === undefined) return null
  const id = field('id')
  return { event, data: JSON.parse(data), ...(id !== undefined && { id: Number(id) }) } as ResearchEvent
}

/** True for an entry of `batches[]` that is a queued job (not an error). */
export function isBatchJob(entry: BatchEntry): entry is BatchJob {
  return typeof (entry as { id?: unknown }).id === 'string'
}

/** The server's status for each of its codes, for answers that carry no envelope. */
const CODE_FOR_STATUS: Record<number, ApiErrorCode> = {
  400: 'invalid_request',
  401: 'unauthorized',
  402: 'insufficient_credits',
  403: 'forbidden',
  404: 'not_found',
  409: 'invalid_request',
  413: 'invalid_request',
  415: 'invalid_request',
  429: 'rate_limited',
  500: 'internal',
  503: 'unavailable',
}

function errorFromAnswer(res: Response, text: string, requestId: string | undefined): TrawlError {
  const retryAfter = parseRetryAfter(res.headers.get('retry-after'))
  let envelope: { error?: { code?: unknown; message?: unknown; request_id?: unknown } } | undefined
  try {
    envelope = JSON.parse(text)
  } catch {
    envelope = undefined
  }
  const e = envelope?.error
  if (e && typeof e.code === 'string') {
    return trawlError({
      code: e.code as ApiErrorCode,
      status: res.status,
      message: typeof e.message === 'string' ? e.message : e.code,
      requestId: typeof e.request_id === 'string' ? e.request_id : requestId,
      retryAfter,
    })
  }
  // Not the server's envelope: a proxy or load balancer answered. 502/504 from a gateway are the
  // server being unreachable, which is what `unavailable` means.
  const code = CODE_FOR_STATUS[res.status] ?? (res.status === 502 || res.status === 504 ? 'unavailable' : res.status >= 500 ? 'internal' : 'invalid_response')
  return trawlError({ code, status: res.status, message: `HTTP ${res.status} ${res.statusText}`.trim(), requestId, retryAfter })
}

/** 429 rate_limited (not daily_limit_reached, which lasts until the next day) and every 503. */
function retried(err: TrawlError): boolean {
  if (!RETRY_STATUSES.has(err.status)) return false
  return err.status === 503 || err.code === 'rate_limited'
}

function parseRetryAfter(value: string | null): number | undefined {
  if (!value) return undefined
  if (/^\d+$/.test(value.trim())) return Number(value.trim())
  const date = Date.parse(value)
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - Date.now()) / 1000))
}

function billingOf(headers: Headers): Billing {
  const num = (name: string) => {
    const v = headers.get(name)
    return v === null || v === '' || Number.isNaN(Number(v)) ? undefined : Number(v)
  }
  const cache = headers.get('x-cache')
  return {
    creditsUsed: num('x-credits-used'),
    creditsRemaining: num('x-credits-remaining'),
    costUsd: num('x-cost-usd'),
    cache: cache === 'HIT' || cache === 'MISS' ? cache : undefined,
    latencyMs: num('x-latency-ms'),
    tokensEstimate: num('x-tokens-estimate'),
  }
}

/** Exponential from 500 ms, capped at 8 s, with full jitter over its upper half. */
function backoff(attempt: number): number {
  const base = Math.min(8000, 500 * 2 ** attempt)
  return base / 2 + jitter(base / 2)
}

const jitter = (max: number) => Math.floor(Math.random() * max)

function timeoutError(timeout: number, cause?: unknown) {
  return trawlError({ code: 'timeout', status: 0, message: `no answer within ${timeout} ms`, cause })
}

function describe(cause: unknown): string {
  if (cause instanceof Error) {
    const inner = (cause as { cause?: unknown }).cause
    return inner instanceof Error ? `${cause.message} (${inner.message})` : cause.message
  }
  return String(cause)
}

/** An AbortSignal that fires at the deadline or with the caller's signal, without AbortSignal.any (not in every runtime yet). */
function deadlineSignal(ms: number, outer: AbortSignal | undefined) {
  const controller = new AbortController()
  let expired = false
  const timer = setTimeout(() => {
    expired = true
    controller.abort(new DOMException('The operation timed out.', 'TimeoutError'))
  }, ms)
  const onAbort = () => controller.abort(outer?.reason)
  if (outer?.aborted) controller.abort(outer.reason)
  else outer?.addEventListener('abort', onAbort, { once: true })
  return {
    signal: controller.signal,
    timedOut: () => expired,
    cleanup: () => {
      clearTimeout(timer)
      outer?.removeEventListener('abort', onAbort)
    },
  }
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason)
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort)
      resolve()
    }, ms)
    const onAbort = () => {
      clearTimeout(timer)
      reject(signal?.reason)
    }
    signal?.addEventListener('abort', onAbort, { once: true })
  })
}

async function eachLimit<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<void>) {
  let next = 0
  const worker = async () => {
    while (next < items.length) await fn(items[next++]!)
  }
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker))
}
