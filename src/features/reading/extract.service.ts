import { billedLookup, REALTIME } from '../../billing/billed-lookup.ts'
import type { AuthContext } from '../../http/auth.ts'
import { mapLimit } from '../../jobs/map-limit.ts'
import type { ModelConfig } from '../../llm/chat-model.ts'
import { normalisePageUrl, type PageReadDeps, type PageReadOptions, pageError, pagePriceMc, proxyForCountry, readPage } from '../../reader/page-read.ts'
import type { ReadFormat } from '../../reader/reading.types.ts'
import { assertRenderable } from '../../reader/render.read.ts'
import type { Store } from '../../store/database.ts'
import type { ExtractResponse, PageFailure } from './reading.response.ts'
import { DEFAULT_TIMEOUT_SECONDS, type ExtractParams } from './reading.schema.ts'
import { extractFields, MAX_CALLS_PER_PAGE, prepareSchemaJob, type SchemaJob } from './schema-extract.ts'

export interface ReadingDeps extends PageReadDeps {
  store: Store
  /** The operator's model, for `schema` (absent: 501 not_configured). */
  config: PageReadDeps['config'] & { llm?: ModelConfig | null }
}

/** Extract reads at most 5 pages in parallel. */
const PARALLEL_PAGES = 5

/** The failure codes extract's `failed[]` may hold; empty_page is not an HTTP error, so it is not an ErrorCode. */
type PageFailureCode = PageFailure['error']['code']

export interface ExtractRequest {
  urls: string[]
  format: ReadFormat
  query?: string
  highlights: number
  max_tokens?: number
  include_links: boolean
  include_images: boolean
  max_age?: number
  country?: string
  timeout: number
  render: 'auto' | 'always' | 'never'
}

/** The /v1/extract body (reading.response.ts), its `request` typed as the normalised request it echoes. */
export type ExtractResponseBody = Omit<ExtractResponse, 'request'> & { request: ExtractRequest }

export interface ReadingOutcome<B> {
  body: B
  usedMc: number
  balanceMc: number | null
  /** X-Cache: HIT only when everything returned came from the cache. */
  cacheHit: boolean
  tokens: number
}

export const EMPTY_PAGE_MESSAGE = 'page has no readable content'

/**
 * Drops duplicates by normalised URL (parsed, fragment dropped), keeping the first spelling's
 * position. A string that is not a readable URL is kept as given and fails on its own later.
 */
export function dedupeUrls(urls: string[]): string[] {
  const seen = new Set<string>()
  const out: string[] = []
  for (const raw of urls) {
    const url = normalisePageUrl(raw) ?? raw
    if (seen.has(url)) continue
    seen.add(url)
    out.push(url)
  }
  return out
}

/** The caller asked to wait `timeout` seconds at most; a page still loading then is a timeout, said plainly. */
export function timeoutMessage(timeoutSeconds: number) {
  return `page was still loading when the ${timeoutSeconds} s timeout ran out`
}

export function readOptionsOf(p: Omit<ExtractParams, 'urls' | 'schema' | 'prompt'>): Omit<PageReadOptions, 'timeoutMs'> {
  return {
    format: p.format ?? 'markdown',
    includeLinks: p.include_links,
    includeImages: p.include_images,
    maxTokens: p.max_tokens,
    query: p.query,
    highlights: p.highlights,
    country: p.country,
    render: p.render ?? 'auto',
  }
}

/**
 * POST /v1/extract: one reservation of 1 credit per distinct URL before any work, pages read 5 at a
 * time under one call-wide deadline, then settled to 1 per live page and 0.5 per cached page;
 * failed and empty pages cost nothing. The answer is 200 whatever happened to the pages. With
 * `schema`, each page read is also filled by the model (schema-extract.ts): its calls are held
 * too and billed for the pages whose data is returned; a page whose fill fails is in `failed[]`.
 */
export async function runExtract(deps: ReadingDeps, auth: AuthContext, params: ExtractParams, requestId: string): Promise<ReadingOutcome<ExtractResponseBody>> {
  const urls = dedupeUrls(params.urls)
  const timeout = params.timeout ?? DEFAULT_TIMEOUT_SECONDS
  const opts = readOptionsOf(params)
  // A country without an exit fails the whole call, before anything is reserved.
  if (opts.country) proxyForCountry(deps.config, opts.country)
  assertRenderable(deps.renderer, opts.render, opts.country)
  const job = await prepareSchemaJob(deps.config.llm, params)

  let tokens = 0 // what the reply does not carry
  const { body, usedMc, balanceMc } = await billedLookup(deps, auth, REALTIME, requestId, {
    endpoint: '/v1/extract',
    holdMc: urls.length * (pagePriceMc(false) + (job ? MAX_CALLS_PER_PAGE * job.callMc : 0)),
    async ask(ticket) {
      const deadline = Date.now() + timeout * 1000
      const outcomes = await mapLimit(urls, PARALLEL_PAGES, (url) => readOne(deps, url, opts, params.max_age, deadline, timeout, job))
      const successes = outcomes.filter((o): o is Success => o.ok)
      const failed = outcomes.filter((o): o is Failure => !o.ok).map((o) => o.failure)
      tokens = successes.reduce((sum, o) => sum + o.tokens, 0)
      return {
        request: normalisedRequest(params, urls),
        results: successes.map((o) => o.result),
        failed,
        meta: {
          request_id: ticket.requestId,
          credits_used: 0,
          latency_ms: 0,
          succeeded: successes.length,
          failed: failed.length,
          rendered: successes.filter((o) => o.result.rendered).length,
          ...(job && { model: job.usage }),
        },
      }
    },
    // 1 per live page, 0.5 per cached page; failed and empty pages (not in results) cost nothing; the model calls of pages returned.
    priceMc: (body) => body.results.reduce((sum, page) => sum + pagePriceMc(page.cached), 0) + (job ? job.billedCalls * job.callMc : 0),
  })
  return { body, usedMc, balanceMc, cacheHit: body.results.length > 0 && body.results.every((page) => page.cached), tokens }
}

/** The echoed `request`: the deduplicated URLs with defaults filled in; optional parameters only when sent. */
function normalisedRequest(params: ExtractParams, urls: string[]): ExtractRequest {
  const request: ExtractRequest = {
    urls,
    format: params.format ?? 'markdown',
    highlights: params.highlights ?? 0,
    include_links: params.include_links ?? false,
    include_images: params.include_images ?? false,
    timeout: params.timeout ?? DEFAULT_TIMEOUT_SECONDS,
    render: params.render ?? 'auto',
  }
  if (params.query !== undefined) request.query = params.query
  if (params.max_tokens !== undefined) request.max_tokens = params.max_tokens
  if (params.max_age !== undefined) request.max_age = params.max_age
  if (params.country !== undefined) request.country = params.country
  return request
}

interface Success {
  ok: true
  result: ExtractResponse['results'][number]
  cached: boolean
  tokens: number
}
interface Failure {
  ok: false
  failure: PageFailure
}
type Outcome = Success | Failure

/** Never throws: whatever happens to one page ends up in `failed[]`. */
async function readOne(
  deps: ReadingDeps,
  url: string,
  opts: Omit<PageReadOptions, 'timeoutMs'>,
  maxAge: number | undefined,
  deadline: number,
  timeout: number,
  job: SchemaJob | null,
): Promise<Outcome> {
  try {
    const page = await readPage(deps, url, { ...opts, timeoutMs: deadline - Date.now() }, maxAge)
    if (page.empty) return { ok: false, failure: { url, error: { code: 'empty_page', message: EMPTY_PAGE_MESSAGE } } }
    if (!job) return { ok: true, result: page.result, cached: page.cached, tokens: await page.tokens() }
    const filled = await extractFields(job, { url: page.result.url, markdown: page.result.markdown ?? '' })
    if (!filled.ok) return { ok: false, failure: { url, error: { code: filled.error.code as PageFailureCode, message: filled.error.message } } }
    return { ok: true, result: { ...page.result, ...filled.value }, cached: page.cached, tokens: await page.tokens() }
  } catch (err) {
    const e = pageError(err, deps.log)
    const message = e.code === 'upstream_timeout' ? timeoutMessage(timeout) : e.message
    return { ok: false, failure: { url, error: { code: e.code as PageFailureCode, message } } }
  }
}
