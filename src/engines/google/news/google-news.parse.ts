/**
 * Parses the Google News RSS search feed. Each `<item>` carries a title ending in " - Publisher",
 * a news.google.com article link, a `<source url>` naming the publisher and its site, a pubDate,
 * and a description that is Google's own HTML (the headline as a link plus the publisher, or a
 * list of related headlines), escaped inside the XML.
 */
import type * as cheerio from 'cheerio'
import type { Element } from 'domhandler'
import type { NewsResult, VerticalPage, VerticalRequest } from '../../engine.types.ts'
import { loadCheerio } from '../../parse/cheerio-load.ts'
import { confirmEmpty, qualityOf } from '../../parse/quality.ts'
import { domainOf, httpUrl, isRssFeed, normText } from '../../parse/text.ts'
import { compact } from '../google-dom.util.ts'
import { keepDomains, pageOffset } from '../google-vertical.util.ts'

/**
 * The requested page of the feed when `req` is given (domain filters, then items
 * [(page-1)*num, page*num) with positions to match); every item otherwise. A body that is not
 * RSS (an HTML block or consent page) yields no results.
 */
export function parseGoogleNews(xml: string, req?: VerticalRequest): VerticalPage<NewsResult> {
  const feed = parseNewsFeed(xml)
  // An RSS feed without items: Google News has nothing for the query.
  const feedPage = <T>(results: T[]) => confirmEmpty({ results, parse_quality: qualityOf(results.length, feed.failed) }, feed.isFeed)
  if (!req) return feedPage(feed.results)
  const kept = keepDomains(feed.results, publisherRules(req), (r) => (r.domain ? `https://${r.domain}/` : undefined))
  const offset = pageOffset(req)
  const results = kept.slice(offset, offset + (req.num ?? 10)).map((r, i) => ({ ...r, position: offset + i + 1 }))
  return feedPage(results)
}

/** Every item of the feed in feed order, positions from 1, how many items lacked a title or link, and whether the body was RSS at all. */
function parseNewsFeed(xml: string): { results: NewsResult[]; failed: number; isFeed: boolean } {
  if (!xml || !isRssFeed(xml)) return { results: [], failed: 0, isFeed: false }
  const $ = loadCheerio(xml, { xml: true })
  const results: NewsResult[] = []
  let failed = 0
  for (const item of $('channel > item').toArray()) {
    const $item = $(item)
    const child = (name: string) => $item.children(name).first()
    const rawTitle = normText(child('title').text())
    const guid = child('guid')
    const link = httpUrl(child('link').text().trim()) ?? (guid.attr('isPermaLink') === 'true' ? httpUrl(guid.text().trim()) : undefined)
    if (!rawTitle || !link) {
      failed++
      continue
    }
    const description = descriptionOf(child('description').text())
    const source = normText(child('source').text()) || description.publisher
    const sourceSite = httpUrl(child('source').attr('url')?.trim())
    const title = headlineOf(rawTitle, source, description.headline)
    results.push(
      compact({
        position: results.length + 1,
        title,
        link,
        // The link is a news.google.com redirect; the publisher's site is the useful domain.
        domain: domainOf(sourceSite ?? link),
        snippet: description.snippetBeyond(title, source, rawTitle),
        date: normText(child('pubDate').text()) || undefined,
        source,
        image_url: imageOf($, item) ?? description.image,
      }),
    )
  }
  return { results, failed, isFeed: true }
}

/**
 * Filters are checked against the publisher's site (`<source url>`), which carries no path: a
 * path rule ("example.com/blog") is checked on its host, the path having gone to Google as `site:`.
 */
function publisherRules(req: VerticalRequest): VerticalRequest {
  const host = (entry: string) => (entry.trim().startsWith('.') ? entry : entry.replace(/^[a-z][a-z0-9+.-]*:\/\//i, '').replace(/\/.*$/, ''))
  return { ...req, include_domains: req.include_domains?.map(host), exclude_domains: req.exclude_domains?.map(host) }
}

const squash = (s: string) => s.toLowerCase().replace(/\s+/g, '')

/**
 * The headline without the " - Publisher" Google appends: cut when the tail names the source
 * (spacing aside), else when the description's own headline link is the title's start.
 */
function headlineOf(rawTitle: string, source: string | undefined, linked: string | undefined): string {
  const cut = rawTitle.lastIndexOf(' - ')
  if (source && cut > 0 && squash(rawTitle.slice(cut + 3)) === squash(source)) return rawTitle.slice(0, cut).trim()
  if (linked && rawTitle.startsWith(`${linked} - `)) return linked
  return rawTitle
}

interface Description {
  /** Text of the first headline link. */
  headline?: string
  /** The publisher Google prints after the headline link. */
  publisher?: string
  image?: string
  /** The description's own text (links and publisher names left out) when it says more than the title. */
  snippetBeyond(title: string, source: string | undefined, rawTitle: string): string | undefined
}

function descriptionOf(html: string): Description {
  if (!html.trim()) return { snippetBeyond: () => undefined }
  const $ = loadCheerio(html, null, false)
  const headline = normText($('a').first().text()) || undefined
  const publisher = normText($('font').first().text()) || undefined
  const image = httpUrl($('img[src]').first().attr('src')?.trim())
  // Google's descriptions are headline links and publisher names; only other text is a snippet.
  $('a, font').remove()
  const rest = normText($.root().text())
  return {
    headline,
    publisher,
    image,
    snippetBeyond(title, source, rawTitle) {
      if (!rest) return undefined
      const same = [title, rawTitle, source ? `${title} ${source}` : title].map(squash)
      return same.includes(squash(rest)) ? undefined : rest
    },
  }
}

/** An image the item carries as Media RSS or an enclosure (Google's search feed usually has none). */
function imageOf($: cheerio.CheerioAPI, item: Element): string | undefined {
  for (const el of $(item).children().toArray()) {
    const name = el.name.toLowerCase()
    const type = el.attribs.type ?? ''
    const medium = el.attribs.medium ?? ''
    const isImage =
      name === 'media:thumbnail' ||
      (name === 'media:content' && (medium === 'image' || type.startsWith('image/') || (!medium && !type))) ||
      (name === 'enclosure' && type.startsWith('image/'))
    const url = isImage ? httpUrl(el.attribs.url?.trim()) : undefined
    if (url) return url
  }
  return undefined
}
