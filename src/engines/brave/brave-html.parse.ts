/**
 * Reads Brave's server-rendered result markup. Both layouts put each web result in
 * `#results .snippet[data-type=web]`: the 2022 one with `.snippet-title`, `cite.snippet-url` and
 * `.snippet-description` ("3 weeks ago - …"), the 2026 SvelteKit one with `.title`,
 * `cite.snippet-url` and `.generic-snippet .content` (date in a `.t-secondary` span). Indented
 * links of a result (`.result-cluster`) are its sitelinks.
 */

import type { Cheerio, CheerioAPI } from 'cheerio'
import type { Element } from 'domhandler'
import type { OrganicResult, ParsedSearchPage, RelatedSearch, Sitelink } from '../engine.types.ts'
import { loadPage } from '../parse/html.ts'
import { collapse, domainOf, httpUrl, splitDate } from '../parse/text.ts'
import { quality } from './brave-json.parse.ts'

const BASE = 'https://search.brave.com/'

// Description holders, most specific first; the cluster is removed before these are tried.
const SNIPPET = [
  '.snippet-description:not(.published-time)',
  '.generic-snippet .content',
  '.video-snippet .content > div:first-child',
  '.product .description',
  '.product .text-gray',
  '.snippet-content',
]

export function parseBraveHtml(html: string): ParsedSearchPage {
  const $ = loadPage(html)
  const blocks = $('#results .snippet[data-type="web"]').toArray()
  const results: OrganicResult[] = []
  for (const el of blocks) {
    const r = readResult($, $(el), results.length + 1)
    if (r) results.push(r)
  }
  const page: ParsedSearchPage = { results, parse_quality: quality(results.length, blocks.length) }
  // No web block at all: "empty" only when the page says so, else a layout we do not know.
  if (blocks.length === 0) {
    if (isNoResults($)) page.saysNoResults = true
    else page.parse_quality = 'partial'
  }
  const related = relatedOf($)
  if (related.length) page.related_searches = related
  return page
}

function readResult($: CheerioAPI, el: Cheerio<Element>, position: number): OrganicResult | undefined {
  const sitelinks = sitelinksOf($, el)
  el.find('.result-cluster').remove()
  const anchor = el
    .find('a[href]')
    .toArray()
    .find((a) => httpUrl($(a).attr('href')) !== undefined)
  const link = httpUrl(anchor ? $(anchor).attr('href') : undefined)
  if (!link) return undefined
  const titleEl = el.find('.snippet-title, .search-snippet-title, .title').first()
  const title = collapse(titleEl.attr('title') || titleEl.text())
  if (!title) return undefined
  const r: OrganicResult = { position, title, link, domain: domainOf(link) }
  const shown = collapse(el.find('cite.snippet-url, .snippet-url').first().text())
  if (shown) r.displayed_link = shown
  const { snippet, date } = descriptionOf(el)
  if (snippet) r.snippet = snippet
  if (date) r.date = date
  if (sitelinks.length) r.sitelinks = sitelinks
  return r
}

function descriptionOf(el: Cheerio<Element>): { snippet?: string; date?: string } {
  for (const sel of SNIPPET) {
    const text = collapse(el.find(sel).first().text())
    if (!text) continue
    const split = splitDate(text)
    return { snippet: split.snippet || undefined, date: split.date ?? publishedOf(el) }
  }
  return { date: publishedOf(el) }
}

/** Video results print "Published: June 24, 2022" (2022) or "Published 3 weeks ago" (2026). */
function publishedOf(el: Cheerio<Element>): string | undefined {
  const text = collapse(el.find('.published-time, .snippet-attributes').first().text())
  const m = /Published:?\s*(.+?)(?:\s+Views:.*)?$/.exec(text)
  return m?.[1] || undefined
}

function sitelinksOf($: CheerioAPI, el: Cheerio<Element>): Sitelink[] {
  const out: Sitelink[] = []
  el.find('.result-cluster .snippet').each((_, s) => {
    const a = $(s).find('a[href]').first()
    const link = httpUrl(a.attr('href'))
    const title = collapse($(s).find('.snippet-title').first().text() || a.text())
    if (link && title && !out.some((x) => x.link === link)) out.push({ title, link })
  })
  return out
}

function relatedOf($: CheerioAPI): RelatedSearch[] {
  const out: RelatedSearch[] = []
  $('a.related-query, a[href*="source=relatedQueries"]').each((_, a) => {
    const href = httpUrl($(a).attr('href'), BASE)
    const q = href ? new URL(href).searchParams.get('q') : null
    const text = collapse(q ?? $(a).text())
    if (text && !out.some((r) => r.query === text)) out.push({ query: text })
  })
  return out
}

function isNoResults($: CheerioAPI): boolean {
  return /no results found|not many great matches|no results for/i.test($('body').text())
}
