import { z } from 'zod'
import type { ImageResult, OrganicResult } from '../../engines/engine.types.ts'
import type { CseRequest } from './cse.service.ts'

/** The response body of Google's Custom Search JSON API, as its clients parse it: the OpenAPI document and the types. */
const CseQuery = z.object({
  title: z.string(),
  totalResults: z.string(),
  searchTerms: z.string(),
  count: z.number().int(),
  startIndex: z.number().int(),
  inputEncoding: z.literal('utf8'),
  outputEncoding: z.literal('utf8'),
  safe: z.enum(['active', 'off']),
  cx: z.string().optional(),
  gl: z.string().optional(),
  hl: z.string().optional(),
  searchType: z.literal('image').optional(),
  siteSearch: z.string().optional(),
  siteSearchFilter: z.enum(['i', 'e']).optional(),
})
type CseQuery = z.infer<typeof CseQuery>

const CseItem = z.object({
  kind: z.literal('customsearch#result'),
  title: z.string(),
  htmlTitle: z.string(),
  link: z.string(),
  displayLink: z.string(),
  snippet: z.string(),
  htmlSnippet: z.string(),
  formattedUrl: z.string(),
  htmlFormattedUrl: z.string(),
  mime: z.string().optional(),
  fileFormat: z.string().optional(),
  image: z
    .object({ contextLink: z.string(), height: z.number().int().optional(), width: z.number().int().optional(), thumbnailLink: z.string().optional() })
    .optional()
    .describe('searchType=image only'),
})
export type CseItem = z.infer<typeof CseItem>

/** Google's customsearch#search body, plus Trawl's `meta`. */
export const CseResponse = z.object({
  kind: z.literal('customsearch#search'),
  url: z.object({ type: z.string(), template: z.string() }),
  queries: z.object({ request: z.array(CseQuery), nextPage: z.array(CseQuery).optional(), previousPage: z.array(CseQuery).optional() }),
  context: z.object({ title: z.string() }),
  searchInformation: z.object({ searchTime: z.number(), formattedSearchTime: z.string(), totalResults: z.string(), formattedTotalResults: z.string() }),
  items: z.array(CseItem).optional().describe('absent when nothing was found, as in Google’s API'),
  // Trawl's own diagnostics; not part of Google's shape, and ignored by its clients.
  meta: z.record(z.string(), z.unknown()).describe('Trawl: request_id, credits_used, engine, route, latency_ms'),
})
export type CseBody = z.infer<typeof CseResponse>

const TEMPLATE_PARAMS =
  'q={searchTerms}&num={count?}&start={startIndex?}&lr={language?}&safe={safe?}&cx={cx?}&gl={gl?}&cr={cr?}&hl={hl?}&siteSearch={siteSearch?}&siteSearchFilter={siteSearchFilter?}&exactTerms={exactTerms?}&excludeTerms={excludeTerms?}&orTerms={orTerms?}&dateRestrict={dateRestrict?}&lowRange={lowRange?}&highRange={highRange?}&searchType={searchType}&fileType={fileType?}&alt=json'

export function cseSearchBody(req: CseRequest, baseUrl: string, items: CseItem[], totalResults: number, seconds: number): Omit<CseBody, 'meta'> {
  const total = String(Math.max(totalResults, req.start - 1 + items.length))
  const query = (startIndex: number, count: number): CseQuery => ({
    title: `Trawl Custom Search - ${req.q}`,
    totalResults: total,
    searchTerms: req.q,
    count,
    startIndex,
    inputEncoding: 'utf8',
    outputEncoding: 'utf8',
    safe: req.safe,
    ...(req.cx && { cx: req.cx }),
    gl: req.country,
    hl: req.language,
    ...(req.searchType && { searchType: req.searchType }),
    ...(req.site && { siteSearch: req.site.domain, siteSearchFilter: req.site.exclude ? ('e' as const) : ('i' as const) }),
  })
  const queries: CseBody['queries'] = { request: [query(req.start, req.num)] }
  // Like Google: a next page while this one was full and the first 100 are not used up.
  const nextStart = req.start + req.num
  if (items.length === req.num && nextStart + req.num - 1 <= 100) queries.nextPage = [query(nextStart, req.num)]
  if (req.start > 1) queries.previousPage = [query(Math.max(1, req.start - req.num), req.num)]
  return {
    kind: 'customsearch#search',
    url: { type: 'application/json', template: `${baseUrl}/customsearch/v1?${TEMPLATE_PARAMS}` },
    queries,
    context: { title: 'Trawl' },
    searchInformation: {
      searchTime: Number(seconds.toFixed(6)),
      formattedSearchTime: seconds.toFixed(2),
      totalResults: total,
      formattedTotalResults: Number(total).toLocaleString('en-US'),
    },
    ...(items.length > 0 && { items }),
  }
}

export function cseWebItem(r: OrganicResult, q: string): CseItem {
  const host = hostOf(r.link)
  const snippet = r.snippet ?? ''
  return {
    kind: 'customsearch#result',
    title: r.title,
    htmlTitle: highlight(r.title, q),
    link: r.link,
    displayLink: host,
    snippet,
    htmlSnippet: highlight(snippet, q),
    formattedUrl: r.link,
    htmlFormattedUrl: highlight(r.link, q),
  }
}

export function cseImageItem(r: ImageResult, q: string): CseItem {
  const format = /\.(jpe?g|png|gif|webp|svg|bmp|avif)(?:$|[?#])/i.exec(r.image_url)?.[1]?.toLowerCase()
  const mime = format ? `image/${format === 'jpg' ? 'jpeg' : format === 'svg' ? 'svg+xml' : format}` : undefined
  return {
    kind: 'customsearch#result',
    title: r.title,
    htmlTitle: highlight(r.title, q),
    link: r.image_url,
    displayLink: r.domain ?? hostOf(r.link ?? r.image_url),
    snippet: r.title,
    htmlSnippet: highlight(r.title, q),
    formattedUrl: r.link ?? r.image_url,
    htmlFormattedUrl: highlight(r.link ?? r.image_url, q),
    ...(mime && { mime, fileFormat: mime }),
    image: {
      contextLink: r.link ?? r.image_url,
      ...(r.image_height && { height: r.image_height }),
      ...(r.image_width && { width: r.image_width }),
      ...(r.thumbnail_url && { thumbnailLink: r.thumbnail_url }),
    },
  }
}

function hostOf(link: string): string {
  try {
    return new URL(link).hostname
  } catch {
    return ''
  }
}

const escapeHtml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;')

/** HTML-escaped text with the query's words in <b>, as Google's html* fields carry them. */
export function highlight(text: string, q: string): string {
  const words = [...new Set(q.toLowerCase().match(/[\p{L}\p{N}]{2,}/gu) ?? [])]
  const escaped = escapeHtml(text)
  if (words.length === 0) return escaped
  const pattern = new RegExp(`(?<![\\p{L}\\p{N}])(${words.map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')})(?![\\p{L}\\p{N}])`, 'giu')
  return escaped.replace(pattern, '<b>$1</b>')
}
