/**
 * Reads the djs route's two answers: DuckDuckGo's JS app page (the shell, `duckduckgo.com/?q=`)
 * and the results script it preloads (`links.duckduckgo.com/d.js?…`).
 *
 * The shell names its first results script in `<link id="deep_preload_link" rel="preload"
 * as="script" href="https://links.duckduckgo.com/d.js?q=…&vqd=…&dp=…">` (SearXNG
 * searx/engines/duckduckgo_web.py, PR #6192; the `dp` token is made by the server, so the URL is
 * used as given). Older shells (the 2022 captures) call `DDG.deep.initialize('/d.js?…')` instead.
 *
 * d.js is JavaScript: `DDG.pageLayout.load('d',[{…},…,{"n":"/d.js?…&s=…"}])` among other calls (with
 * `o=json` in the URL it is `{"results":[…]}`, which is read too). Each entry of the array is a
 * result; the fields read (public scrapers agree: SearXNG duckduckgo_web.py, Snazzah/duck-duck-scrape
 * `CallbackSearchResult`):
 *   t  title (may hold markup: SearXNG PR #6253)    u  the result URL (c: the same URL, a fallback)
 *   a  the snippet, HTML with <b> highlights         d  the URL as displayed ("www.rust-lang.org")
 *   e  a date (ISO), on some results                 n  only in the last entry: the next page's d.js path
 * Not results: the `n` entry, an entry without a URL, the "EOF" end marker (a Google search link,
 * as on the html page), the DEEP_ERROR_NO_RESULTS / DEEP_SIMPLE_NO_RESULTS markers, ads (links
 * through DuckDuckGo's y.js click counter) and any link to DuckDuckGo itself.
 */
import type { OrganicResult, ParsedSearchPage } from '../engine.types.ts'
import { readJsLiteral } from '../parse/js-literal.ts'
import { arr, domainOf, httpUrl, normText, obj, plain, str } from '../parse/text.ts'

/** Where d.js paths are resolved (the host the preload link and the shells' preconnect name). */
const LINKS_ORIGIN = 'https://links.duckduckgo.com/'

/** Hosts a d.js URL may be on: a URL read from a page is never fetched anywhere else. */
const DJS_HOSTS = new Set(['links.duckduckgo.com', 'duckduckgo.com'])

/** The d.js URL a shell page preloads, absolute and checked; undefined when the page names none. */
export function preloadLinkOf(shell: string): string | undefined {
  const head = shell.slice(0, 500_000)
  for (const tag of head.match(/<link\b[^>]*>/gi) ?? []) {
    if (!/\bid\s*=\s*["']?deep_preload_link\b/i.test(tag)) continue
    const href = /\bhref\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))/i.exec(tag)
    const url = djsUrl(decodeAttr(href?.[1] ?? href?.[2] ?? href?.[3] ?? ''))
    if (url) return url
  }
  const initialize = /DDG\.deep\.initialize\(\s*(['"])(\/d\.js\?[^'"]*)\1/.exec(head)
  return initialize?.[2] ? djsUrl(initialize[2]) : undefined
}

/** `u` as an https d.js URL on DuckDuckGo's hosts (a path resolved against links.duckduckgo.com), else undefined. */
export function djsUrl(u: string | undefined): string | undefined {
  const url = httpUrl(u?.trim(), LINKS_ORIGIN)
  if (!url) return undefined
  const parsed = new URL(url)
  if (parsed.protocol !== 'https:' || !DJS_HOSTS.has(parsed.hostname) || parsed.pathname !== '/d.js' || parsed.username || parsed.password || parsed.port)
    return undefined
  return parsed.href
}

/** The `s` offset of a d.js URL, or undefined. */
export function offsetOf(url: string): number | undefined {
  const s = new URL(url).searchParams.get('s')
  const n = s === null || s === '' ? Number.NaN : Number(s)
  return Number.isInteger(n) && n >= 0 ? n : undefined
}

export interface DjsPage {
  page: ParsedSearchPage
  /** The next page's d.js URL (from the last entry's `n`), when there is one. */
  next?: string
  /** The body held a results call (even an empty one). */
  understood: boolean
}

/** The results of one d.js answer. */
export function parseDjs(body: string): DjsPage {
  const entries = entriesOf(body)
  if (!entries) return { page: { results: [], parse_quality: 'partial' }, understood: false }
  const results: OrganicResult[] = []
  let next: string | undefined
  let failed = 0
  let noResults = entries.length === 0
  for (const raw of entries) {
    const e = obj(raw)
    if (!e) {
      failed++
      continue
    }
    const n = str(e.n)
    if (n !== undefined) {
      next = djsUrl(n) ?? next
      continue
    }
    const title = plain(e.t)
    if (title === 'DEEP_ERROR_NO_RESULTS' || title === 'DEEP_SIMPLE_NO_RESULTS') {
      noResults = true
      continue
    }
    const href = str(e.u) ?? str(e.c)
    if (isAdLink(href)) continue
    const link = resultUrl(href)
    if (title === 'EOF' && (!link || /^https?:\/\/(?:www\.)?google\.[a-z.]+\/search\?/i.test(link))) {
      noResults = true
      continue
    }
    if (!link || !title) {
      // An entry pointing at DuckDuckGo itself is not a result; anything else unreadable is counted.
      if (!(href && isDuckDuckGo(href))) failed++
      continue
    }
    const result: OrganicResult = { position: results.length + 1, title, link, domain: domainOf(link) }
    const displayed = normText(str(e.d))
    if (displayed) result.displayed_link = displayed
    const snippet = plain(e.a)
    if (snippet) result.snippet = snippet
    const date = isoDate(str(e.e))
    if (date) result.date = date
    results.push(result)
  }
  const parse_quality = results.length ? (failed ? 'partial' : 'ok') : noResults && !failed ? 'empty' : 'partial'
  const out: DjsPage = { page: { results, parse_quality }, understood: true }
  if (next) out.next = next
  return out
}

/** The entry array of `DDG.pageLayout.load('d', [...])`, or of `{"results": [...]}`; undefined when neither is there. */
function entriesOf(body: string): unknown[] | undefined {
  const call = /DDG\.pageLayout\.load\(\s*(['"])d\1\s*,\s*/.exec(body)
  if (call) {
    try {
      const { value } = readJsLiteral(body, call.index + call[0].length)
      return Array.isArray(value) ? value : undefined
    } catch {
      return undefined
    }
  }
  const trimmed = body.trimStart()
  if (!trimmed.startsWith('{')) return undefined
  try {
    const json = obj(JSON.parse(trimmed))
    return json && Array.isArray(json.results) ? arr(json.results) : undefined
  } catch {
    return undefined
  }
}

/** A result URL: absolute http(s), not DuckDuckGo's own. */
function resultUrl(href: string | undefined): string | undefined {
  const url = httpUrl(href?.trim())
  return url && !isDuckDuckGo(url) ? url : undefined
}

function isDuckDuckGo(href: string): boolean {
  try {
    return /(?:^|\.)duckduckgo\.com$/i.test(new URL(href, 'https://duckduckgo.com/').hostname)
  } catch {
    return false
  }
}

/** Ads go through DuckDuckGo's y.js click counter (`https://duckduckgo.com/y.js?ad_domain=…`). */
function isAdLink(href: string | undefined): boolean {
  return !!href && /^(?:https?:)?(?:\/\/(?:[a-z.]*\.)?duckduckgo\.com)?\/y\.js\?/i.test(href.trim())
}

/** "2025-06-23T00:00:00" as "2025-06-23" (with the time when it is not midnight); undefined for anything not an ISO date. */
function isoDate(text: string | undefined): string | undefined {
  const m = /^(\d{4}-\d{2}-\d{2})(?:T(\d{2}:\d{2}:\d{2}))?/.exec(text?.trim() ?? '')
  if (!m?.[1]) return undefined
  return m[2] && m[2] !== '00:00:00' ? `${m[1]}T${m[2]}` : m[1]
}

/** The entities an attribute value may carry in a URL (`&amp;` above all). */
function decodeAttr(v: string): string {
  return v
    .replace(/&(?:amp|#0*38|#x0*26);/gi, '&')
    .replace(/&(?:quot|#0*34);/gi, '"')
    .replace(/&(?:#0*39|apos);/gi, "'")
}
