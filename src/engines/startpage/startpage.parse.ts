/**
 * Parses a Startpage web result page. The page hydrates its React app with every result region
 * (`React.createElement(UIStartpage.AppSerpWeb, { render: { presenter: { regions } } })`); the
 * web results are the `web-google` block of `regions.mainline`. The server-rendered markup
 * (`.w-gl .result`, older pages `.w-gl__result`) is the fallback.
 */

import type { OrganicResult, ParsedSearchPage, Sitelink } from '../engine.types.ts'
import { loadCheerio } from '../parse/cheerio-load.ts'
import { readJsLiteralAfter } from '../parse/js-literal.ts'
import { arr, collapse, domainOf, httpUrl, type Json, obj, plain, splitDate, str } from '../parse/text.ts'

const NO_RESULTS = /did not match any|no results found|no web results/i
const APP_PROPS = /React\.createElement\(\s*UIStartpage\.AppSerp\w*\s*,\s*/

export function parseStartpage(html: string): ParsedSearchPage {
  const fromData = readRegions(html)
  if (fromData && (fromData.page.results.length > 0 || fromData.noResults)) return fromData.page
  const fromHtml = parseStartpageHtml(html)
  if (fromHtml.results.length === 0 && fromData?.page.parse_quality === 'partial') return fromData.page
  return fromHtml
}

/** The mainline regions of the app props: web results, and whether a "no results" notice is there. */
function readRegions(html: string): { page: ParsedSearchPage; noResults: boolean } | undefined {
  const at = html.indexOf('React.createElement(UIStartpage.AppSerp')
  if (at === -1) return undefined
  const props = obj(readJsLiteralAfter(html.slice(at), APP_PROPS))
  const regions = obj(obj(obj(props?.render)?.presenter)?.regions)
  if (!regions) return undefined
  const results: OrganicResult[] = []
  let present = 0
  let noResults = false
  for (const block of arr(regions.mainline)) {
    const b = obj(block)
    const type = str(b?.display_type) ?? ''
    if (type.includes('noresults')) noResults = true
    if (!type.startsWith('web-')) continue
    for (const item of arr(b?.results)) {
      present++
      const r = dataResult(obj(item), results.length + 1)
      if (r) results.push(r)
    }
  }
  const quality = results.length === 0 ? (present > 0 ? 'partial' : 'empty') : results.length < present ? 'partial' : 'ok'
  const page: ParsedSearchPage = { results, parse_quality: quality }
  if (noResults && results.length === 0) page.saysNoResults = true
  return { page, noResults }
}

function dataResult(item: Json | undefined, position: number): OrganicResult | undefined {
  if (!item) return undefined
  const link = httpUrl(str(item.clickUrl) ?? str(item.url))
  const title = plain(item.title)
  if (!link || !title) return undefined
  const r: OrganicResult = { position, title, link, domain: domainOf(link) }
  const shown = plain(item.displayUrl)
  if (shown) r.displayed_link = shown
  const { snippet, date } = splitDate(plain(item.description))
  if (snippet) r.snippet = snippet
  if (date) r.date = date
  const sitelinks: Sitelink[] = []
  for (const s of arr(item.siteLinks)) {
    const o = obj(s)
    const href = httpUrl(str(o?.clickUrl) ?? str(o?.url))
    const text = plain(o?.title)
    if (href && text) sitelinks.push({ title: text, link: href })
  }
  if (sitelinks.length) r.sitelinks = sitelinks
  return r
}

export function parseStartpageHtml(html: string): ParsedSearchPage {
  const $ = loadCheerio(html)
  const blocks = $('.w-gl .result, .w-gl__result').toArray()
  const results: OrganicResult[] = []
  for (const el of blocks) {
    const b = $(el)
    const a = b.find('a.result-link, a.w-gl__result-title, a.result-title').first()
    const link = httpUrl(a.attr('href'))
    const title = collapse(b.find('.wgl-title, .w-gl__result-title h3, h2, h3').first().text() || a.text())
    if (!link || !title) continue
    const r: OrganicResult = { position: results.length + 1, title, link, domain: domainOf(link) }
    const shown = collapse(b.find('.wgl-display-url .default-link-text, .w-gl__result-url').first().text())
    if (shown) r.displayed_link = shown
    const { snippet, date } = splitDate(collapse(b.find('p.description, .w-gl__description').first().text()))
    if (snippet) r.snippet = snippet
    if (date) r.date = date
    results.push(r)
  }
  let quality: ParsedSearchPage['parse_quality'] = results.length < blocks.length ? 'partial' : 'ok'
  // No result markup at all: "empty" only when the page says so, else a layout we do not know.
  if (blocks.length === 0 && NO_RESULTS.test($('body').text())) return { results, parse_quality: 'empty', saysNoResults: true }
  if (blocks.length === 0) quality = 'partial'
  return { results, parse_quality: quality }
}
