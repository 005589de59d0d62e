import { toMc } from '../../../billing/money.ts'
import type { AppDeps } from '../../../deps.ts'
import { ApiError } from '../../../errors.ts'
import type { AuthContext } from '../../../http/auth.ts'
import { parseWith } from '../../../http/parse-input.ts'
import { rankHighlights } from '../../../reader/highlights.rank.ts'
import { getAccountRow } from '../../accounts/accounts.service.ts'
import type { CrawlTask as CrawlView } from '../../crawl/crawl.response.ts'
import { CrawlParams } from '../../crawl/crawl.schema.ts'
import { cancelCrawl, getCrawl, startCrawl } from '../../crawl/crawl.service.ts'
import { MapParams } from '../../map/map.schema.ts'
import { runMap } from '../../map/map.service.ts'
import { runExtract } from '../../reading/extract.service.ts'
import { ExtractParams } from '../../reading/reading.schema.ts'
import { favicon } from './tavily.money.ts'
import type { TavilyCrawlParams, TavilyExtractParams, TavilyMapParams } from './tavily.schema.ts'

/** Tavily's default chunks per page when a query (extract) or instructions (crawl) pick them. */
const DEFAULT_CHUNKS = 3
/** Tavily's defaults for /map and /crawl. */
const DEFAULT_MAP_LIMIT = 50
const DEFAULT_CRAWL_LIMIT = 50
const DEFAULT_CRAWL_DEPTH = 1
/** A crawl is waited for at most this long: the server ends any request after 120 s. */
const MAX_CRAWL_WAIT_S = 110
/** After a cancel, how long to wait for the crawl to stop and write what it read. */
const CANCEL_GRACE_MS = 10_000
const POLL_MS = 250

const chunks = (page: string, query: string, count: number) =>
  rankHighlights(page, query, count)
    .map((h) => h.text)
    .join(' [...] ')

/**
 * POST /extract: Trawl's /v1/extract, billed as it is (1 credit per page that came back, 0.5 from
 * the cache, failures free). With `query`, raw_content is the page's passages that best match it.
 */
export async function tavilyExtract(deps: AppDeps, auth: AuthContext, p: TavilyExtractParams, requestId: string) {
  const urls = typeof p.urls === 'string' ? [p.urls] : p.urls
  const params = parseWith(ExtractParams, {
    urls,
    format: p.format ?? 'markdown',
    ...(p.include_images && { include_images: true }),
    ...(p.query && { query: p.query, highlights: p.chunks_per_source ?? DEFAULT_CHUNKS }),
    timeout: extractDeadlineS(p),
  })
  const outcome = await runExtract(deps, auth, params, requestId)
  const results = outcome.body.results.map((r) => ({
    url: r.url,
    title: r.title,
    raw_content: p.query && r.highlights?.length ? r.highlights.map((h) => h.text).join(' [...] ') : (r.markdown ?? r.text ?? ''),
    images: r.images ?? [],
    ...(p.include_favicon && { favicon: favicon(r.url) }),
  }))
  const failed_results = outcome.body.failed.map((f) => ({ url: f.url, error: f.error.message }))
  return { body: { results, failed_results }, charges: outcome }
}

/**
 * Seconds the pages may take. Tavily's defaults are 10 s (basic) and 30 s (advanced), and its
 * client gives up at the `timeout` it sent (30 s without one): the answer must come a little
 * before that, or the client throws away every page read (and paid for).
 */
function extractDeadlineS(p: TavilyExtractParams): number {
  const asked = p.timeout ?? (p.extract_depth === 'advanced' ? 30 : 10)
  return Math.min(90, Math.max(1, Math.floor(asked - Math.min(2, asked * 0.1))))
}

/** select_domains / exclude_domains: regular expressions on the host name. */
function hostFilter(select: string[] | undefined, exclude: string[] | undefined) {
  const compile = (name: string, patterns: string[] = []) =>
    patterns.map((source) => {
      try {
        return new RegExp(source, 'i')
      } catch {
        throw new ApiError('invalid_request', `${name} entries must be valid regular expressions`)
      }
    })
  const keep = compile('select_domains', select)
  const drop = compile('exclude_domains', exclude)
  return (url: string) => {
    const host = new URL(url).hostname
    return (keep.length === 0 || keep.some((r) => r.test(host))) && !drop.some((r) => r.test(host))
  }
}

/**
 * POST /map: Trawl's /v1/map (sitemaps and the start page's links), billed as it is: 1 credit when
 * URLs were found. `instructions` ranks and filters the URLs by BM25 like /v1/map's `search`.
 */
export async function tavilyMap(deps: AppDeps, auth: AuthContext, p: TavilyMapParams, requestId: string) {
  const onHost = hostFilter(p.select_domains, p.exclude_domains)
  const params = parseWith(MapParams, {
    url: p.url,
    limit: p.limit ?? DEFAULT_MAP_LIMIT,
    ...(p.instructions && { search: p.instructions }),
    ...(p.select_paths && { include_paths: p.select_paths }),
    ...(p.exclude_paths && { exclude_paths: p.exclude_paths }),
    ...(p.select_domains && { include_subdomains: true }),
  })
  const outcome = await runMap(deps, auth, params, requestId)
  const results = outcome.body.results.map((r) => r.url).filter(onHost)
  return { body: { base_url: p.url, results }, charges: { usedMc: outcome.usedMc, balanceMc: outcome.balanceMc, cacheHit: false } }
}

const ENDED = new Set(['completed', 'failed', 'canceled'])

/**
 * POST /crawl: Tavily's crawl answers when it is done, so this starts Trawl's crawl (billed as
 * /v1/crawl: `limit` credits held, the unread part refunded when it ends) and waits for it.
 * At the deadline (timeout, at most 110 s) or when the client goes away it is canceled: the
 * pages read so far are charged and returned, the rest refunded.
 */
export async function tavilyCrawl(deps: AppDeps, auth: AuthContext, p: TavilyCrawlParams, requestId: string, gone: () => boolean) {
  const onHost = hostFilter(p.select_domains, p.exclude_domains)
  const params = parseWith(CrawlParams, {
    url: p.url,
    limit: p.limit ?? DEFAULT_CRAWL_LIMIT,
    max_depth: p.max_depth ?? DEFAULT_CRAWL_DEPTH,
    format: p.format ?? 'markdown',
    ...(p.select_paths && { include_paths: p.select_paths }),
    ...(p.exclude_paths && { exclude_paths: p.exclude_paths }),
    ...(p.select_domains && { include_subdomains: true }),
    ...(p.instructions && { query: p.instructions }),
  })
  const { task } = await startCrawl(deps, auth, params, requestId)
  const waitS = Math.min(MAX_CRAWL_WAIT_S, p.timeout ?? MAX_CRAWL_WAIT_S)
  let view = await waitFor(deps, auth, task.id, Date.now() + waitS * 1000, gone)
  if (!ENDED.has(view.status)) {
    await cancelCrawl(deps, auth.accountId, task.id)
    view = await waitFor(deps, auth, task.id, Date.now() + CANCEL_GRACE_MS, () => false)
  }
  const pages = ((view.result as { pages?: unknown[] } | null)?.pages ?? []) as { url: string; markdown?: string; text?: string }[]
  const count = p.chunks_per_source ?? DEFAULT_CHUNKS
  const results = pages
    .filter((page) => onHost(page.url))
    .map((page) => {
      const content = page.markdown ?? page.text ?? ''
      return {
        url: page.url,
        raw_content: p.instructions && p.chunks_per_source ? chunks(content, p.instructions, count) || content : content,
        images: [] as string[],
        ...(p.include_favicon && { favicon: favicon(page.url) }),
      }
    })
  const account = await getAccountRow(deps.store, auth.accountId)
  return {
    body: { base_url: p.url, results },
    charges: { usedMc: toMc(view.credits_used), balanceMc: account.balance_mc, cacheHit: false },
  }
}

async function waitFor(deps: AppDeps, auth: AuthContext, id: string, deadline: number, gone: () => boolean): Promise<CrawlView> {
  for (;;) {
    const view = await getCrawl(deps.store, auth.accountId, id)
    if (ENDED.has(view.status) || Date.now() >= deadline || gone()) return view
    await new Promise((resolve) => setTimeout(resolve, POLL_MS))
  }
}
