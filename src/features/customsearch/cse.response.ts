import type { ImageResult, OrganicResult } from '../search/search.types.ts'
import type { CseRequest } from './cse.service.ts'

/** The response body of Google's Custom Search JSON API, as its clients parse it. */
export interface CseBody {
  kind: 'customsearch#search'
  url: { type: string; template: string }
  queries: { request: CseQuery[]; nextPage?: CseQuery[]; previousPage?: CseQuery[] }
  context: { title: string }
  searchInformation: { searchTime: number; formattedSearchTime: string; totalResults: string; formattedTotalResults: string }
  items?: CseItem[]
  /** Trawl's own diagnostics; not part of Google's shape, and ignored by its clients. */
  meta: Record<string, unknown>
}

interface CseQuery {
  title: string
  totalResults: string
  searchTerms: string
  count: number
  startIndex: number
  inputEncoding: 'utf8'
  outputEncoding: 'utf8'
  safe: 'active' | 'off'
  cx?: string
  gl?: string
  hl?: string
  searchType?: 'image'
  siteSearch?: string
  siteSearchFilter?: 'i' | 'e'
  dateRestrict?: string
}

export interface CseItem {
  kind: 'customsearch#result'
  title: string
  htmlTitle: string
  link: string
  displayLink: string
  snippet: string
  htmlSnippet: string
  formattedUrl: string
  htmlFormattedUrl: string
  mime?: string
  fileFormat?: string
  image?: { contextLink: string; height?: number; width?: number; thumbnailLink?: string }
  pagemap?: Record<string, Record<string, string>[]>
}

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
