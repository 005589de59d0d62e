/**
 * MediaWiki's own search pages, for when a wiki answers with HTML: Special:Search
 * (`ul.mw-search-results > li.mw-search-result`, heading link, `.searchresult` snippet,
 * `.mw-search-result-data` "size - time, date", `.results-info` total) and Commons'
 * Special:MediaSearch (`a.sdms-image-result` tiles, "11,300 results").
 */
import type * as cheerio from 'cheerio'
import type { OrganicResult, ParsedSearchPage } from '../engine.types.ts'
import { loadPage } from '../parse/html.ts'
import { domainOf, httpUrl } from '../parse/text.ts'
import { clean } from './wikipedia.util.ts'

export function parseMediaWikiSearchHtml(body: string, fallbackOrigin: string): ParsedSearchPage {
  const $ = loadPage(body)
  const origin = originOf($('link[rel="canonical"]').attr('href')) ?? fallbackOrigin
  if ($('.sdms-search-results').length) return mediaSearch($, origin)
  const items = $('ul.mw-search-results > li.mw-search-result, ul.mw-search-results > li').toArray()
  const results: OrganicResult[] = []
  let failed = 0
  for (const li of items) {
    const $li = $(li)
    const anchor = $li.find('.mw-search-result-heading a[href], a[data-serp-pos]').first()
    const title = clean(anchor.attr('title') ?? anchor.text())
    const link = httpUrl(anchor.attr('href'), origin)
    if (!title || !link) {
      failed++
      continue
    }
    const result: OrganicResult = { position: results.length + 1, title, link, domain: domainOf(link) }
    const snippet = clean($li.find('.searchresult').first().text())
    if (snippet) result.snippet = snippet
    // "4 KB (1,665 words) - 09:07, 31 July 2020": the last edit follows the dash.
    const data = clean($li.find('.mw-search-result-data').first().text())
    const date = / - ([^-]+)$/.exec(data)?.[1]?.trim()
    if (date) result.date = date
    results.push(result)
  }
  const page: ParsedSearchPage = { results, parse_quality: qualityOf($, results.length, failed) }
  const total = Number($('.results-info').attr('data-mw-num-results-total'))
  if (Number.isFinite(total) && total > 0) page.total_results = total
  return page
}

function mediaSearch($: cheerio.CheerioAPI, origin: string): ParsedSearchPage {
  const results: OrganicResult[] = []
  let failed = 0
  for (const a of $('.sdms-search-results a.sdms-image-result').toArray()) {
    const title = clean($(a).attr('title') ?? $(a).find('img').attr('alt') ?? '')
    const link = httpUrl($(a).attr('href'), origin)
    if (!title || !link) {
      failed++
      continue
    }
    results.push({ position: results.length + 1, title, link, domain: domainOf(link) })
  }
  const page: ParsedSearchPage = { results, parse_quality: qualityOf($, results.length, failed) }
  const total = Number(clean($('.sdms-search-results-count').first().text()).replace(/[^\d]/g, ''))
  if (total > 0) page.total_results = total
  return page
}

function qualityOf($: cheerio.CheerioAPI, count: number, failed: number): ParsedSearchPage['parse_quality'] {
  if (count) return failed ? 'partial' : 'ok'
  return !failed && $('.mw-search-nonefound, .sdms-no-results').length ? 'empty' : 'partial'
}

function originOf(href: string | undefined): string | undefined {
  try {
    return href ? new URL(href).origin : undefined
  } catch {
    return undefined
  }
}
