/**
 * Builds the Brave Search web page request (search.brave.com/search). Brave pages by page index
 * (`offset`=0,1,2…) with 20 results a page and has no count parameter; region, interface
 * language and safe search are the cookies its own settings page sets. It serves 10 pages at
 * most: an `offset` above 9 returns nothing and gets the client flagged as a bot (SearXNG's
 * searx/engines/brave.py, `max_page`), so it is never sent.
 */

import { acceptLanguage } from '../accept-language.ts'
import type { SearchRequest } from '../engine.types.ts'

export interface BraveRequest {
  url: string
  headers: Record<string, string>
  /** Results of the fetched page before the requested offset, to be dropped. */
  skip: number
}

export const BRAVE_ENDPOINT = 'https://search.brave.com/search'
/** Web results on one Brave page. */
export const BRAVE_PAGE_SIZE = 20
/** The last page index Brave serves: results 1-200 are all it shows for a query. */
export const BRAVE_MAX_OFFSET = 9

export const BRAVE_UA = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/138.0.0.0 Safari/537.36'

// Brave's time filter has no hour: the past day is the narrowest window it offers.
export const BRAVE_FRESHNESS: Record<NonNullable<SearchRequest['time']>, string> = {
  hour: 'pd',
  day: 'pd',
  week: 'pw',
  month: 'pm',
  year: 'py',
}

/** Offset of the first wanted result in the whole list. */
export function startOf(req: { offset?: number; page: number; num: number }): number {
  return Math.max(0, req.offset ?? (req.page - 1) * req.num)
}

/**
 * The page request holding the first wanted result, or undefined when that result lies past the
 * tenth page (result 200), which Brave never serves: asking would only mark the client as a bot.
 */
export function buildBraveRequest(req: SearchRequest): BraveRequest | undefined {
  const start = startOf(req)
  const pageIndex = Math.floor(start / BRAVE_PAGE_SIZE)
  if (pageIndex > BRAVE_MAX_OFFSET) return undefined
  const params: [string, string][] = [
    ['q', req.q],
    ['source', 'web'],
  ]
  if (pageIndex > 0) params.push(['offset', String(pageIndex)])
  if (req.time) params.push(['tf', BRAVE_FRESHNESS[req.time]])
  if (req.autocorrect === false) params.push(['spellcheck', '0'])
  const query = params.map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('&')
  return { url: `${BRAVE_ENDPOINT}?${query}`, headers: braveHeaders(req), skip: start % BRAVE_PAGE_SIZE }
}

/** Browser headers plus the settings cookies (country, interface language, safe search). */
export function braveHeaders(req: Pick<SearchRequest, 'country' | 'language' | 'safe'>): Record<string, string> {
  const cookies = [
    `country=${req.country.toLowerCase()}`,
    `ui_lang=${uiLang(req.language, req.country)}`,
    `safesearch=${req.safe === 'active' ? 'strict' : 'off'}`,
    // No IP geolocation and no AI summary: plain, reproducible result pages.
    'useLocation=0',
    'summarizer=0',
  ]
  return {
    'User-Agent': BRAVE_UA,
    Accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8',
    'Accept-Language': acceptLanguage(req.language),
    'Sec-Fetch-Dest': 'document',
    'Sec-Fetch-Mode': 'navigate',
    'Sec-Fetch-Site': 'none',
    'Upgrade-Insecure-Requests': '1',
    Cookie: cookies.join('; '),
  }
}

/** Brave's `ui_lang` cookie: "en-us", "pt-br" (the language's own region wins over the country). */
export function uiLang(language: string, country: string): string {
  const [base = 'en', region] = language.toLowerCase().split('-')
  return `${base}-${region ?? country.toLowerCase()}`
}
