/**
 * Requests to Serper (serper.dev, Google results as JSON; operator's key in TRAWL_SERPER_API_KEY).
 * Serper documents `POST https://google.serper.dev/<endpoint>` with a JSON body
 * `{q, gl, hl, num, page, tbs, location, autocorrect}` and the key in `X-API-KEY`; it reads the
 * same fields from the query string of a GET (the form its playground's code samples and many
 * clients use: `GET https://google.serper.dev/search?q=apple+inc`). Trawl sends the GET, with the
 * key in the header, never in the URL: the upstream client sends GETs and form POSTs only.
 */
import type { SearchRequest, VerticalRequest } from '../engine.types.ts'

export const SERPER_API = 'https://google.serper.dev'

/** Serper's endpoints that Trawl reads. */
export type SerperEndpoint = 'search' | 'images' | 'news' | 'videos' | 'places' | 'shopping' | 'scholar' | 'autocomplete'

/** Google's `tbs` for a time filter (qdr: past hour, day, week, month, year). */
const QDR: Record<NonNullable<SearchRequest['time']>, string> = { hour: 'qdr:h', day: 'qdr:d', week: 'qdr:w', month: 'qdr:m', year: 'qdr:y' }

/** Serper's page size limit (its `num` goes up to 100). */
const MAX_NUM = 100

/** What a request asks of Serper, from web search or a vertical. */
export interface SerperParams {
  q: string
  country?: string
  language?: string
  location?: string
  /** Results per page; omitted for endpoints without depth (places, shopping, autocomplete). */
  num?: number
  /** Results before the window (page and num, or an exact offset). */
  start: number
  /** The page, for endpoints without a depth (they page by Serper's own page size). */
  page?: number
  time?: SearchRequest['time']
  tbs?: string
  autocorrect?: boolean
}

export function webParams(req: SearchRequest): SerperParams {
  return {
    q: req.q,
    country: req.country,
    language: req.language,
    location: req.location,
    num: req.num,
    start: Math.max(0, req.offset ?? (req.page - 1) * req.num),
    time: req.time,
    tbs: req.tbs,
    autocorrect: req.autocorrect,
  }
}

export function verticalParams(req: VerticalRequest, depth: boolean): SerperParams {
  const page = req.page ?? 1
  const common = { q: req.q ?? '', country: req.country, language: req.language, location: req.location, time: req.time, tbs: req.tbs }
  if (!depth) return { ...common, start: 0, page }
  const num = req.num ?? 10
  return { ...common, num, start: (page - 1) * num }
}

export interface SerperRequest {
  url: string
  headers: Record<string, string>
  /** Results of the fetched page before the window, to be dropped. */
  skip: number
  /** Results wanted (num), or undefined to keep what came. */
  take?: number
}

/**
 * The request for one window. Serper pages by `page` in units of `num`; a window that does not
 * start on a page boundary (customsearch's exact `start`) is read from page 1 with a `num` that
 * reaches its end when that fits in 100, else from the page holding its start.
 */
export function buildSerperRequest(endpoint: SerperEndpoint, p: SerperParams, apiKey: string): SerperRequest {
  const params: [string, string][] = [['q', p.q]]
  if (p.country) params.push(['gl', p.country.toLowerCase()])
  if (p.language) params.push(['hl', p.language.toLowerCase()])
  if (p.location) params.push(['location', p.location])
  let skip = 0
  let take: number | undefined
  if (p.num !== undefined) {
    let num = p.num
    let page = Math.floor(p.start / num) + 1
    skip = p.start % num
    if (skip > 0 && p.start + num <= MAX_NUM) {
      num = p.start + p.num
      page = 1
      skip = p.start
    }
    take = p.num
    params.push(['num', String(num)])
    if (page > 1) params.push(['page', String(page)])
  } else if (p.page !== undefined && p.page > 1) {
    params.push(['page', String(p.page)])
  }
  const tbs = p.tbs ?? (p.time ? QDR[p.time] : undefined)
  if (tbs) params.push(['tbs', tbs])
  if (p.autocorrect === false) params.push(['autocorrect', 'false'])
  const query = params.map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('&')
  return {
    url: `${SERPER_API}/${endpoint}?${query}`,
    headers: { 'User-Agent': 'Trawl/0.1 (self-hosted search API; Serper client)', Accept: 'application/json', 'X-API-KEY': apiKey },
    skip,
    ...(take !== undefined ? { take } : {}),
  }
}
