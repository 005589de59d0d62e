/**
 * Parses DuckDuckGo's no-JS result pages. Two layouts are read:
 * - html (html.duckduckgo.com/html/): `#links > div.result.web-result` blocks with `a.result__a`,
 *   `a.result__url`, `a.result__snippet` and sometimes a date span; ads are `result--ad`.
 * - lite (lite.duckduckgo.com/lite/): table rows, `a.result-link` then `td.result-snippet` and
 *   `span.link-text` rows.
 * Links are plain or wrapped as `//duckduckgo.com/l/?uddg=<target>`. The end of the result list
 * is an "EOF" pseudo-result pointing at a Google search, which is not a result. The JS app's shell
 * (duckduckgo.com/?q=) has no results in it: it is read as `partial`, never as `empty`.
 */
import type * as cheerio from 'cheerio'
import type { Element } from 'domhandler'
import type { KnowledgeGraph, OrganicResult, ParsedSearchPage, ParseQuality } from '../engine.types.ts'
import { loadPage } from '../parse/html.ts'
import { confirmEmpty } from '../parse/quality.ts'
import { domainOf, httpUrl, normText } from '../parse/text.ts'

const DDG_ORIGIN = 'https://duckduckgo.com/'

export type DuckDuckGoLayout = 'html' | 'lite' | 'js-shell' | 'unknown'

export interface DuckDuckGoPage {
  page: ParsedSearchPage
  layout: DuckDuckGoLayout
  /** The fields of the "Next" form (s, dc, vqd, …), when the page has one. */
  next?: Record<string, string>
}

type CheerioDoc = cheerio.CheerioAPI

interface Read {
  results: OrganicResult[]
  failed: number
  /** The page says there are no (more) results. */
  noResults: boolean
}

/** The results of one DuckDuckGo page, whatever its layout. */
export function parseDuckDuckGoSearch(body: string): ParsedSearchPage {
  return parseDuckDuckGoPage(body).page
}

/** The page, its layout and its "Next" form. */
export function parseDuckDuckGoPage(body: string): DuckDuckGoPage {
  const $ = loadPage(body)
  const layout = layoutOf($)
  const next = nextForm($)
  if (layout === 'js-shell' || layout === 'unknown') return { layout, next, page: { results: [], parse_quality: 'partial' } }
  const read = layout === 'html' ? readHtml($) : readLite($)
  // `empty` is only ever the page's own "No results" (qualityOf).
  const page: ParsedSearchPage = confirmEmpty({ results: read.results, parse_quality: qualityOf(read) })
  const kg = layout === 'html' ? zeroClick($) : undefined
  if (kg) page.knowledge_graph = kg
  return { layout, next, page }
}

function layoutOf($: CheerioDoc): DuckDuckGoLayout {
  if ($('a.result-link').length || $('form.next_form').length || $('form[action="/lite/"]').length) return 'lite'
  if ($('body.body--html').length || $('#links .result').length || $('a.result__a').length) return 'html'
  // The JS app: an empty `#links.js-results` filled later by d.js.
  if ($('body.body--serp').length || $('#links.js-results').length) return 'js-shell'
  return 'unknown'
}

function qualityOf(read: Read): ParseQuality {
  if (read.results.length) return read.failed ? 'partial' : 'ok'
  return read.noResults && !read.failed ? 'empty' : 'partial'
}

function readHtml($: CheerioDoc): Read {
  const read: Read = { results: [], failed: 0, noResults: $('.no-results').length > 0 }
  for (const el of $('#links .result').toArray()) {
    const $block = $(el)
    if ($block.is('.result--no-result')) {
      read.noResults = true
      continue
    }
    if ($block.is('.result--ad') || $block.find('.badge--ad').length) continue
    const anchor = $block.find('a.result__a').first().length ? $block.find('a.result__a').first() : $block.find('h2 a').first()
    const result = addResult(read, anchor)
    if (!result) continue
    const displayed = normText($block.find('.result__url').first().text())
    if (displayed) result.displayed_link = displayed
    const snippet = normText($block.find('.result__snippet').first().text())
    if (snippet) result.snippet = snippet
    const date = dateOf($, $block.find('.result__extras__url').first())
    if (date) result.date = date
  }
  return read
}

function readLite($: CheerioDoc): Read {
  const read: Read = { results: [], failed: 0, noResults: $('.no-results').length > 0 }
  // The result being filled by the rows that follow its link row; null for an ad or a marker.
  let current: OrganicResult | null = null
  for (const row of $('tr').toArray()) {
    const $row = $(row)
    const anchor = $row.find('a.result-link').first()
    if (anchor.length) {
      current = $row.is('.result-sponsored') ? null : (addResult(read, anchor) ?? null)
      continue
    }
    if (!current) continue
    const snippet = normText($row.find('td.result-snippet').first().text())
    if (snippet && !current.snippet) current.snippet = snippet
    const displayed = normText($row.find('span.link-text').first().text())
    if (displayed && !current.displayed_link) current.displayed_link = displayed
    const stamp = normText($row.find('span.timestamp').first().text())
    if (stamp && !current.date) current.date = isoDate(stamp)
  }
  if (!read.results.length && /\bNo (?:more )?results\b/i.test(normText($('body').text()))) read.noResults = true
  return read
}

/**
 * The result a title link starts, added to `read`; undefined for an ad link, for a link that cannot
 * be read (counted as failed) and for the end marker (which says there are no more results).
 */
function addResult(read: Read, anchor: cheerio.Cheerio<Element>): OrganicResult | undefined {
  const title = normText(anchor.text())
  const href = anchor.attr('href')
  if (isAdHref(href)) return undefined
  const link = targetOf(href)
  if (!title || !link) {
    read.failed++
    return undefined
  }
  if (isEndMarker(title, link)) {
    read.noResults = true
    return undefined
  }
  const result: OrganicResult = { position: read.results.length + 1, title, link, domain: domainOf(link) }
  read.results.push(result)
  return result
}

/**
 * The "Next" form's fields. On later pages a "Previous" form carries a vqd as well, so the form
 * whose button says Next wins, else the one with the largest offset.
 */
function nextForm($: CheerioDoc): Record<string, string> | undefined {
  const forms = $('form')
    .toArray()
    .filter((f) => $(f).find('input[name="vqd"]').length && $(f).find('input[name="s"]').length)
    .map((f) => {
      const fields: Record<string, string> = {}
      for (const input of $(f).find('input[name]').toArray()) {
        const type = (input.attribs.type ?? '').toLowerCase()
        if (type === 'submit' || type === 'button') continue
        fields[input.attribs.name ?? ''] = input.attribs.value ?? ''
      }
      const label = $(f).find('input[type="submit"]').attr('value') ?? ''
      return { fields, isNext: /next/i.test(label), s: Number(fields.s) || 0 }
    })
  if (!forms.length) return undefined
  const chosen = forms.find((f) => f.isNext) ?? forms.reduce((a, b) => (b.s > a.s ? b : a))
  return chosen.fields
}

/** The instant answer above the html results (a Wikipedia abstract, mostly). */
function zeroClick($: CheerioDoc): KnowledgeGraph | undefined {
  const abstract = $('#zero_click_abstract').first()
  if (!abstract.length) return undefined
  const heading = $('.zci__heading').first()
  const sourceLink = abstract.find('a[href]').last()
  const sourceName = /^More at (.+)$/i.exec(normText(sourceLink.text()))?.[1]
  const $text = abstract.clone()
  $text
    .find('a')
    .filter((_, a) => /^More at /i.test(normText($(a).text())))
    .remove()
  const description = normText($text.text())
  const title = normText(heading.text())
  // DuckDuckGo's own tools (IP address, user agent, URL decoder) also answer here: not knowledge.
  if (!title || !description || /Your IP address is|Your user agent:|URL Decoded:/.test(description)) return undefined
  const kg: KnowledgeGraph = { title, description }
  const link = targetOf(sourceLink.attr('href') ?? heading.find('a').attr('href'))
  if (link) kg.source = { name: sourceName ?? domainOf(link), link }
  const image = abstract.find('img[src]').first().attr('src')
  const imageUrl = image ? httpUrl(image.trim(), DDG_ORIGIN) : undefined
  if (imageUrl) kg.image_url = imageUrl
  return kg
}

/** A date span beside the displayed URL ("  2025-06-23T00:00:00.0000000"). */
function dateOf($: CheerioDoc, extras: cheerio.Cheerio<Element>): string | undefined {
  for (const span of extras.children('span').toArray()) {
    if ($(span).is('.result__icon')) continue
    const text = normText($(span).text())
    if (text) return isoDate(text)
  }
  return undefined
}

/** "2025-06-23T00:00:00.0000000" as "2025-06-23" (with the time when it is not midnight); other text as is. */
function isoDate(text: string): string {
  const m = /^(\d{4}-\d{2}-\d{2})(?:T(\d{2}:\d{2}:\d{2}))?/.exec(text)
  if (!m?.[1]) return text
  return m[2] && m[2] !== '00:00:00' ? `${m[1]}T${m[2]}` : m[1]
}

/** Ads go through DuckDuckGo's y.js click counter. */
function isAdHref(href: string | undefined): boolean {
  return !!href && /(?:^|\/\/)(?:[a-z.]*duckduckgo\.com)?\/y\.js\?/i.test(href)
}

/** The result list's end marker: "EOF", linking to a Google search for the query. */
function isEndMarker(title: string, link: string): boolean {
  return title === 'EOF' && /^https?:\/\/(?:www\.)?google\.[a-z.]+\/search\?/i.test(link)
}

/** The target of a result href: redirect wrappers unwrapped; null for DuckDuckGo's own pages. */
export function targetOf(href: string | undefined): string | undefined {
  const url = httpUrl(href?.trim(), DDG_ORIGIN)
  if (!url) return undefined
  const u = new URL(url)
  if (/(?:^|\.)duckduckgo\.com$/i.test(u.hostname)) {
    const wrapped = u.pathname.startsWith('/l/') ? u.searchParams.get('uddg') : null
    return wrapped ? httpUrl(wrapped.trim(), DDG_ORIGIN) : undefined
  }
  return url
}
