import { type Billing, billedLookup, REALTIME } from '../../billing/billed-lookup.ts'
import { ApiError } from '../../errors.ts'
import type { AuthContext } from '../../http/auth.ts'
import { type PageRead, type PageReadOptions, pageError, pagePriceMc, proxyForCountry, type RawPage, readPage } from '../../reader/page-read.ts'
import { assertRenderable } from '../../reader/render.read.ts'
import { type ReadingDeps, type ReadingOutcome, readOptionsOf, timeoutMessage } from './extract.service.ts'
import type { WebpageResponse } from './reading.response.ts'
import { DEFAULT_TIMEOUT_SECONDS, type WebpageParams } from './reading.schema.ts'
import { extractFields, MAX_CALLS_PER_PAGE, prepareSchemaJob } from './schema-extract.ts'

/**
 * What the Firecrawl shape asks of the same read beyond /v1/webpage's parameters: more formats of
 * one fetch, the page as fetched, and error pages read rather than failed (PageReadOptions).
 */
export type WebpageReadExtras = Pick<PageReadOptions, 'moreFormats' | 'keepRaw' | 'readErrorPages'>

export interface WebpageOutcome extends ReadingOutcome<WebpageResponse> {
  /** With keepRaw. */
  raw?: RawPage
}

/**
 * POST /v1/webpage: one page for 1 credit (0.5 from the cache). A page that cannot be read is the
 * matching error (400 invalid_request, 503 upstream_* with Retry-After), refunded. A page with no
 * readable content is 200 with empty content and `meta.empty_page`, also free (README "Decisions").
 * With `schema` the model fills it from the page (schema-extract.ts); a fill that fails is the
 * call's error (503), refunded like any failed read.
 */
export async function runWebpage(
  deps: ReadingDeps,
  auth: AuthContext,
  params: WebpageParams,
  requestId: string,
  /** Batch jobs pass prepaid: nothing reserved here, the price of the read (times `factor`) is reported for the job to settle. */
  billing: Billing = REALTIME,
  /**
   * The Firecrawl shape's needs. An error page read with readErrorPages is priced like any page
   * read (1 credit, free when empty): it was fetched and read; it is never cached.
   */
  extras: WebpageReadExtras = {},
): Promise<WebpageOutcome> {
  const timeout = params.timeout ?? DEFAULT_TIMEOUT_SECONDS
  const opts = { ...readOptionsOf(params), ...extras, timeoutMs: timeout * 1000 }
  if (opts.country) proxyForCountry(deps.config, opts.country)
  assertRenderable(deps.renderer, opts.render, opts.country)
  const job = await prepareSchemaJob(deps.config.llm, params)

  let page: PageRead | undefined // what the reply does not carry: its tokens and the raw page
  const { body, usedMc, balanceMc } = await billedLookup(deps, auth, billing, requestId, {
    endpoint: '/v1/webpage',
    holdMc: pagePriceMc(false) + (job ? MAX_CALLS_PER_PAGE * job.callMc : 0),
    async ask(ticket) {
      page = await readWebpage(deps, params.url, opts, params.max_age, timeout)
      const meta: WebpageResponse['meta'] = { request_id: ticket.requestId, credits_used: 0, latency_ms: 0, rendered: page.result.rendered }
      if (page.empty) meta.empty_page = true
      if (!job || page.empty) return { ...page.result, meta }
      const filled = await extractFields(job, { url: page.result.url, markdown: page.result.markdown ?? '' })
      if (!filled.ok) throw filled.error
      return { ...page.result, ...filled.value, meta: { ...meta, model: job.usage } }
    },
    priceMc: (body) => (body.meta.empty_page ? 0 : pagePriceMc(body.cached) + (job ? job.billedCalls * job.callMc : 0)),
  })
  return { body, usedMc, balanceMc, cacheHit: body.cached, tokens: await page!.tokens(), ...(page!.raw && { raw: page!.raw }) }
}

/** The read, its failure as the matching error: a timeout says which one ran out. */
async function readWebpage(deps: ReadingDeps, url: string, opts: PageReadOptions, maxAge: number | undefined, timeout: number): Promise<PageRead> {
  try {
    return await readPage(deps, url, opts, maxAge)
  } catch (err) {
    const e = pageError(err, deps.log)
    throw e.code === 'upstream_timeout' ? new ApiError('upstream_timeout', timeoutMessage(timeout), e.opts) : e
  }
}
