/**
 * Requests to the operator's own SearXNG instance (TRAWL_SEARXNG_URL), on its documented search
 * API (docs.searxng.org "Search API", `searx/webadapter.py`):
 *
 *   GET <base>/search?q=…&format=json&categories=general|news|images|videos&pageno=N
 *       &language=<ll-CC>&safesearch=0|2[&time_range=day|week|month|year]
 *
 * SearXNG has no count: a page holds whatever its engines returned (about 10 to 30 merged
 * results). A Trawl page of `num` results is read from `ceil(num / 20)` consecutive SearXNG pages
 * (1 for num 10 and 20, 5 for 100), fetched together, so Trawl page p starts at SearXNG page
 * (p - 1) · that + 1: pages never overlap, and what a SearXNG page holds beyond `num` is dropped.
 */
import type { SearchRequest, VerticalRequest } from '../engine.types.ts'

export type SearxngCategory = 'general' | 'news' | 'images' | 'videos'

/** Results one SearXNG page is counted on for the page window (its pages hold about 10 to 30). */
export const SEARXNG_PAGE_GUESS = 20

/** The instance: its base URL without credentials, and the Basic credentials its URL carried. */
export interface SearxngInstance {
  base: string
  /** `Authorization: Basic …` when the URL had user:password@ (an instance behind HTTP auth). */
  authorization?: string
}

/**
 * TRAWL_SEARXNG_URL as an instance: `http://searx.local:8888`, `https://example.org/searx/`, or
 * the search URL itself (`…/search` is dropped); `user:password@` becomes Basic authentication.
 */
export function searxngInstance(url: string): SearxngInstance {
  const u = new URL(url)
  const user = decodeURIComponent(u.username)
  const password = decodeURIComponent(u.password)
  u.username = ''
  u.password = ''
  u.search = ''
  u.hash = ''
  const base = u.href.replace(/\/+$/, '').replace(/\/search$/, '')
  return user || password ? { base, authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}` } : { base }
}

/** SearXNG's time ranges; `hour` is asked as the past day (it has no hour), as for other providers. */
const TIME_RANGE: Record<NonNullable<SearchRequest['time']>, string> = { hour: 'day', day: 'day', week: 'week', month: 'month', year: 'year' }

/** The fields of a request SearXNG can use, from web search or a vertical. */
export interface SearxngParams {
  q: string
  category: SearxngCategory
  num: number
  /** Results before the wanted window (page and num, or an exact offset). */
  start: number
  country?: string
  language?: string
  time?: SearchRequest['time']
  safe?: 'off' | 'active'
}

export function webParams(req: SearchRequest): SearxngParams {
  return {
    q: req.q,
    category: 'general',
    num: req.num,
    start: Math.max(0, req.offset ?? (req.page - 1) * req.num),
    country: req.country,
    language: req.language,
    time: req.time,
    safe: req.safe,
  }
}

export function verticalParams(req: VerticalRequest, category: SearxngCategory): SearxngParams {
  const num = req.num ?? 10
  return { q: req.q ?? '', category, num, start: ((req.page ?? 1) - 1) * num, country: req.country, language: req.language, time: req.time, safe: req.safe }
}

/**
 * SearXNG's `language`: `ll-CC` from the request's language and its region, else the request's
 * country (SearXNG accepts `^[a-z]{2,3}(-[a-zA-Z]{2})?$`, `all` and `auto`); `all` for anything else.
 */
export function searxngLanguage(language: string | undefined, country: string | undefined): string {
  const [base = '', region = ''] = (language ?? 'en').split(/[-_]/)
  const lang = base.toLowerCase()
  if (!/^[a-z]{2,3}$/.test(lang)) return 'all'
  const cc = /^[a-z]{2}$/i.test(region) ? region : /^[a-z]{2}$/i.test(country ?? '') ? (country as string) : ''
  return cc ? `${lang}-${cc.toUpperCase()}` : lang
}

export interface SearxngRequest {
  urls: string[]
  headers: Record<string, string>
  /** Results of the first fetched page to drop (the window starts inside it). */
  skip: number
}

/** The SearXNG pages holding the window `start … start + num`, and the headers to send. */
export function buildSearxngRequest(instance: SearxngInstance, p: SearxngParams): SearxngRequest {
  const perPage = Math.ceil(p.num / SEARXNG_PAGE_GUESS)
  // An offset that is not a whole number of pages (customsearch's start) reads from the page holding it.
  const firstPage = Math.floor(p.start / p.num) * perPage + 1
  const urls: string[] = []
  for (let i = 0; i < perPage; i++) {
    const params: [string, string][] = [
      ['q', p.q],
      ['format', 'json'],
      ['categories', p.category],
      ['pageno', String(firstPage + i)],
      ['language', searxngLanguage(p.language, p.country)],
      ['safesearch', p.safe === 'active' ? '2' : '0'],
    ]
    if (p.time) params.push(['time_range', TIME_RANGE[p.time]])
    urls.push(`${instance.base}/search?${params.map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('&')}`)
  }
  return { urls, headers: searxngHeaders(instance, p.language), skip: p.start % p.num }
}

/**
 * A named client, as SearXNG's own botdetection (when its limiter is on) expects: an Accept that
 * includes text/html (its http_accept check) although the answer is JSON, and an Accept-Language.
 */
export function searxngHeaders(instance: SearxngInstance, language: string | undefined): Record<string, string> {
  return {
    'User-Agent': 'Trawl/0.1 (self-hosted search API; SearXNG JSON client)',
    Accept: 'application/json, text/html;q=0.9, */*;q=0.8',
    'Accept-Language': language ?? 'en',
    ...(instance.authorization ? { Authorization: instance.authorization } : {}),
  }
}
