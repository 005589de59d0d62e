/**
 * Parses a Bing web result page. Two layouts are read the same way: the no-JS / archived layout
 * (`li.b_algo` > `h2 a` with the target URL, `cite` inside `.b_caption`) and the current one,
 * where links are `/ck/a?…&u=a1<base64url>` redirects and the site block (`.b_tpcn`) carrying
 * the `cite` sits before the `h2`.
 */
import type * as cheerio from 'cheerio'
import type { Element } from 'domhandler'
import type { OrganicResult, ParsedSearchPage, PeopleAlsoAsk, RelatedSearch, Sitelink } from '../engine.types.ts'
import { loadPage } from '../parse/html.ts'
import { readEach } from '../parse/quality.ts'
import { domainOf } from '../parse/text.ts'
import { BING_PAGE_SIZE } from './bing.request.ts'
import { bingText, lastCount, unwrapBingLink } from './bing.util.ts'
import { bingPlaces } from './bing-local.parse.ts'

export interface BingParseOptions {
  /** Result offset that was asked for; a page past the first answered with page 1 is refused (see below). */
  offset?: number
}

type Cheerio = cheerio.CheerioAPI

export function parseBingSearch(html: string, opts: BingParseOptions = {}): ParsedSearchPage {
  const $ = loadPage(html)
  const total = totalOf($)
  const base = (page: ParsedSearchPage): ParsedSearchPage => (total !== undefined ? { ...page, total_results: total } : page)

  const { results, parse_quality } = readEach(organicItems($), (item, position) => readResult($, item, position))

  // Bing answers a page it will not serve (past the end, or quietly rate limited) with page 1.
  // Those are not the asked-for results, so the page is reported as having none.
  if ((opts.offset ?? 0) >= BING_PAGE_SIZE && results.length && showsFirstPage($)) return base({ results: [], parse_quality: 'empty' })

  const page: ParsedSearchPage = { results, parse_quality }
  // Bing's "There are no results for …" (`.b_no`) does not set saysNoResults: Bing shows it to
  // clients it quietly throttles too (saved pages for popular queries carry it), so a run of empty
  // Bing pages still counts towards drift and `auto` moves on.
  const related = relatedSearches($)
  if (related.length) page.related_searches = related
  const paa = peopleAlsoAsk($)
  if (paa.length) page.people_also_ask = paa
  const places = bingPlaces($)
  if (places.length) page.places = places
  return base(page)
}

/**
 * Organic result blocks in page order: `li.b_algo` anywhere in the result column (a carousel of
 * organic results, `.algocl`, sits directly in `#b_results`), but not ads and not the
 * `.b_algo` boxes nested inside other answers.
 */
function organicItems($: Cheerio): Element[] {
  return $('#b_results li.b_algo')
    .toArray()
    .filter((el) => !$(el).parents('.b_ad, li.b_algo, .b_adTop, .b_adBottom').length)
}

function readResult($: Cheerio, item: Element, position: number): OrganicResult | undefined {
  const $item = $(item)
  const heading = $item.find('h2').first()
  const anchor = heading.find('a[href]').first().length ? heading.find('a[href]').first() : heading.closest('a[href]')
  const title = bingText(heading.text())
  const link = unwrapBingLink(anchor.attr('href')) ?? unwrapBingLink($item.find('.b_tpcn a.tilk[href]').first().attr('href'))
  if (!title || !link) return undefined

  const result: OrganicResult = { position, title, link, domain: domainOf(link) }
  const cite = bingText($item.find('cite').first().text())
  if (cite) result.displayed_link = cite
  const { snippet, date } = snippetOf($, $item)
  if (snippet) result.snippet = snippet
  if (date) result.date = date
  const links = sitelinksOf($, $item)
  if (links.length) result.sitelinks = links
  return result
}

const SNIPPET_SELECTORS = ['.b_caption > p', '.b_caption p', '.b_snippet', 'p.b_lineclamp1, p.b_lineclamp2, p.b_lineclamp3, p.b_lineclamp4', '.b_algoSlug', 'p']

/** The description text, with a leading `.news_dt` date taken out as the date. */
function snippetOf($: Cheerio, $item: cheerio.Cheerio<Element>): { snippet?: string; date?: string } {
  for (const sel of SNIPPET_SELECTORS) {
    const el = $item
      .find(sel)
      .toArray()
      .find((p) => !$(p).closest('.b_deep, .b_vlist2col, .b_attribution, .b_tpcn, .rwrl_cred').length && bingText($(p).text()))
    if (!el) continue
    const copy = $(el).clone()
    copy.find('.algoSlug_icon, .b_hide, script, style').remove()
    const date = bingText(copy.find('.news_dt').first().text()) || undefined
    copy.find('.news_dt').remove()
    const snippet = bingText(copy.text()).replace(/^[·•\-–—]\s*/, '')
    return { snippet: snippet || undefined, date }
  }
  return {}
}

/** Deep links under a result (`.b_deep` blocks of `h3 a`). */
function sitelinksOf($: Cheerio, $item: cheerio.Cheerio<Element>): Sitelink[] {
  const out: Sitelink[] = []
  const seen = new Set<string>()
  for (const a of $item.find('.b_deep h3 a[href], .deeplink_title a[href]').toArray()) {
    const title = bingText($(a).text())
    const link = unwrapBingLink($(a).attr('href'))
    if (!title || !link || seen.has(link)) continue
    seen.add(link)
    out.push({ title, link })
  }
  return out
}

function relatedSearches($: Cheerio): RelatedSearch[] {
  const out: RelatedSearch[] = []
  const seen = new Set<string>()
  for (const a of $('.b_rs a, #brsv3 a').toArray()) {
    const query = bingText($(a).text())
    if (!query || seen.has(query.toLowerCase())) continue
    seen.add(query.toLowerCase())
    out.push({ query })
  }
  return out
}

/** "People also ask": `[data-tag=RelatedQnA.Item]` with the question in data-query and the answer in `.rwrl`. */
function peopleAlsoAsk($: Cheerio): PeopleAlsoAsk[] {
  const out: PeopleAlsoAsk[] = []
  const seen = new Set<string>()
  for (const el of $('[data-tag="RelatedQnA.Item"]').toArray()) {
    const $el = $(el)
    const question = bingText($el.attr('data-query')) || bingText($el.find('.b_expansion_text').first().text())
    if (!question || seen.has(question)) continue
    seen.add(question)
    const qa: PeopleAlsoAsk = { question }
    const snippet = bingText($el.find('.rwrl').first().text())
    if (snippet) qa.snippet = snippet
    const link = unwrapBingLink($el.find('.rwrl_cred a[href]').first().attr('href'))
    if (link) qa.link = link
    out.push(qa)
  }
  return out
}

function totalOf($: Cheerio): number | undefined {
  const text = bingText($('.sb_count').first().text())
  return text ? lastCount(text) : undefined
}

/** Whether the pager marks page 1 as current, or the counter reads "1-10 of …". */
function showsFirstPage($: Cheerio): boolean {
  const current = bingText($('.b_pag .sb_pagS').first().text())
  if (/^\d+$/.test(current)) return current === '1'
  return /^1\s*[-–]\s*\d+/.test(bingText($('.sb_count').first().text()))
}
