import { STATUS_CODES } from 'node:http'
import type { z } from 'zod'
import type { LookupOutcome } from '../../../billing/billed-lookup.ts'
import { toCredits, toMc } from '../../../billing/money.ts'
import type { AppDeps } from '../../../deps.ts'
import { planEngines, sentParams } from '../../../engines/choice.ts'
import type { NewsResult, OrganicResult, ImageResult as TrawlImage } from '../../../engines/engine.types.ts'
import { ApiError, isApiError } from '../../../errors.ts'
import type { AuthContext } from '../../../http/auth.ts'
import { parseWith } from '../../../http/parse-input.ts'
import { normalisePageUrl } from '../../../reader/page-read.ts'
import type { PageMetadata, PageResult } from '../../../reader/reading.types.ts'
import { createBatch, toBatchJobView } from '../../batches/batches.service.ts'
import { batchIdOfJob, jobsOfBatch } from '../../batches/batches.store.ts'
import type { CrawlTask as CrawlView } from '../../crawl/crawl.response.ts'
import { CrawlParams } from '../../crawl/crawl.schema.ts'
import { activeCrawls, cancelCrawl, getCrawl, startCrawl } from '../../crawl/crawl.service.ts'
import { MapParams } from '../../map/map.schema.ts'
import { runMap } from '../../map/map.service.ts'
import { WebpageParams } from '../../reading/reading.schema.ts'
import { runWebpage } from '../../reading/webpage.service.ts'
import { SearchParams } from '../../search/search.schema.ts'
import { normaliseSearch, runSearch } from '../../search/search.service.ts'
import { runVertical } from '../../search/verticals/vertical.service.ts'
import { VERTICAL_SPECS } from '../../search/verticals/vertical.specs.ts'
import type { FirecrawlDocument, FirecrawlJobStatus, FirecrawlMetadata } from './firecrawl.response.ts'
import {
  type FirecrawlBatchBody,
  type FirecrawlCrawlBody,
  type FirecrawlMapBody,
  type FirecrawlSearchBody,
  firecrawlNames,
  type ReadRequest,
  readScrapeOptions,
  type ScrapeOptions,
} from './firecrawl.schema.ts'

/**
 * Firecrawl v2 requests answered by Trawl's own services: scrape by /v1/webpage's (cache, render,
 * reader threads, price), search by /v1/search, /v1/news and /v1/images, map by /v1/map, crawl by /v1/crawl and
 * batch scrape by /v1/batches of webpage jobs. Every price, refund and ledger row is theirs.
 */

export const RESULT_TTL_MS = 24 * 3600_000
const DAY_MS = RESULT_TTL_MS

const refuse = (message: string) => new ApiError('invalid_request', message)

/** Trawl's validation with Firecrawl's field names in the message. */
function parseAs<S extends z.ZodType>(schema: S, input: unknown, names: Record<string, string>): z.infer<S> {
  try {
    return parseWith(schema, input)
  } catch (err) {
    if (isApiError(err) && err.code === 'invalid_request') throw new ApiError('invalid_request', firecrawlNames(err.message, names), err.opts)
    throw err
  }
}

const defined = <T extends Record<string, unknown>>(o: T) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined && v !== null)) as T

// ---------------------------------------------------------------------------------------------
// Documents

/** A Trawl page read as Firecrawl's `metadata`. */
export function metadataOf(
  page: { title: string | null; published_at?: string | null; metadata?: PageMetadata },
  sourceURL: string,
  url: string,
  statusCode?: number,
) {
  const m = page.metadata ?? {}
  const og = m.open_graph ?? {}
  return defined({
    title: page.title ?? undefined,
    description: m.description,
    language: m.language,
    author: m.author,
    canonicalUrl: m.canonical_url,
    ogTitle: og.title,
    ogDescription: og.description,
    ogImage: og.image,
    ogUrl: og.url,
    ogSiteName: og.site_name ?? m.site_name,
    ogLocale: og.locale,
    publishedTime: page.published_at ?? undefined,
    modifiedTime: m.modified_at,
    numPages: m.pages,
    sourceURL,
    url,
    statusCode,
  }) as FirecrawlMetadata
}

/** One read page (a /v1/webpage body, a batch job's result) as a Firecrawl document with the formats asked. */
export function documentOf(page: PageResult, sourceURL: string, read: ReadRequest, requestId?: string): FirecrawlDocument {
  const doc: FirecrawlDocument = {
    metadata: {
      ...metadataOf(page, sourceURL, page.url, page.status_code),
      cacheState: page.cached ? 'hit' : 'miss',
      ...(page.cached_at && { cachedAt: page.cached_at }),
      ...(requestId && { scrapeId: requestId }),
      proxyUsed: 'basic',
    },
  }
  if (read.contents.includes('markdown') && page.markdown !== undefined) doc.markdown = page.markdown
  if (read.contents.includes('html') && page.html !== undefined) doc.html = page.html
  if (read.links) doc.links = (page.links ?? []).map((l) => l.url)
  if (read.images) doc.images = page.images ?? []
  return doc
}

// ---------------------------------------------------------------------------------------------
// POST /v2/scrape

export async function scrape(deps: AppDeps, auth: AuthContext, body: ScrapeOptions & { url: string }, requestId: string) {
  const read = readScrapeOptions(body, '', true)
  const readable = read.contents.filter((c): c is 'markdown' | 'html' => c !== 'rawHtml')
  // The first content format is the read's own; the others come from the same fetch. rawHtml alone
  // still reads the page as Markdown, for its metadata; json reads Markdown first (the model reads it).
  const [format = 'markdown', ...moreFormats] = read.json ? ['markdown' as const, ...readable.filter((c) => c !== 'markdown')] : readable
  const params = parseAs(
    WebpageParams,
    defined({
      url: body.url,
      format,
      include_links: read.links || undefined,
      include_images: read.images || undefined,
      max_age: read.maxAge,
      timeout: read.timeout,
      schema: read.json?.schema,
      prompt: read.json?.prompt,
    }),
    {},
  )
  // /v1/webpage itself: its cache, render=auto, reader threads, price and refunds. Firecrawl answers
  // a page's 404 or 500 with the page and its status, so error pages are read, not failed.
  const outcome = await runWebpage(deps, auth, params, requestId, undefined, {
    moreFormats,
    keepRaw: read.contents.includes('rawHtml'),
    readErrorPages: true,
  })
  const page = outcome.body
  const doc = documentOf(page, body.url, read, requestId)
  const failedStatus = page.status_code >= 400 ? page.status_code : undefined
  if (failedStatus) doc.metadata.error = STATUS_CODES[failedStatus] ?? `HTTP ${failedStatus}`
  if (outcome.raw) {
    doc.metadata.contentType = outcome.raw.contentType
    doc.rawHtml = outcome.raw.text
  }
  if (read.json && page.data) doc.json = page.data
  doc.metadata.creditsUsed = toCredits(outcome.usedMc)
  if (page.meta.empty_page) doc.warning = 'the page has no readable content; not billed'
  return { body: { success: true as const, data: doc }, usedMc: outcome.usedMc, balanceMc: outcome.balanceMc, cacheHit: outcome.cacheHit }
}

// ---------------------------------------------------------------------------------------------
// POST /v2/search

const DEPTHS = [10, 20, 30, 50, 100] as const
/** The Trawl depth that holds `limit` results (Trawl bills by depth: 10 results 1 credit, 100 results 7). */
export const depthFor = (limit: number) => DEPTHS.find((d) => d >= limit) ?? 100

const SEARCH_NAMES = {
  q: 'query',
  language: 'lang',
  include_domains: 'includeDomains',
  exclude_domains: 'excludeDomains',
  max_age: 'scrapeOptions.maxAge',
}

type SourceName = 'web' | 'news' | 'images'
interface Source {
  type: SourceName
  tbs?: string
  location?: string
}

/** Each source prepared (validated, engine chosen) before any of them is billed. */
interface PreparedSource {
  type: SourceName
  run(): Promise<{ items: unknown[]; outcome: LookupOutcome<unknown> }>
}

export async function search(deps: AppDeps, auth: AuthContext, body: FirecrawlSearchBody, requestId: string) {
  if (body.categories?.length) throw refuse('categories is not supported by Trawl; use includeDomains')
  if (body.includeDomains?.length && body.excludeDomains?.length) throw refuse('includeDomains and excludeDomains cannot both be given')
  const limit = body.limit ?? 5
  const num = depthFor(limit)
  const read = body.scrapeOptions ? readScrapeOptions(body.scrapeOptions, 'scrapeOptions.') : undefined
  if (read && (read.contents.some((c) => c !== 'markdown') || read.links || read.images)) {
    throw refuse('scrapeOptions.formats: search results are read as markdown only on Trawl; use /v2/scrape for other formats')
  }
  const seen = new Set<SourceName>()
  const sources: Source[] = []
  for (const s of body.sources ?? ['web']) {
    const source: Source = typeof s === 'string' ? { type: s } : s
    if (!seen.has(source.type)) sources.push(source)
    seen.add(source.type)
  }
  const contentCount = read ? Math.min(limit, 10) : 0
  const common = {
    q: body.query,
    num,
    country: body.country,
    language: body.lang,
    include_domains: body.includeDomains?.length ? body.includeDomains : undefined,
    exclude_domains: body.excludeDomains?.length ? body.excludeDomains : undefined,
  }
  const prepared: PreparedSource[] = sources.map((source) => {
    const tbs = source.tbs ?? body.tbs
    const location = source.location ?? body.location
    if (source.type === 'web') {
      const params = parseAs(
        SearchParams,
        defined({ ...common, tbs, location, include_content: contentCount || undefined, max_age: read?.maxAge }),
        SEARCH_NAMES,
      )
      const request = normaliseSearch(params, auth)
      planEngines(deps.engines, request.engine, { vertical: 'search', params: sentParams(request) })
      return {
        type: 'web',
        async run() {
          const outcome = await runSearch(deps, auth, request, { maxAge: params.max_age, includeContent: params.include_content }, requestId)
          return { items: outcome.body.results.slice(0, limit).map(webResult), outcome }
        },
      }
    }
    const spec = VERTICAL_SPECS[source.type]
    const params = parseAs(spec.schema, defined({ ...common, tbs, ...(source.type === 'news' && { location }) }), SEARCH_NAMES) as Record<string, unknown>
    const request = spec.normalise(params, auth)
    for (const engine of planEngines(deps.engines, request.engine ?? deps.engines.primary, { vertical: request.endpoint, params: sentParams(request) })) {
      deps.engines.get(engine)?.validateVertical?.(request)
    }
    return {
      type: source.type,
      async run() {
        const outcome = await runVertical(deps, auth, spec, request, {}, requestId)
        const results = outcome.body.results.slice(0, limit)
        return { items: source.type === 'news' ? (results as NewsResult[]).map(newsResult) : (results as TrawlImage[]).map(imageResult), outcome }
      },
    }
  })

  const data: Partial<Record<SourceName, unknown[]>> = {}
  const warnings: string[] = []
  let usedMc = 0
  let balanceMc: number | null = null
  let cacheHit = true
  let firstError: unknown
  for (const source of prepared) {
    try {
      const { items, outcome } = await source.run()
      data[source.type] = items
      usedMc += outcome.usedMc
      balanceMc = outcome.balanceMc ?? balanceMc
      cacheHit &&= outcome.cacheHit
    } catch (err) {
      firstError ??= err
      warnings.push(`${source.type}: ${err instanceof Error ? err.message : String(err)}`)
    }
  }
  if (firstError && Object.keys(data).length === 0) throw firstError
  if (read && limit > 10) warnings.push('Trawl reads the top 10 web results at most; the others have no markdown')
  const body_ = {
    success: true as const,
    data,
    creditsUsed: toCredits(usedMc),
    id: requestId,
    ...(warnings.length > 0 && { warning: warnings.join('; ') }),
  }
  return { body: body_, usedMc, balanceMc, cacheHit }
}

function webResult(r: OrganicResult) {
  const item: Record<string, unknown> = { url: r.link, title: r.title, description: r.snippet ?? '', position: r.position }
  if (r.content !== undefined) {
    item.markdown = r.content
    item.metadata = defined({
      title: r.content_title ?? r.title,
      sourceURL: r.link,
      url: r.link,
      statusCode: 200,
      cacheState: r.content_cached ? 'hit' : 'miss',
    })
  } else if (r.content_error) {
    item.metadata = { sourceURL: r.link, url: r.link, error: r.content_error.message }
  }
  return item
}

const newsResult = (r: NewsResult) =>
  defined({ title: r.title, url: r.link, snippet: r.snippet ?? undefined, date: r.date ?? undefined, imageUrl: r.image_url ?? undefined, position: r.position })

const imageResult = (r: TrawlImage) =>
  defined({
    title: r.title,
    imageUrl: r.image_url,
    imageWidth: r.image_width ?? undefined,
    imageHeight: r.image_height ?? undefined,
    url: r.link ?? undefined,
    position: r.position,
  })

// ---------------------------------------------------------------------------------------------
// POST /v2/map

const SITE_NAMES = {
  include_subdomains: 'includeSubdomains',
  ignore_query_parameters: 'ignoreQueryParameters',
  include_paths: 'includePaths',
  exclude_paths: 'excludePaths',
  max_depth: 'maxDiscoveryDepth',
  max_age: 'scrapeOptions.maxAge',
}

export async function map(deps: AppDeps, auth: AuthContext, body: FirecrawlMapBody, requestId: string) {
  const asked = body.limit ?? 5000
  const params = parseAs(
    MapParams,
    defined({
      url: body.url,
      search: body.search,
      limit: Math.min(asked, 5000),
      sitemap: body.sitemap,
      // Firecrawl's v2 defaults.
      include_subdomains: body.includeSubdomains ?? true,
      ignore_query_parameters: body.ignoreQueryParameters ?? true,
    }),
    SITE_NAMES,
  )
  const outcome = await runMap(deps, auth, params, requestId)
  const links = outcome.body.results.map((r) => defined({ url: r.url, title: r.title }))
  const warning = asked > 5000 ? 'Trawl lists at most 5000 URLs per map' : undefined
  return { body: { success: true as const, links, ...(warning && { warning }) }, usedMc: outcome.usedMc, balanceMc: outcome.balanceMc, cacheHit: false }
}

// ---------------------------------------------------------------------------------------------
// Crawl

/** Firecrawl's default (crawlEntireDomain false): only pages under the start URL's path. */
function childPaths(url: string): string[] | undefined {
  if (!URL.canParse(url)) return undefined
  const path = new URL(url).pathname.replace(/\/+$/, '')
  if (!path) return undefined
  return [`^${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(/|$)`]
}

export async function startFirecrawlCrawl(deps: AppDeps, auth: AuthContext, body: FirecrawlCrawlBody, requestId: string) {
  if (body.prompt) throw refuse('prompt is not supported by Trawl; give includePaths, excludePaths and limit')
  if (body.allowExternalLinks) throw refuse('allowExternalLinks is not supported by Trawl: crawls stay on the site')
  if (body.ignoreRobotsTxt) throw refuse('ignoreRobotsTxt is not supported by Trawl: crawls honour robots.txt')
  if (body.robotsUserAgent) throw refuse('robotsUserAgent is not supported by Trawl')
  if (body.regexOnFullURL) throw refuse('regexOnFullURL is not supported by Trawl: includePaths and excludePaths match the URL path')
  if (body.webhook !== undefined) throw refuse('webhook is not supported on the Firecrawl shape; POST /v1/crawl takes webhook_url (signed crawl.completed)')
  if (body.zeroDataRetention) throw refuse('zeroDataRetention is not supported by Trawl: pages read are cached')
  const read = readScrapeOptions(body.scrapeOptions ?? {}, 'scrapeOptions.')
  if (read.contents.some((c) => c !== 'markdown') || read.images) {
    throw refuse('scrapeOptions.formats: crawls return markdown (and links) on Trawl; read other formats with /v2/scrape or /v2/batch/scrape')
  }
  const warnings: string[] = []
  const asked = body.limit ?? 25
  if (asked > 1000) warnings.push('Trawl crawls 1000 pages at most; limit was lowered to 1000')
  const params = parseAs(
    CrawlParams,
    defined({
      url: body.url,
      limit: Math.min(asked, 1000),
      max_depth: Math.min(body.maxDiscoveryDepth ?? 10, 10),
      include_paths: body.includePaths?.length ? body.includePaths : body.crawlEntireDomain ? undefined : childPaths(body.url),
      exclude_paths: body.excludePaths?.length ? body.excludePaths : undefined,
      include_subdomains: body.allowSubdomains,
      sitemap: body.sitemap,
      ignore_query_parameters: body.ignoreQueryParameters,
      format: 'markdown',
      include_links: read.links || undefined,
      max_age: read.maxAge,
    }),
    SITE_NAMES,
  )
  const { task, balanceMc } = await startCrawl(deps, auth, params, requestId)
  return { task, balanceMc, warning: warnings.join('; ') || undefined }
}

const STATUS: Record<CrawlView['status'], FirecrawlJobStatus['status']> = {
  queued: 'scraping',
  running: 'scraping',
  completed: 'completed',
  failed: 'failed',
  canceled: 'cancelled',
}

/** Documents per answer, and bytes, as Firecrawl pages them. */
const PAGE_DOCS = 100
const PAGE_BYTES = 10 * 1024 * 1024

export interface Paging {
  skip?: number
  limit?: number
  /** Where `next` points: the absolute URL of this job, without query. */
  self: string
}

/** One page of documents and the `next` link when more are left. */
function page(docs: FirecrawlDocument[], paging: Paging): { data: FirecrawlDocument[]; next: string | null } {
  const skip = paging.skip ?? 0
  const max = paging.limit ?? PAGE_DOCS
  const data: FirecrawlDocument[] = []
  let bytes = 0
  for (const doc of docs.slice(skip)) {
    if (data.length >= max) break
    const size = Buffer.byteLength(JSON.stringify(doc))
    if (data.length > 0 && bytes + size > PAGE_BYTES) break
    data.push(doc)
    bytes += size
  }
  const after = skip + data.length
  const next = after < docs.length ? `${paging.self}?skip=${after}${paging.limit ? `&limit=${paging.limit}` : ''}` : null
  return { data, next }
}

/** The pages of a Trawl crawl as Firecrawl documents. */
export function crawlDocuments(view: CrawlView): FirecrawlDocument[] {
  const pages = (view.result?.pages ?? []) as Record<string, unknown>[]
  return pages.map((p) => {
    const url = String(p.url)
    const doc: FirecrawlDocument = {
      metadata: metadataOf(
        { title: (p.title as string | null) ?? null, published_at: p.published_at as string | null, metadata: p.metadata as PageMetadata },
        url,
        url,
        200,
      ),
    }
    doc.markdown = String(p.markdown ?? p.text ?? '')
    if (Array.isArray(p.links)) doc.links = (p.links as { url: string }[]).map((l) => l.url)
    return doc
  })
}

/** GET /v2/crawl/{id}: a Trawl crawl task as Firecrawl's status, its pages paged with `next`. */
export function crawlStatus(view: CrawlView, paging: Paging): FirecrawlJobStatus {
  const docs = crawlDocuments(view)
  const failed = view.result?.failed.length ?? view.progress.pages_failed
  const done = view.result ? docs.length : view.progress.pages_done
  const completed = done + failed
  const total = view.result ? completed : completed + view.progress.pages_queued
  const ended = view.completed_at ? Date.parse(view.completed_at) : Date.now()
  const { data, next } = page(docs, paging)
  return {
    success: true,
    status: STATUS[view.status],
    total,
    completed,
    creditsUsed: view.credits_used,
    expiresAt: new Date(ended + DAY_MS).toISOString(),
    next,
    data,
    ...(view.status === 'failed' && view.error && { error: view.error.message }),
  }
}

/** GET /v2/crawl/active: the account's queued and running crawls, with their options in Firecrawl's names. */
export async function firecrawlActiveCrawls(deps: AppDeps, auth: AuthContext) {
  const crawls = await activeCrawls(deps.store, auth.accountId)
  return {
    success: true as const,
    crawls: crawls.map(({ id, request: r }) => ({
      id,
      teamId: auth.accountId,
      url: r.url,
      options: {
        limit: r.limit,
        maxDiscoveryDepth: r.max_depth,
        includePaths: r.include_paths,
        excludePaths: r.exclude_paths,
        allowSubdomains: r.include_subdomains,
        sitemap: r.sitemap,
        ignoreQueryParameters: r.ignore_query_parameters,
      },
    })),
  }
}

export async function firecrawlCrawlStatus(deps: AppDeps, auth: AuthContext, id: string, paging: Paging) {
  return crawlStatus(await getCrawl(deps.store, auth.accountId, id), paging)
}

export async function cancelFirecrawlCrawl(deps: AppDeps, auth: AuthContext, id: string) {
  const view = await cancelCrawl(deps, auth.accountId, id)
  const status = view.status === 'completed' ? 'completed' : view.status === 'failed' ? 'failed' : 'cancelled'
  return { success: true as const, status: status as 'cancelled' | 'completed' | 'failed' }
}

export async function crawlErrors(deps: AppDeps, auth: AuthContext, id: string) {
  const view = await getCrawl(deps.store, auth.accountId, id)
  const errors = (view.result?.failed ?? []).map((f, i) => ({ id: `${id}-${i}`, url: f.url, error: f.error.message, code: f.error.code }))
  return { errors, robotsBlocked: [] as string[] }
}

// ---------------------------------------------------------------------------------------------
// Batch scrape

export async function startBatchScrape(deps: AppDeps, auth: AuthContext, body: FirecrawlBatchBody, requestId: string) {
  if (body.webhook !== undefined) throw refuse('webhook is not supported on the Firecrawl shape; POST /v1/batches takes webhook_url (signed batch.completed)')
  if (body.appendToId) throw refuse('appendToId is not supported by Trawl; start another batch')
  const read = readScrapeOptions(body)
  if (read.contents.includes('rawHtml') || read.contents.length > 1) {
    throw refuse(
      'formats: batch scrape reads one format per page on Trawl (markdown or html, with links and images); use /v2/scrape for rawHtml or several formats',
    )
  }
  const format = read.contents[0] ?? 'markdown'
  const invalidURLs = body.urls.filter((u) => normalisePageUrl(u) === null)
  if (invalidURLs.length > 0 && body.ignoreInvalidURLs === false) throw refuse(`urls: ${invalidURLs[0]!.slice(0, 200)} is not a valid http(s) URL`)
  const valid = body.urls.filter((u) => normalisePageUrl(u) !== null)
  if (valid.length === 0) throw refuse('urls: none of the URLs is a valid http(s) URL')
  const requests = valid.map((url) =>
    defined({ url, format, include_links: read.links || undefined, include_images: read.images || undefined, max_age: read.maxAge, timeout: read.timeout }),
  )
  const { batches, chargedMc, balanceMc } = await createBatch(deps, auth, { endpoint: 'webpage', requests }, requestId)
  let firstError: string | undefined
  batches.forEach((entry, i) => {
    if (!('id' in entry)) {
      firstError ??= entry.error.message
      invalidURLs.push(valid[i]!)
    }
  })
  const job = batches.find((entry) => 'id' in entry)
  if (!job || !('id' in job)) throw refuse(`urls: no URL could be queued: ${firstError ?? 'invalid'}`)
  const batchId = await batchIdOfJob(deps.store.db, auth.accountId, job.id)
  if (!batchId) throw new ApiError('internal', 'the batch was queued but cannot be found')
  return { batchId, invalidURLs, chargedMc, balanceMc }
}

async function batchJobs(deps: AppDeps, auth: AuthContext, id: string) {
  const now = Date.now()
  const rows = (await jobsOfBatch(deps.store.db, auth.accountId, id)).filter((r) => r.expires_at == null || r.expires_at > now)
  if (rows.length === 0) throw new ApiError('not_found', `batch scrape ${id} does not exist, belongs to another account, or expired (kept 24 hours)`)
  return rows
}

export async function batchStatus(deps: AppDeps, auth: AuthContext, id: string, paging: Paging): Promise<FirecrawlJobStatus> {
  const rows = await batchJobs(deps, auth, id)
  let creditsMc = 0
  const docs: FirecrawlDocument[] = []
  let finished = 0
  for (const row of rows) {
    const view = toBatchJobView(row, deps.config.baseUrl, null)
    creditsMc += toMc(view.credits_used)
    if (view.status === 'done' || view.status === 'failed') finished++
    if (view.status !== 'done' || !view.result) continue
    const request = JSON.parse(row.request) as { url: string; format?: 'markdown' | 'html'; include_links?: boolean; include_images?: boolean }
    const read: ReadRequest = { contents: [request.format ?? 'markdown'], links: request.include_links === true, images: request.include_images === true }
    docs.push(documentOf(view.result as PageResult, request.url, read, row.request_id))
  }
  const expires = Math.max(...rows.map((r) => r.expires_at ?? r.created_at + DAY_MS))
  const { data, next } = page(docs, paging)
  return {
    success: true,
    status: finished === rows.length ? 'completed' : 'scraping',
    total: rows.length,
    completed: finished,
    creditsUsed: toCredits(creditsMc),
    expiresAt: new Date(expires).toISOString(),
    next,
    data,
  }
}

export async function batchErrors(deps: AppDeps, auth: AuthContext, id: string) {
  const rows = await batchJobs(deps, auth, id)
  const errors = rows
    .filter((r) => r.status === 'failed' && r.error)
    .map((r) => {
      const error = JSON.parse(r.error!) as { code: string; message: string }
      return { id: r.id, url: (JSON.parse(r.request) as { url: string }).url, error: error.message, code: error.code }
    })
  return { errors, robotsBlocked: [] as string[] }
}
