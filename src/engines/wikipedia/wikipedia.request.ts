/**
 * Builds Wikipedia search requests on the MediaWiki Action API of the language's wiki
 * (`https://<lang>.wikipedia.org/w/api.php`). One query asks two modules with the same search:
 * `list=search` (rank, match snippet, last edit time, total hits) and `generator=search` feeding
 * `prop=extracts|info|description` (the article's plain-text lead as the snippet, its URL and
 * short description). The API has a count (`srlimit`) and an offset (`sroffset`), so any
 * page is one request.
 */
import type { SearchRequest, VerticalRequest } from '../engine.types.ts'

/** Wikimedia's User-Agent policy asks API clients to name themselves and a contact. */
export const WIKIMEDIA_USER_AGENT = 'Trawl/0.1 (self-hosted search API; https://github.com/trawl)'

// ISO / BCP 47 codes whose Wikipedia has another subdomain.
const WIKI_ALIASES: Record<string, string> = { nb: 'no', iw: 'he', in: 'id', ji: 'yi', jw: 'jv', fil: 'tl', yue: 'zh-yue' }

/**
 * The wiki subdomain for a request language: its base language (pt-BR → pt, zh-TW → zh, as the
 * Chinese wiki serves all variants), with the few renamed wikis mapped; 'en' for anything that
 * is not a language code.
 */
export function wikiLanguage(language: string | undefined): string {
  const base = (language ?? 'en').trim().toLowerCase().split(/[-_]/)[0] ?? ''
  return WIKI_ALIASES[base] ?? (/^[a-z]{2,3}$/.test(base) ? base : 'en')
}

export const wikiHost = (lang: string) => `${lang}.wikipedia.org`

export function wikipediaHeaders(language: string | undefined): Record<string, string> {
  return {
    'User-Agent': WIKIMEDIA_USER_AGENT,
    Accept: 'application/json',
    'Accept-Language': language ?? 'en',
  }
}

const query = (params: [string, string][]) => params.map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('&')

/** The search request for `req`: `num` results from offset `(page-1)*num` (or `offset`). */
export function buildWikipediaRequest(req: SearchRequest): { url: string; headers: Record<string, string>; lang: string } {
  const lang = wikiLanguage(req.language)
  const offset = Math.max(0, req.offset ?? (req.page - 1) * req.num)
  const limit = String(req.num)
  const params: [string, string][] = [
    ['action', 'query'],
    ['format', 'json'],
    ['formatversion', '2'],
    ['list', 'search'],
    ['srsearch', req.q],
    ['srlimit', limit],
    ['sroffset', String(offset)],
    ['srprop', 'snippet|timestamp'],
    ['generator', 'search'],
    ['gsrsearch', req.q],
    ['gsrlimit', limit],
    ['gsroffset', String(offset)],
    ['prop', 'extracts|info|description'],
    // Plain-text lead, cut to a few sentences; TextExtracts gives at most 20 per request.
    ['exintro', '1'],
    ['explaintext', '1'],
    ['exsentences', '3'],
    ['exlimit', 'max'],
    ['inprop', 'url'],
  ]
  return { url: `https://${wikiHost(lang)}/w/api.php?${query(params)}`, headers: wikipediaHeaders(req.language), lang }
}

/** Title suggestions from `action=opensearch` (articles only). */
export function buildWikipediaAutocompleteRequest(req: VerticalRequest): { url: string; headers: Record<string, string> } {
  const lang = wikiLanguage(req.language)
  const params: [string, string][] = [
    ['action', 'opensearch'],
    ['format', 'json'],
    ['formatversion', '2'],
    ['search', req.q ?? ''],
    ['namespace', '0'],
    ['limit', '10'],
  ]
  return { url: `https://${wikiHost(lang)}/w/api.php?${query(params)}`, headers: wikipediaHeaders(req.language) }
}
