/**
 * Parses a Mojeek web result page: `ul.results-standard > li`, each with the target in `a.ob`
 * (and again on `h2 a.title`), the shown URL in `span.url` and the snippet in `p.s`. The count
 * line reads "Results 1 to 10 from 5,280,016 in 0.37s".
 */
import type * as cheerio from 'cheerio'
import type { Element } from 'domhandler'
import type { OrganicResult, ParsedSearchPage } from '../engine.types.ts'
import { loadPage } from '../parse/html.ts'
import { readEach } from '../parse/quality.ts'
import { domainOf, httpUrl, normText } from '../parse/text.ts'

// The marks Mojeek's text is cleaned of: zero-width characters, LRM / RLM and the BOM (a narrower
// set than normText's default, which also drops bidi embeddings and the word joiner).
const MOJEEK_MARKS = /[\u200b-\u200f\ufeff]/g

export function parseMojeekSearch(html: string): ParsedSearchPage {
  const $ = loadPage(html)
  const page: ParsedSearchPage = readEach($('ul.results-standard > li').toArray(), (li, position) => readResult($, li, position))
  const total = totalOf(normText($('.results-count-container, .top-info').first().text(), MOJEEK_MARKS))
  if (total !== undefined) page.total_results = total
  return page
}

function readResult($: cheerio.CheerioAPI, li: Element, position: number): OrganicResult | undefined {
  const $li = $(li)
  const heading = $li.find('h2 a').first()
  const title = normText(heading.text(), MOJEEK_MARKS)
  const link = httpUrl($li.children('a.ob').attr('href')?.trim()) ?? httpUrl(heading.attr('href')?.trim())
  if (!title || !link) return undefined
  const result: OrganicResult = { position, title, link, domain: domainOf(link) }
  const shown = normText($li.find('span.url').first().text(), MOJEEK_MARKS)
  if (shown) result.displayed_link = shown
  const snippet = normText($li.find('p.s').first().text(), MOJEEK_MARKS)
  if (snippet) result.snippet = snippet
  return result
}

function totalOf(text: string): number | undefined {
  const m = text.match(/\bfrom\s+(\d[\d.,\u00a0\u202f ]*)/i)
  const digits = m?.[1]?.replace(/\D/g, '')
  return digits ? Number(digits) : undefined
}
