import { createHash } from 'node:crypto'
import { setImmediate } from 'node:timers/promises'
import type { FastifyBaseLogger } from 'fastify'
import { toMc } from '../billing/money.ts'
import { cacheHitPriceMc, PRICES } from '../billing/prices.ts'
import type { ResponseCache } from '../cache/response-cache.ts'
import type { Config } from '../config.ts'
import { ApiError } from '../errors.ts'
import type { Renderer } from '../net/browser/renderer.ts'
import { parseHttpUrl, type SafeFetchOptions, type SafeFetchResult, safeFetch } from '../net/safe-fetch.ts'
import type { PageLink } from '../site/page-links.ts'
import { countTokens, trimToTokens } from '../text/tokens.ts'
import { rankHighlights } from './highlights.rank.ts'
import { metaRefreshTarget } from './meta-refresh.ts'
import { inlineReader, type ReaderPool } from './reader.pool.ts'
import type { PageMetadata, PageResult, ReadFormat, ReadInput, ReadLink, ReadOptions } from './reading.types.ts'
import type { RenderMode } from './render.decide.ts'
import { judgesContent, renderIfNeeded } from './render.read.ts'

/**
 * One page, fetched safely, read, cached: the path shared by /v1/webpage, /v1/extract, search
 * `include_content` and crawls. It does no billing; callers price what comes back (`cached`).
 */

export interface PageReadDeps {
  cache: ResponseCache
  config: Pick<Config, 'allowPrivateNetwork' | 'proxyPools'>
  log: FastifyBaseLogger
  cacheTtlMs: number
  /** Absent or off: pages are only read statically. */
  renderer?: Renderer
  /** Reader threads (services); absent: pages are read on the calling thread. */
  reader?: ReaderPool
}

/** The reader's options (max_tokens and highlights are applied after the cache, so one stored read serves them all) plus how to fetch. */
export interface PageReadOptions extends ReadOptions {
  /** Two-letter code: fetched through a proxy pool named by it (throws 400 when there is none). */
  country?: string
  /** Deadline for the fetch (all redirects and the body); 0 or less fails at once as upstream_timeout. */
  timeoutMs: number
  signal?: AbortSignal
  /** Crawls: also return every link of the page (navigation included), not only the content's. */
  discoverLinks?: boolean
  /** Called when the body has arrived or the fetch failed, before the page is read: crawls free their fetch slot. */
  onFetched?: () => void
  /** Draw the page in the browser: auto (when it looks like a JavaScript shell), always, never (the default). */
  render?: RenderMode
  /** Other formats read from the same fetch, each returned in its own field (the Firecrawl shape's several formats). */
  moreFormats?: ReadFormat[]
  /** Also keep the page as fetched (the Firecrawl shape's rawHtml): PageRead.raw. */
  keepRaw?: boolean
  /**
   * A page that answers an HTTP error status (404, 500, …) is read like any page and returned with
   * its `status_code` instead of failing (the Firecrawl shape); such reads are never cached.
   */
  readErrorPages?: boolean
}

/** The page as fetched, before any reading. */
export interface RawPage {
  /** The decoded text of an HTML or text page; '' for a PDF. */
  text: string
  /** The Content-Type header it came with. */
  contentType?: string
}

export interface PageRead {
  result: PageResult
  cached: boolean
  cachedAt?: string
  /** o200k tokens of the returned content, after max_tokens: counted when asked (X-Tokens-Estimate), as crawls never ask. */
  tokens(): Promise<number>
  trimmed: boolean
  /** No readable content: the content field is ''. Never cached; callers decide (extract: empty_page). */
  empty: boolean
  /** With discoverLinks: every link of the page, for crawls to follow. */
  pageLinks?: PageLink[]
  /** With keepRaw. */
  raw?: RawPage
}

/** What the cache holds: the full, untrimmed read, so later calls can trim and rank differently. */
interface StoredPage {
  url: string
  status_code: number
  title: string | null
  published_at: string | null
  metadata: PageMetadata
  content: string
  links?: ReadLink[]
  images?: string[]
  /** HTML reads keep a Markdown rendering too: passages are ranked on text, not on markup. */
  highlight_source?: string
  /** With discoverLinks: every link of the raw page. */
  page_links?: PageLink[]
  rendered?: boolean
  /** With moreFormats: the other formats' content. */
  more?: Partial<Record<ReadFormat, string>>
  /** With keepRaw. */
  raw?: RawPage
}

const EMPTY = Buffer.alloc(0)

/** Price of one page read: 1 credit live, half from the cache (billing/prices.ts: webpage, extract, crawl). */
export const pagePriceMc = (cached: boolean) => (cached ? cacheHitPriceMc(toMc(PRICES.page)) : toMc(PRICES.page))

/** Parses a requested page URL the way safeFetch will, with the same messages; drops the fragment. */
export const parsePageUrl = (raw: string): URL => parseHttpUrl(raw.trim())

/** The normalised form used to drop duplicates and to key the cache; null when `raw` is not a readable URL. */
export function normalisePageUrl(raw: string): string | null {
  try {
    return parsePageUrl(raw).href
  } catch {
    return null
  }
}

/** Two-letter pool names are country exits (README "Configuration"). */
export function countryExits(config: Pick<Config, 'proxyPools'>): string[] {
  return [...new Set(config.proxyPools.filter((p) => /^[a-z]{2}$/.test(p.name)).map((p) => p.name))].sort()
}

/**
 * The proxy to read through for `country`. A country without an exit is refused rather than read
 * from wherever the server happens to be: the caller asked for that country's view of the page.
 */
export function proxyForCountry(config: Pick<Config, 'proxyPools'>, country: string): string {
  const urls = config.proxyPools.filter((p) => p.name === country).flatMap((p) => p.urls)
  if (urls.length === 0) {
    const exits = countryExits(config)
    throw new ApiError(
      'invalid_request',
      exits.length > 0
        ? `country ${country} has no proxy exit on this server; available countries: ${exits.join(', ')}`
        : `country is not available on this server: no country proxy exits are configured`,
    )
  }
  return urls[Math.floor(Math.random() * urls.length)]!
}

export function pageCacheKey(
  url: string,
  opts: Pick<PageReadOptions, 'format' | 'includeLinks' | 'includeImages' | 'country' | 'discoverLinks' | 'render' | 'moreFormats' | 'keepRaw'>,
): string {
  const parts = [url, opts.format, opts.includeLinks === true, opts.includeImages === true, opts.country ?? null]
  // auto may serve either kind of read; never and always must not get the other kind.
  if (opts.render !== 'auto') parts.push(`render:${opts.render ?? 'never'}`)
  if (opts.discoverLinks) parts.push('page_links')
  const more = extraFormats(opts)
  if (more.length > 0) parts.push(`formats:${more.join(',')}`)
  if (opts.keepRaw) parts.push('raw')
  // Links and images now cover the whole page: reads stored when they covered the content only are not served for them.
  if (opts.includeLinks || opts.includeImages) parts.push('assets:page')
  return `page:${createHash('sha256').update(JSON.stringify(parts)).digest('hex')}`
}

/** The moreFormats that are not the main format, once each. */
const extraFormats = (opts: Pick<PageReadOptions, 'format' | 'moreFormats'>) => [...new Set(opts.moreFormats ?? [])].filter((f) => f !== opts.format)

/** Meta-refresh redirects followed per read, on top of the HTTP redirects safeFetch follows. */
const MAX_META_REFRESHES = 3

/**
 * safeFetch, following `<meta http-equiv="refresh">` redirects too (meta-refresh.ts), each through
 * safeFetch again (so the address guard checks every hop), all within the read's deadline. A
 * refresh whose target cannot be read (a 404, a refused address, its time ran out) leaves the page
 * that asked for it as the answer: it was read, and is what a visitor saw before the refresh.
 */
async function fetchFollowingRefresh(url: string, deadline: number, opts: SafeFetchOptions): Promise<SafeFetchResult> {
  let fetched = await safeFetch(url, opts)
  for (let hop = 0; hop < MAX_META_REFRESHES; hop++) {
    const target = fetched.text !== undefined && fetched.contentType === 'html' ? metaRefreshTarget(fetched.text, fetched.url) : null
    const left = deadline - Date.now()
    if (!target || left <= 0) break
    try {
      // An error page as the refresh's target is a target that cannot be read, whatever the first page's rule.
      fetched = await safeFetch(target, { ...opts, readErrorPages: false, timeoutMs: left })
    } catch (err) {
      // The caller gave up (a canceled crawl, a closed request): that is not the target's failure.
      if (opts.signal?.aborted) throw err
      break
    }
  }
  return fetched
}

/**
 * Reads one page. Answers from the cache only when `maxAge` (seconds) is given and an entry is at
 * most that old; every successful live read is stored. Throws ApiError invalid_request (bad URL,
 * private address, unknown country), upstream_error or upstream_timeout (both with Retry-After).
 */
export async function readPage(deps: PageReadDeps, rawUrl: string, opts: PageReadOptions, maxAge?: number): Promise<PageRead> {
  const url = parsePageUrl(rawUrl).href
  const proxyUrl = opts.country ? proxyForCountry(deps.config, opts.country) : undefined
  const key = pageCacheKey(url, opts)

  if (maxAge !== undefined && maxAge > 0) {
    const hit = await deps.cache.get<StoredPage>(key).catch((err) => {
      deps.log.warn({ err }, 'page cache read failed; reading live')
      return null
    })
    if (hit && Date.now() - hit.storedAt <= maxAge * 1000) return await shapePage(hit.value, opts, hit.storedAt)
  }

  if (opts.timeoutMs <= 0) throw new ApiError('upstream_timeout', 'page was not fetched before the timeout ran out', { retryAfterSeconds: 5 })
  let stored: StoredPage
  const deadline = Date.now() + opts.timeoutMs
  try {
    const fetched = await fetchFollowingRefresh(url, deadline, {
      allowPrivateNetwork: deps.config.allowPrivateNetwork,
      timeoutMs: opts.timeoutMs,
      proxyUrl,
      signal: opts.signal,
      readErrorPages: opts.readErrorPages,
    }).finally(() => opts.onFetched?.())
    // An error page is returned as it came: no browser is started to draw a 404.
    const errorPage = fetched.status >= 400
    // A crawl's freed slot starts its next fetch in this turn's microtasks; the pages whose bodies
    // came in with this one start theirs before this page is handed to the reader (a few tenths of
    // a millisecond each), not after: on a site whose pages all take as long, they finish together.
    if (opts.onFetched) await setImmediate()
    let input: ReadInput = { url: fetched.url, contentType: fetched.contentType, body: fetched.body, text: fetched.text }
    // Parsing, extraction and Markdown run on a reader thread when there is a pool (reader.pool.ts).
    const reader = deps.reader ?? inlineReader
    const task = (input: ReadInput) => ({
      // An HTML page travels as its decoded text only; PDFs need their bytes.
      input: input.text !== undefined && input.contentType !== 'pdf' ? { ...input, body: EMPTY } : input,
      format: opts.format,
      includeLinks: opts.includeLinks,
      includeImages: opts.includeImages,
      discoverLinks: opts.discoverLinks,
      shellSignals: judgesContent(deps.renderer, opts.render, opts.country),
    })
    let read = await reader.read(task(input))
    const drawn = errorPage ? null : await renderIfNeeded(deps, fetched, read, opts.render ?? 'never', deadline, opts.signal, opts.country)
    if (drawn) {
      input = drawn
      read = await reader.read(task(input))
    }
    const { empty: nothingRead, shell: _decided, ...page } = read
    stored = { url: input.url, status_code: fetched.status, ...page, rendered: drawn !== null }
    const more = extraFormats(opts)
    if (more.length > 0) {
      stored.more = {}
      for (const format of more) stored.more[format] = (await reader.read({ ...task(input), format, discoverLinks: false, shellSignals: false })).content
    }
    if (opts.keepRaw) stored.raw = { text: fetched.contentType === 'pdf' ? '' : (fetched.text ?? ''), contentType: fetched.headers['content-type'] }
    // The page as fetched is content in its own right when it was asked for.
    const empty = nothingRead && !stored.raw?.text
    if (empty || errorPage) return await shapePage(stored, opts, null, empty)
  } catch (err) {
    throw pageError(err, deps.log)
  }
  // The read is answered without waiting for its cache write (a millisecond or two, 10+ ms for a
  // process's first): a crawl's start page holds up every other fetch until its links are known.
  void deps.cache.set(key, stored, deps.cacheTtlMs).catch((err) => deps.log.warn({ err }, 'page cache write failed'))
  return await shapePage(stored, opts, null)
}

/**
 * Applies the per-call options (highlights, max_tokens) to a stored read. max_tokens is applied on
 * the token thread (text/tokens.ts): a page can be megabytes, and text built to be slow to tokenize
 * costs microseconds a character.
 */
async function shapePage(page: StoredPage, opts: PageReadOptions, cachedAt: number | null, empty = false): Promise<PageRead> {
  const { content: full, highlight_source, links, images, page_links, more, raw, ...facts } = page
  const result: PageResult = { ...facts, cached: cachedAt != null, rendered: page.rendered ?? false }
  if (cachedAt != null) result.cached_at = new Date(cachedAt).toISOString()
  let content = full
  let trimmed = false
  let tokens: number | undefined
  if (opts.maxTokens !== undefined) ({ text: content, trimmed, tokens } = await trimToTokens(full, opts.maxTokens))
  result[opts.format] = content
  for (const [format, text] of Object.entries(more ?? {}) as [ReadFormat, string][]) {
    result[format] = opts.maxTokens === undefined ? text : (await trimToTokens(text, opts.maxTokens)).text
  }
  if (opts.includeLinks) result.links = links ?? []
  if (opts.includeImages) result.images = images ?? []
  // Ranked over the whole page, not the trimmed part: a passage past the cut is still worth pointing at.
  if (opts.query && opts.highlights && opts.highlights > 0) {
    result.highlights = empty ? [] : rankHighlights(highlight_source ?? full, opts.query, Math.min(opts.highlights, 10))
  }
  const read: PageRead = {
    result,
    cached: cachedAt != null,
    cachedAt: result.cached_at,
    async tokens() {
      tokens ??= await countTokens(content)
      return tokens
    },
    trimmed,
    empty,
  }
  if (opts.discoverLinks) read.pageLinks = page_links ?? []
  if (raw) read.raw = raw
  return read
}

/**
 * Every failure of a page read as one of the codes a page may fail with (invalid_request,
 * upstream_error, upstream_timeout). Upstream failures always carry Retry-After, since /v1/webpage
 * answers them as 503.
 */
export function pageError(err: unknown, log?: FastifyBaseLogger): ApiError {
  if (err instanceof ApiError) {
    if (err.code === 'invalid_request') return err
    if (err.code === 'upstream_error' || err.code === 'upstream_timeout') {
      return err.opts.retryAfterSeconds ? err : new ApiError(err.code, err.message, { ...err.opts, retryAfterSeconds: 5 })
    }
  }
  // A document the reader cannot handle (a broken or encrypted PDF, say) is the page's problem, not ours.
  log?.warn({ err }, 'page could not be read')
  const detail = err instanceof Error ? err.message : String(err)
  return new ApiError('upstream_error', `page could not be read: ${detail.slice(0, 200)}`, { retryAfterSeconds: 5, cause: err })
}
