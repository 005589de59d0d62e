/**
 * Parses a Google Scholar result page. Each result is a `div.gs_or` (or any `div[data-rp]`) with
 * the title in `h3.gs_rt`, the authors / venue / year line in `.gs_a`, the snippet in `.gs_rs`,
 * action links in `.gs_fl` and the side full-text link in `.gs_ggs`.
 */

import type { Cheerio, CheerioAPI } from 'cheerio'
import type { AnyNode, Element } from 'domhandler'
import type { ScholarResult, VerticalPage, VerticalRequest } from '../../engine.types.ts'
import { loadCheerio } from '../../parse/cheerio-load.ts'
import { qualityOf } from '../../parse/quality.ts'
import { domainOf, normText } from '../../parse/text.ts'
import { detectGoogleBlockInHtml } from '../google-block.detect.ts'
import { compact, parseCount, textOf } from '../google-dom.util.ts'
import { scholarBlockReason } from './google-scholar.block.ts'

// Type labels Scholar puts in front of titles ("[PDF]", "[BOOK]", "[CITATION]") and side links.
const TYPE_LABELS = '.gs_ctc, .gs_ctu, .gs_ctg2, .gs_ct1, .gs_ct2'

/**
 * One Scholar result page. `req` (page, num) offsets positions so page 2 of num=10 starts at 11.
 * A CAPTCHA or "unusual traffic" page yields no results and quality 'empty'.
 */
export function parseGoogleScholar(html: string, req?: Pick<VerticalRequest, 'page' | 'num'>): VerticalPage<ScholarResult> {
  if (!html || scholarBlockReason(200, html) || detectGoogleBlockInHtml(html)) return { results: [], parse_quality: 'empty' }
  const $ = loadCheerio(html)
  const offset = ((req?.page ?? 1) - 1) * (req?.num ?? 10)

  const results: ScholarResult[] = []
  let failed = 0
  for (const block of resultBlocks($)) {
    const item = resultOf($, block)
    if (!item) {
      failed++
      continue
    }
    results.push({ position: offset + results.length + 1, ...item })
  }

  const page: VerticalPage<ScholarResult> = { results, parse_quality: qualityOf(results.length, failed) }
  const total = totalResultsOf($)
  if (total !== undefined && results.length) page.total_results = total
  return page
}

/** Result containers in page order; user-profile and notice blocks (plain `.gs_r`) are not results. */
function resultBlocks($: CheerioAPI): Element[] {
  const blocks = $('div.gs_or, div[data-rp]').toArray() as Element[]
  // A container nested in another one is the same result.
  return blocks.filter((el) => !blocks.some((other) => other !== el && $(other).find(el).length > 0))
}

function resultOf($: CheerioAPI, block: Element): Omit<ScholarResult, 'position'> | null {
  const el = $(block)
  const heading = el.find('h3.gs_rt').first().length ? el.find('h3.gs_rt').first() : el.find('h3').first()
  if (!heading.length) return null

  const anchor = heading
    .find('a[href]')
    .filter((_, a) => !/^\s*javascript:/i.test($(a).attr('href') ?? ''))
    .first()
  const typeLabel = normText(heading.find('.gs_ct1').first().text() || heading.find(TYPE_LABELS).first().text())
  const title = titleOf(heading, anchor)
  if (!title) return null

  const link = anchor.length ? resolveScholarLink(anchor.attr('href')) : undefined
  const publication_info = textOf(el.find('.gs_a')[0])
  return compact({
    title,
    link,
    domain: link ? domainOf(link) : undefined,
    publication_info,
    snippet: textOf(el.find('.gs_rs')[0]),
    year: yearOf(publication_info),
    cited_by: citedByOf($, el),
    pdf_url: pdfUrlOf($, el, typeLabel, link),
    id: idOf(el, anchor, heading),
  })
}

/** The linked title, or for unlinked entries ([CITATION]) the heading text without its type label. */
function titleOf(heading: Cheerio<Element>, anchor: Cheerio<Element>): string {
  if (anchor.length) return stripTypeLabel(textOf(anchor[0]))
  const skip = new Set<AnyNode>(heading.find(TYPE_LABELS).toArray())
  return stripTypeLabel(textOf(heading[0], { skip }))
}

const stripTypeLabel = (s: string) => s.replace(/^(?:\[[A-Z]{2,10}\]\s*)+/, '').trim()

/** Absolute target of a Scholar link; `/scholar_url?url=` redirects are unwrapped. */
export function resolveScholarLink(href: string | undefined): string | undefined {
  if (!href?.trim()) return undefined
  let u: URL
  try {
    u = new URL(href.trim(), 'https://scholar.google.com')
  } catch {
    return undefined
  }
  if (/(^|\.)google\.[a-z.]+$/i.test(u.hostname) && /^\/(scholar_url|url)$/.test(u.pathname)) {
    const target = u.searchParams.get('url') ?? u.searchParams.get('q')
    return target ? resolveScholarLink(target) : undefined
  }
  return u.protocol === 'http:' || u.protocol === 'https:' ? u.toString() : undefined
}

/**
 * The year in the `.gs_a` line "Authors - Venue, 2019 - host". The last segment is the host (it
 * may hold digits), so the year is looked for in the segments between the authors and the host.
 */
export function yearOf(info: string): number | undefined {
  if (!info) return undefined
  const parts = info.split(/\s+-\s+/)
  const scope = parts.length >= 3 ? parts.slice(1, -1).join(' - ') : parts.length === 2 ? (parts[1] ?? '') : info
  const years = scope.match(/(?<!\d)(?:1[5-9]|20)\d{2}(?!\d)/g)
  const last = years?.[years.length - 1]
  return last ? Number(last) : undefined
}

/** "Cited by 1,204" is the `.gs_fl` link into `/scholar?cites=`; its wording is localised, the href is not. */
function citedByOf($: CheerioAPI, el: Cheerio<Element>): number | undefined {
  const a = el
    .find('.gs_fl a[href]')
    .filter((_, x) => /[?&]cites=/.test($(x).attr('href') ?? ''))
    .first()
  return a.length ? parseCount(a.text()) : undefined
}

/** The side full-text link when it is a PDF; else the title link when Scholar labels it [PDF]. */
function pdfUrlOf($: CheerioAPI, el: Cheerio<Element>, typeLabel: string, link: string | undefined): string | undefined {
  for (const a of el.find('.gs_ggs a[href], .gs_or_ggsm a[href]').toArray()) {
    const href = resolveScholarLink($(a).attr('href'))
    if (!href) continue
    const label = normText($(a).find('.gs_ctg2').text())
    if (/pdf/i.test(label) || /\.pdf(?:$|[?#])/i.test(href)) return href
  }
  return /pdf/i.test(typeLabel) ? link : undefined
}

/** Scholar's short result id (the cluster's `data-cid`), also carried as the title anchor's id. */
function idOf(el: Cheerio<Element>, anchor: Cheerio<Element>, heading: Cheerio<Element>): string | undefined {
  return el.attr('data-cid') || el.attr('data-did') || el.attr('data-aid') || anchor.attr('id') || heading.find('span[id]').first().attr('id') || undefined
}

/** "About 187,000 results (0.07 sec)" or "Page 2 of about 187,000 results": the last count before the time. */
function totalResultsOf($: CheerioAPI): number | undefined {
  const text = normText($('#gs_ab_md').first().text()).split('(')[0] ?? ''
  const runs = text.match(/\d[\d.,\s\u00a0\u202f]*\d|\d/g)
  return runs?.length ? parseCount(runs[runs.length - 1]!) : undefined
}
