import { type Billing, REALTIME } from '../../billing/billed-lookup.ts'
import { reserve, settle } from '../../billing/credits.ts'
import { toCredits } from '../../billing/money.ts'
import { ApiError } from '../../errors.ts'
import type { AuthContext } from '../../http/auth.ts'
import { type PageRead, type PageReadOptions, pageError, pagePriceMc, proxyForCountry, type RawPage, readPage } from '../../reader/page-read.ts'
import { assertRenderable } from '../../reader/render.read.ts'
import { type ReadingDeps, type ReadingOutcome, readOptionsOf, timeoutMessage } from './extract.service.ts'
import type { WebpageResponse } from './reading.response.ts'
import { DEFAULT_TIMEOUT_SECONDS, type WebpageParams } from './reading.schema.ts'

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
  const started = performance.now()
  const timeout = params.timeout ?? DEFAULT_TIMEOUT_SECONDS
  const opts = { ...readOptionsOf(params), ...extras, timeoutMs: timeout * 1000 }
  if (opts.country) proxyForCountry(deps.config, opts.country)
  assertRenderable(deps.renderer, opts.render, opts.country)

  const payer = { accountId: auth.accountId, keyId: auth.keyId, keyLimitMc: auth.keyLimitMc }
  const reservation = billing.mode === 'realtime' ? await reserve(deps.store, payer, pagePriceMc(false), requestId, '/v1/webpage') : null
  let page: PageRead
  try {
    page = await readPage(deps, params.url, opts, params.max_age)
  } catch (err) {
    if (reservation) await settle(deps.store, reservation, 0)
    const e = pageError(err, deps.log)
    throw e.code === 'upstream_timeout' ? new ApiError('upstream_timeout', timeoutMessage(timeout), e.opts) : e
  }
  const priceMc = page.empty ? 0 : pagePriceMc(page.cached)
  const usedMc = billing.mode === 'prepaid' ? Math.round(priceMc * billing.factor) : billing.mode === 'free' ? 0 : priceMc
  const balanceMc = reservation ? await settle(deps.store, reservation, usedMc) : null
  const meta: WebpageResponse['meta'] = {
    request_id: requestId,
    credits_used: toCredits(usedMc),
    latency_ms: Math.round(performance.now() - started),
    rendered: page.result.rendered,
  }
  if (page.empty) meta.empty_page = true
  const outcome: WebpageOutcome = { body: { ...page.result, meta }, usedMc, balanceMc, cacheHit: page.cached, tokens: page.tokens }
  if (page.raw) outcome.raw = page.raw
  return outcome
}
