/**
 * Parses the Bing News RSS feed (news/search?format=rss): RSS 2.0 items whose `<link>` is a
 * `/news/apiclick.aspx?…&url=<article>` redirect, plus Bing's `News:Source` (publisher) and
 * `News:Image` (a bing.com thumbnail) elements.
 */
import type * as cheerio from 'cheerio'
import type { Element } from 'domhandler'
import type { NewsResult, VerticalPage } from '../../engine.types.ts'
import { loadCheerio } from '../../parse/cheerio-load.ts'
import { readEach } from '../../parse/quality.ts'
import { domainOf, httpUrl, isRssFeed } from '../../parse/text.ts'
import { bingText, unwrapBingLink } from '../bing.util.ts'

export function parseBingNews(xml: string): VerticalPage<NewsResult> {
  if (!xml || !isRssFeed(xml)) return { results: [], parse_quality: 'empty' }
  const $ = loadCheerio(xml, { xml: true })
  // A feed without items is not taken as Bing's word (no saysNoResults): as on its web pages
  // (bing.parse.ts), Bing may answer a client it quietly throttles with nothing.
  return readEach($('channel > item').toArray(), (item, position) => readItem($, item, position))
}

function readItem($: cheerio.CheerioAPI, item: Element, position: number): NewsResult | undefined {
  // Children by local name, case-insensitively: the namespace prefix ("News:") is not fixed.
  const child = (name: string) =>
    $(item)
      .children()
      .filter((_, el) => localName(el.name) === name)
      .first()
  const title = bingText(child('title').text())
  const link = unwrapBingLink(child('link').text())
  if (!title || !link) return undefined

  const result: NewsResult = { position, title, link, domain: domainOf(link) }
  const snippet = textOfHtml(child('description').text())
  if (snippet) result.snippet = snippet
  const date = bingText(child('pubdate').text())
  if (date) result.date = date
  const source = bingText(child('source').text())
  if (source) result.source = source
  const image = httpUrl(child('image').text().trim())
  // Thumbnails are bing.com/th links, listed as http; bing.com serves them over https.
  if (image) result.image_url = /^http:\/\/[^/]*bing\.(com|net)\//i.test(image) ? image.replace(/^http:/i, 'https:') : image
  return result
}

const localName = (name: string) => (name.split(':').pop() ?? name).toLowerCase()

/** Descriptions are plain text that may carry HTML entities or tags; only the text is kept. */
function textOfHtml(s: string): string {
  if (!/[<&]/.test(s)) return bingText(s)
  return bingText(loadCheerio(s, null, false).root().text())
}
