/**
 * DuckDuckGo block detection. DuckDuckGo does not redirect a suspected bot: it answers the search
 * itself with its "anomaly" page, a duck-picking challenge in `form#challenge-form` posting to
 * `//duckduckgo.com/anomaly.js?…&cc=botnet`, or (since 2026) with HTTP 202 and an anomaly page
 * whose modal (`.anomaly-modal__modal`) holds no results, or no page at all. A client that reads
 * a 202 as a 2xx answer sees "no results" (searxng/searxng#6596, nickclyde/duckduckgo-mcp-server#46),
 * so every 202 is a block: DuckDuckGo answers a search it serves with 200, its own "No results"
 * page included. Otherwise only markup is matched (never page text), so a result about bots is
 * never taken for a block.
 */
import type { BlockCheckInput } from '../upstream/upstream.types.ts'

const ANOMALY_MARKUP = [/<form[^>]+id=["']challenge-form["']/i, /<form[^>]+action=["'][^"']*\/anomaly\.js\?/i, /class=["'][^"']*\banomaly-modal__/i]

const CLOUDFLARE_MARKUP = [/<title>\s*Just a moment\.\.\.\s*<\/title>/i, /\/cdn-cgi\/challenge-platform\//i, /__cf_chl_(?:jschl|captcha)_tk__=/i]

/** The reason of a 202: DuckDuckGo's silent block, with or without its anomaly page. */
export const ANOMALY_202 = 'DuckDuckGo answered 202: anomaly page (bot check)'
export const SILENT_202 = 'DuckDuckGo answered 202 without results (a silent block)'

export function detectDuckDuckGoBlock(r: BlockCheckInput): { reason: string } | null {
  if (r.status === 429) return { reason: 'HTTP 429 from DuckDuckGo' }
  if (/^https?:\/\/[^/]*duckduckgo\.com\/(?:anomaly|t\/tqadb)/i.test(r.url)) return { reason: 'redirected to the DuckDuckGo anomaly page' }
  const head = r.body.slice(0, 200_000)
  const anomaly = ANOMALY_MARKUP.some((re) => re.test(head))
  if (r.status === 202) return { reason: anomaly ? ANOMALY_202 : SILENT_202 }
  if (anomaly) return { reason: 'DuckDuckGo challenge page (anomaly)' }
  if (CLOUDFLARE_MARKUP.some((re) => re.test(head))) return { reason: 'Cloudflare challenge' }
  // A 403 is how DuckDuckGo refuses a page it will not serve this client (e.g. a later page without vqd).
  if (r.status === 403) return { reason: 'HTTP 403 from DuckDuckGo' }
  return null
}

/**
 * d.js (the djs route's results script) refuses in its own way, with status 200: a script calling
 * `DDG.deep.anomalyDetectionBlock({…})`, or a JavaScript challenge to solve (`let jsa = …` and a
 * `DDG.deep.initialize('/d.js?…')` to call with its answer, SearXNG PR #6658) in place of the
 * results call `DDG.pageLayout.load('d',[…])`. Both are blocks; the anomaly page and HTTP refusals
 * are read as on the other pages.
 */
export function detectDuckDuckGoDjsBlock(r: BlockCheckInput): { reason: string } | null {
  const page = detectDuckDuckGoBlock(r)
  if (page) return page
  const head = r.body.slice(0, 200_000)
  if (/DDG\.deep\.anomalyDetectionBlock\s*\(/.test(head)) return { reason: 'DuckDuckGo d.js anomaly block' }
  if (/DDG\.deep\.initialize\s*\(/.test(head) && !/DDG\.pageLayout\.load\(\s*['"]d['"]/.test(head)) return { reason: 'DuckDuckGo d.js JavaScript challenge' }
  return null
}

/** Autocomplete answers JSON; an HTML body in its place is a block or an error page. */
export function detectDuckDuckGoAutocompleteBlock(r: BlockCheckInput): { reason: string } | null {
  const page = detectDuckDuckGoBlock(r)
  if (page) return page
  const start = r.body.trimStart()[0]
  if (r.status >= 200 && r.status < 300 && start !== '[' && start !== '{') return { reason: 'DuckDuckGo autocomplete answered with a page instead of JSON' }
  return null
}
