/**
 * Parses Wikipedia search answers. The Action API answer (formatversion 2, or 1 with `pages` as an
 * object) may hold `query.search[]` (list=search: rank, HTML match snippet, timestamp, and
 * `searchinfo.totalhits`) and `query.pages[]` (a generator: `index` rank, `extract`, `fullurl`,
 * `description`, or `terms.description` from pageterms); the two are merged by page. A REST page
 * summary reads as its one article, and MediaWiki's Special:Search HTML is read by
 * wikipedia-html.parse.ts, so every Wikimedia answer shape we know is recognised.
 */

import type { OrganicResult, ParsedSearchPage } from '../engine.types.ts'
import { loadCheerio } from '../parse/cheerio-load.ts'
import { confirmEmpty, qualityOf } from '../parse/quality.ts'
import { domainOf, httpUrl } from '../parse/text.ts'
import { wikiHost } from './wikipedia.request.ts'
import { clean } from './wikipedia.util.ts'
import { parseMediaWikiSearchHtml } from './wikipedia-html.parse.ts'

interface ListItem {
  title?: string
  pageid?: number
  snippet?: string
  timestamp?: string
}

interface GeneratedPage {
  title?: string
  pageid?: number
  index?: number
  extract?: string
  fullurl?: string
  canonicalurl?: string
  description?: string
  terms?: { description?: string[] }
}

export interface WikipediaParseOptions {
  /** The wiki's language subdomain, for links the answer does not spell out. */
  lang?: string
}

/** The API error of an answer (`{error:{code,info}}`), if it is one. */
export function apiErrorOf(body: string): { code: string; info?: string } | undefined {
  const data = parseJson(body)
  const error = isObject(data) ? data.error : undefined
  if (!isObject(error) || typeof error.code !== 'string') return undefined
  return { code: error.code, info: typeof error.info === 'string' ? error.info : undefined }
}

export function parseWikipediaSearch(body: string, opts: WikipediaParseOptions = {}): ParsedSearchPage {
  const origin = `https://${wikiHost(opts.lang ?? 'en')}`
  const data = parseJson(body)
  if (data === undefined) return body.trimStart().startsWith('<') ? parseMediaWikiSearchHtml(body, origin) : { results: [], parse_quality: 'partial' }
  if (!isObject(data) || data.error) return { results: [], parse_quality: 'partial' }
  if (typeof data.extract === 'string' && isObject(data.content_urls)) return fromSummary(data)
  const query = isObject(data.query) ? data.query : undefined
  if (!query) return confirmEmpty({ results: [], parse_quality: 'batchcomplete' in data || 'warnings' in data ? 'empty' : 'partial' })
  return fromQuery(query, origin)
}

function fromQuery(query: Record<string, unknown>, origin: string): ParsedSearchPage {
  const list = (Array.isArray(query.search) ? query.search : []).filter(isObject) as ListItem[]
  const pages = (Array.isArray(query.pages) ? query.pages : isObject(query.pages) ? Object.values(query.pages) : []).filter(isObject) as GeneratedPage[]
  // `missing` / `invalid` are `true` in formatversion 2 and "" in 1: presence is what counts.
  const live = pages
    .filter((p) => !('missing' in p) && !('invalid' in p))
    .sort((a, b) => (a.index ?? Number.MAX_SAFE_INTEGER) - (b.index ?? Number.MAX_SAFE_INTEGER))
  const key = (x: { pageid?: number; title?: string }) => (x.pageid ? `#${x.pageid}` : `t:${x.title ?? ''}`)
  const pageBy = new Map<string, GeneratedPage>()
  for (const p of live) {
    pageBy.set(key(p), p)
    if (p.title) pageBy.set(`t:${p.title}`, p)
  }
  const listBy = new Map<string, ListItem>()
  for (const s of list) {
    listBy.set(key(s), s)
    if (s.title) listBy.set(`t:${s.title}`, s)
  }
  // The longer of the two lists sets the order: a list=search asked only for its suggestion
  // (srlimit=1) beside a generator must not cut the answer to one.
  const order: { list?: ListItem; page?: GeneratedPage }[] =
    list.length >= live.length
      ? list.map((s) => ({ list: s, page: pageBy.get(key(s)) ?? pageBy.get(`t:${s.title ?? ''}`) }))
      : live.map((p) => ({ page: p, list: listBy.get(key(p)) ?? listBy.get(`t:${p.title ?? ''}`) }))

  const results: OrganicResult[] = []
  let failed = 0
  for (const { list: s, page: p } of order) {
    const title = clean(p?.title ?? s?.title ?? '')
    if (!title) {
      failed++
      continue
    }
    const link = httpUrl(p?.fullurl) ?? httpUrl(p?.canonicalurl) ?? articleUrl(origin, title)
    const result: OrganicResult = { position: results.length + 1, title, link, domain: domainOf(link) }
    const snippet = clean(p?.extract ?? '') || htmlText(s?.snippet ?? '') || clean(p?.description ?? '') || clean(p?.terms?.description?.[0] ?? '')
    if (snippet) result.snippet = snippet
    if (s?.timestamp) result.date = s.timestamp
    results.push(result)
  }
  const page: ParsedSearchPage = confirmEmpty({ results, parse_quality: qualityOf(results.length, failed) })
  const info = isObject(query.searchinfo) ? query.searchinfo : undefined
  if (typeof info?.totalhits === 'number') page.total_results = info.totalhits
  return page
}

/** A REST `page/summary` answer: one article. */
function fromSummary(data: Record<string, unknown>): ParsedSearchPage {
  const titles = isObject(data.titles) ? data.titles : {}
  const desktop = isObject(data.content_urls) && isObject(data.content_urls.desktop) ? data.content_urls.desktop : {}
  const title = clean(String(titles.normalized ?? data.title ?? ''))
  const link = httpUrl(typeof desktop.page === 'string' ? desktop.page : undefined)
  if (!title || !link) return { results: [], parse_quality: 'partial' }
  const result: OrganicResult = { position: 1, title, link, domain: domainOf(link) }
  const snippet = clean(String(data.extract ?? ''))
  if (snippet) result.snippet = snippet
  if (typeof data.timestamp === 'string') result.date = data.timestamp
  return { results: [result], parse_quality: 'ok' }
}

/** `https://<host>/wiki/<Title_with_underscores>`, escaped the way MediaWiki escapes titles. */
export function articleUrl(origin: string, title: string): string {
  const path = encodeURIComponent(title.replace(/ /g, '_'))
    .replace(/%(3B|40|24|2C|2F|3A)/gi, (m) => decodeURIComponent(m))
    .replace(/'/g, '%27')
  return `${origin}/wiki/${path}`
}

/** Text of an HTML fragment (match snippets wrap hits in `<span class="searchmatch">`). */
export function htmlText(html: string): string {
  if (!html) return ''
  return clean(loadCheerio(html, null, false).root().text())
}

function parseJson(body: string): unknown {
  const t = body.trimStart()
  if (!t.startsWith('{') && !t.startsWith('[')) return undefined
  try {
    return JSON.parse(t)
  } catch {
    return undefined
  }
}

function isObject(x: unknown): x is Record<string, unknown> {
  return !!x && typeof x === 'object' && !Array.isArray(x)
}
