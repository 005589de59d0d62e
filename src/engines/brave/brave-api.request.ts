/**
 * Requests of the official Brave Search API (api.search.brave.com/res/v1, operator's key). The
 * API pages by page index too: `offset` counts pages of `count` results and stops at 9. Values
 * outside its documented lists are a 422, so unknown countries and languages are not sent.
 */
import type { SearchRequest, VerticalRequest } from '../engine.types.ts'
import { BRAVE_FRESHNESS, startOf } from './brave.request.ts'

export const BRAVE_API = 'https://api.search.brave.com/res/v1'

export type BraveApiVertical = 'web' | 'news' | 'images' | 'videos'

/** Largest `count` per endpoint, and whether it has `offset` (images has not). */
const LIMITS: Record<BraveApiVertical, { count: number; paged: boolean }> = {
  web: { count: 20, paged: true },
  news: { count: 50, paged: true },
  videos: { count: 50, paged: true },
  images: { count: 200, paged: false },
}
const MAX_OFFSET = 9

// The API's `country` list; anything else is asked as ALL.
const COUNTRIES = new Set('ar au at be br ca cl dk fi fr de hk in id it jp kr my mx nl nz no cn pl pt ph ru sa za es se ch tw tr gb us'.split(' '))
// The API's `search_lang` codes (note jp for Japanese, and regional codes for en-gb, pt, zh).
const SEARCH_LANGS = new Set(
  'ar eu bn bg ca zh-hans zh-hant hr cs da nl en en-gb et fi fr gl de gu he hi hu is it jp kn ko lv lt ms ml mr nb pl pt-br pt-pt pa ro ru sr sk sl es sv ta te th tr uk vi'.split(
    ' ',
  ),
)

export interface BraveApiRequest {
  url: string
  headers: Record<string, string>
  /** Results before the requested offset in the fetched batch, to be dropped. */
  skip: number
  /** Results wanted from the batch (images fetch several pages' worth at once). */
  take?: number
}

type ApiParams = Pick<VerticalRequest, 'q' | 'country' | 'language' | 'time' | 'safe'> & {
  num: number
  page: number
  offset?: number
  autocorrect?: boolean
}

/**
 * The API request for one page, or undefined when the page lies past what the API can reach
 * (offset 9, or the image count limit).
 */
export function buildBraveApiRequest(vertical: BraveApiVertical, req: ApiParams, apiKey: string): BraveApiRequest | undefined {
  const limit = LIMITS[vertical]
  const start = startOf(req)
  const params: [string, string][] = [['q', req.q ?? '']]
  let skip = 0
  let take: number | undefined
  if (limit.paged) {
    const count = Math.min(req.num, limit.count)
    const pageIndex = Math.floor(start / count)
    if (pageIndex > MAX_OFFSET) return undefined
    params.push(['count', String(count)])
    if (pageIndex > 0) params.push(['offset', String(pageIndex)])
    skip = start % count
  } else {
    // No offset: ask for everything up to the wanted page and keep its slice.
    if (start + req.num > limit.count) return undefined
    params.push(['count', String(start + req.num)])
    skip = start
    take = req.num
  }
  const country = (req.country ?? 'us').toLowerCase()
  params.push(['country', COUNTRIES.has(country) ? country.toUpperCase() : 'ALL'])
  const lang = searchLang(req.language ?? 'en', country)
  if (lang) params.push(['search_lang', lang])
  if (req.time && vertical !== 'images') params.push(['freshness', BRAVE_FRESHNESS[req.time]])
  params.push(['safesearch', req.safe === 'active' ? 'strict' : 'off'])
  if (req.autocorrect === false) params.push(['spellcheck', '0'])
  const query = params.map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('&')
  return {
    url: `${BRAVE_API}/${vertical}/search?${query}`,
    headers: { Accept: 'application/json', 'X-Subscription-Token': apiKey },
    skip,
    ...(take !== undefined ? { take } : {}),
  }
}

export function webParams(req: SearchRequest): ApiParams {
  return {
    q: req.q,
    country: req.country,
    language: req.language,
    time: req.time,
    safe: req.safe,
    num: req.num,
    page: req.page,
    offset: req.offset,
    autocorrect: req.autocorrect,
  }
}

export function verticalParams(req: VerticalRequest): ApiParams {
  return { q: req.q, country: req.country, language: req.language, time: req.time, safe: req.safe, num: req.num ?? 10, page: req.page ?? 1 }
}

/** The API's `search_lang` for a language tag, or undefined when it has none. */
export function searchLang(language: string, country: string): string | undefined {
  const [base = 'en', region = ''] = language.toLowerCase().split('-')
  let code: string = base
  if (base === 'ja') code = 'jp'
  else if (base === 'no' || base === 'nn') code = 'nb'
  else if (base === 'zh') code = region === 'tw' || region === 'hk' || region === 'hant' || country === 'tw' || country === 'hk' ? 'zh-hant' : 'zh-hans'
  else if (base === 'pt') code = region === 'pt' || (!region && country === 'pt') ? 'pt-pt' : 'pt-br'
  else if (base === 'en' && (region === 'gb' || (!region && country === 'gb'))) code = 'en-gb'
  return SEARCH_LANGS.has(code) ? code : undefined
}
