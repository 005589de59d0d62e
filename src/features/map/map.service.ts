import { billedLookup, type LookupDeps, REALTIME } from '../../billing/billed-lookup.ts'
import { toMc } from '../../billing/money.ts'
import { PRICES } from '../../billing/prices.ts'
import type { Services } from '../../deps.ts'
import { ApiError } from '../../errors.ts'
import type { AuthContext } from '../../http/auth.ts'
import { isTransportFailure, parseHttpUrl, safeFetch } from '../../net/safe-fetch.ts'
import { pathFilter } from '../../params/site.params.ts'
import { extractPageLinks } from '../../site/page-links.ts'
import { readSitemaps, sitemapStarts } from '../../site/site.discovery.ts'
import { onSite } from '../../site/urls/site.match.ts'
import { canonicalUrl, siteKey } from '../../site/urls/url.canonical.ts'
import { bm25Scores, tokenize } from '../../text/bm25.ts'
import type { MapResponse } from './map.response.ts'
import type { MapParams } from './map.schema.ts'

/** A map call takes at most about 30 seconds: the walk stops here, leaving time to answer. */
const MAP_BUDGET_MS = 25_000
const START_PAGE_TIMEOUT_MS = 15_000

/** One listed URL: an item of MapResponse's `results`. */
type MapResult = MapResponse['results'][number]

export type MapDeps = LookupDeps & Pick<Services, 'config' | 'robots'>

/**
 * POST /v1/map: the site's URLs from its sitemaps (named in robots.txt, else /sitemap.xml; indexes,
 * gzip, RSS/Atom and text) and the start page's links, cleaned, kept on the site, de-duplicated,
 * filtered, optionally ranked by `search`. 1 credit when URLs were found, free otherwise (a site that
 * answered with nothing to list: 200, empty); a site that gave no answer at all is a 503. Map lists
 * URLs and reads no page but the start page, so robots.txt rules do not filter the list.
 */
export async function runMap(deps: MapDeps, auth: AuthContext, params: MapParams, requestId: string) {
  const start = parseHttpUrl(params.url).href
  const request = normaliseMap(params)
  const { body, usedMc, balanceMc } = await billedLookup(deps, auth, REALTIME, requestId, {
    endpoint: '/v1/map',
    holdMc: toMc(PRICES.page),
    async ask(ticket) {
      const results = await listUrls(deps, start, request)
      return { request, results, meta: { request_id: ticket.requestId, credits_used: 0, latency_ms: 0, count: results.length } } satisfies MapResponse
    },
    priceMc: (body) => (body.results.length > 0 ? toMc(PRICES.page) : 0),
  })
  return { body, usedMc, balanceMc }
}

/** The site's URLs, cleaned, kept on the site, de-duplicated, filtered and ranked; a site that gave no answer at all is a 503. */
async function listUrls(deps: MapDeps, start: string, request: MapRequest): Promise<MapResult[]> {
  const deadline = Date.now() + MAP_BUDGET_MS
  const origin = new URL(start).origin
  const follow = pathFilter(request.include_paths, request.exclude_paths)
  const found = new Map<string, MapResult>()
  const add = (raw: string, source: MapResult['source'], extra: { title?: string; lastmod?: string } = {}) => {
    // The query is ignored for de-duplication only: the URL listed is the first one found, as found.
    const url = canonicalUrl(raw)
    if (!url || !onSite(url, start, request.include_subdomains) || !follow(url)) return
    const key = siteKey(url, { ignoreQuery: request.ignore_query_parameters })
    const known = found.get(key)
    if (known) {
      known.title ??= extra.title || undefined // a page link can name a sitemap URL
      return
    }
    found.set(key, { url, ...(extra.title ? { title: extra.title } : {}), ...(extra.lastmod ? { lastmod: extra.lastmod } : {}), source })
  }
  // The search ranks the whole site, so collect beyond `limit` when one is given.
  const collectUpTo = request.search ? 5000 : request.limit
  let siteAnswered = false
  if (request.sitemap !== 'skip') {
    const robots = await deps.robots.get(origin)
    const sitemaps = await readSitemaps(deps.config, origin, sitemapStarts(robots.sitemaps, origin), collectUpTo * 2, deadline)
    siteAnswered = robots.status !== 'unreachable' || sitemaps.sitemapsRead > 0
    for (const entry of sitemaps.entries) add(entry.url, 'sitemap', { lastmod: entry.lastmod })
  }
  let startPage: StartPage | undefined
  if (request.sitemap !== 'only') {
    startPage = await readStartPage(deps, start, deadline)
    siteAnswered ||= startPage.answered
    // Only a start page that was read is a URL found: echoing the caller's URL back would bill for nothing.
    if (startPage.read) add(start, 'page')
    for (const link of startPage.links) add(link.url, 'page', { title: link.text })
  }
  if (!siteAnswered) throw unreachable(startPage?.error)
  return rank([...found.values()], request.search).slice(0, request.limit)
}

type MapRequest = ReturnType<typeof normaliseMap>

/** The request echoed as `request`: defaults filled in, the filters only when sent. */
function normaliseMap(p: MapParams) {
  return {
    url: p.url,
    limit: p.limit ?? 100,
    sitemap: p.sitemap ?? 'include',
    include_subdomains: p.include_subdomains ?? false,
    ignore_query_parameters: p.ignore_query_parameters ?? false,
    ...(p.search ? { search: p.search } : {}),
    ...(p.include_paths ? { include_paths: p.include_paths } : {}),
    ...(p.exclude_paths ? { exclude_paths: p.exclude_paths } : {}),
  }
}

interface StartPage {
  /** Fetched and readable: the start URL is then one of the site's URLs. */
  read: boolean
  /** The host gave an HTTP answer, even an error status: the site is there. */
  answered: boolean
  links: ReturnType<typeof extractPageLinks>
  error?: ApiError
}

/** The start page and its links; one that cannot be read only costs its links (sitemaps may still answer). */
async function readStartPage(deps: MapDeps, start: string, deadline: number): Promise<StartPage> {
  try {
    const page = await safeFetch(start, {
      allowPrivateNetwork: deps.config.allowPrivateNetwork,
      timeoutMs: Math.min(START_PAGE_TIMEOUT_MS, deadline - Date.now()),
    })
    const links = page.text && page.contentType !== 'pdf' ? extractPageLinks(page.text, page.url) : []
    return { read: true, answered: true, links }
  } catch (err) {
    // A URL the guard refuses is the caller's mistake, not a missing page.
    if (err instanceof ApiError && err.code === 'invalid_request') throw err
    return { read: false, answered: !isTransportFailure(err), links: [], error: err instanceof ApiError ? err : undefined }
  }
}

/**
 * Neither robots.txt, a sitemap nor the start page got an answer from the host: a 503 the caller
 * may retry (as /v1/webpage answers an unreachable page), never an empty, free "nothing found",
 * which would say the site has no URLs.
 */
function unreachable(startPageError: ApiError | undefined): ApiError {
  const why = startPageError?.message ?? 'robots.txt and sitemaps did not answer'
  return new ApiError('upstream_error', `site could not be reached: ${why}`, { retryAfterSeconds: 5, cause: startPageError })
}

/** With `search`: only URLs that match, most relevant first (BM25 over path words and title). */
function rank(results: MapResult[], search: string | undefined): MapResult[] {
  if (!search) return results
  const scores = bm25Scores(
    results.map((r) => {
      const url = new URL(r.url)
      return [...tokenize(url.pathname + url.search), ...tokenize(r.title ?? '')]
    }),
    search,
  )
  return results
    .map((r, i) => ({ r, score: scores[i] ?? 0, i }))
    .filter((x) => x.score > 0)
    .sort((a, b) => b.score - a.score || a.i - b.i)
    .map((x) => x.r)
}
