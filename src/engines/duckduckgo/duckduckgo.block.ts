/**
 * DuckDuckGo block detection. DuckDuckGo does not redirect a suspected bot: it answers the search
 * itself (often with HTTP 202) with its "anomaly" page, a duck-picking challenge in
 * `form#challenge-form` posting to `//duckduckgo.com/anomaly.js?…&cc=botnet`. Only markup is
 * matched (never page text), so a result about bots is never taken for a block.
 */
import type { BlockCheckInput } from '../upstream/upstream.types.ts'

const ANOMALY_MARKUP = [/<form[^>]+id=["']challenge-form["']/i, /<form[^>]+action=["'][^"']*\/anomaly\.js\?/i, /class=["'][^"']*\banomaly-modal__/i]

const CLOUDFLARE_MARKUP = [/<title>\s*Just a moment\.\.\.\s*<\/title>/i, /\/cdn-cgi\/challenge-platform\//i, /__cf_chl_(?:jschl|captcha)_tk__=/i]

export function detectDuckDuckGoBlock(r: BlockCheckInput): { reason: string } | null {
  if (r.status === 429) return { reason: 'HTTP 429 from DuckDuckGo' }
  if (/^https?:\/\/[^/]*duckduckgo\.com\/(?:anomaly|t\/tqadb)/i.test(r.url)) return { reason: 'redirected to the DuckDuckGo anomaly page' }
  const head = r.body.slice(0, 200_000)
  if (ANOMALY_MARKUP.some((re) => re.test(head))) return { reason: 'DuckDuckGo challenge page (anomaly)' }
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
