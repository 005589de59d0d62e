/**
 * Parses a Google Videos result page. Each result is a titled link (an `<h3>` or ARIA heading)
 * with a thumbnail and a text block; the basic layout prints "date · snippet" and then labelled
 * lines ("Duration: 2:09", "Posted: Nov 27, 2021"), the JS layout prints "YouTube · Channel".
 */
import type * as cheerio from 'cheerio'
import type { Element } from 'domhandler'
import type { VerticalPage, VerticalRequest, VideoResult } from '../../engine.types.ts'
import { loadCheerio } from '../../parse/cheerio-load.ts'
import { qualityOf } from '../../parse/quality.ts'
import { domainOf } from '../../parse/text.ts'
import { detectGoogleBlockInHtml } from '../google-block.detect.ts'
import { linesOf } from '../google-blocks.util.ts'
import { compact, isElement, isInside, resultUrl, splitLeadingDate, textOf } from '../google-dom.util.ts'
import { pageOf, pageOffset } from '../google-vertical.util.ts'

/** One page of video results; cut to the requested page (num, positions, domain filters) when `req` is given. */
export function parseGoogleVideos(html: string, req?: VerticalRequest): VerticalPage<VideoResult> {
  const { results: all, failed } = parseVideoResults(html)
  const results = req ? pageOf(all, req, (r) => r.link, pageOffset(req)) : all
  return { results, parse_quality: qualityOf(results.length, failed) }
}

/** Every video result on the page, positions from 1, and how many titled links could not be read. */
export function parseVideoResults(html: string): { results: VideoResult[]; failed: number } {
  if (!html || detectGoogleBlockInHtml(html)) return { results: [], failed: 0 }
  const $ = loadCheerio(html)
  const root = ($('#main')[0] ?? $('body')[0] ?? $.root()[0]) as Element

  const anchors: { anchor: Element; heading: Element; link: string }[] = []
  for (const heading of $(root).find('h3, [role="heading"]').toArray()) {
    const anchor = $(heading).closest('a[href]')[0] as Element | undefined
    const link = anchor ? resultUrl(anchor.attribs.href) : null
    if (!anchor || !link || anchors.some((a) => a.anchor === anchor)) continue
    anchors.push({ anchor, heading, link })
  }

  const results: VideoResult[] = []
  let failed = 0
  for (const { anchor, heading, link } of anchors) {
    const title = textOf(heading)
    if (!title) {
      failed++
      continue
    }
    const card = cardOf(
      anchor,
      anchors.map((a) => a.anchor),
      root,
    )
    const fields = fieldsOf(linesOf(card, (el) => el === anchor))
    const domain = domainOf(link)
    const source = fields.source ?? sourceOf(title, domain)
    results.push(
      compact({
        position: results.length + 1,
        title,
        link,
        domain,
        snippet: fields.snippet,
        image_url: thumbnailOf($, card),
        duration: fields.duration,
        source,
        channel: fields.channel ?? (source === 'YouTube' ? youtubeChannelOf(fields.snippet) : undefined),
        date: fields.date,
      }),
    )
  }
  return { results, failed }
}

/** The largest element around `anchor` that holds no other result link: the result card. */
function cardOf(anchor: Element, all: Element[], root: Element): Element {
  let card = anchor
  for (let cur = anchor.parent; cur && isElement(cur) && cur !== root; cur = cur.parent) {
    if (all.some((other) => other !== anchor && isInside(other, cur))) break
    card = cur
  }
  return card
}

const DURATION_LABEL = /^(?:duration|dauer|durée|duración|durata|duração|duur)\s*:\s*(.+)$/i
const POSTED_LABEL = /^(?:posted|uploaded|veröffentlicht|hochgeladen|publié|mis en ligne|publicado|subido|pubblicato|caricato|enviado)\s*:\s*(.+)$/i
const CHANNEL_LABEL = /^(?:uploaded by|channel|hochgeladen von|mis en ligne par|subido por|caricato da|enviado por)\s*:\s*(.+)$/i
const CLOCK = /^\d{1,2}(?::\d{2}){1,2}$/
const PLATFORM_LINE = /^(YouTube|Vimeo|Dailymotion|Facebook|TikTok|Instagram|Twitch|Twitter|X|Rumble|Bilibili)\s+·\s+(.+)$/

interface Fields {
  snippet?: string
  date?: string
  duration?: string
  source?: string
  channel?: string
}

function fieldsOf(lines: string[]): Fields {
  const f: Fields = {}
  let leadingDate: string | undefined
  for (const line of lines) {
    const duration = DURATION_LABEL.exec(line)?.[1] ?? (CLOCK.test(line) ? line : undefined)
    const channel = CHANNEL_LABEL.exec(line)?.[1]
    const posted = POSTED_LABEL.exec(line)?.[1]
    const platform = PLATFORM_LINE.exec(line)
    if (duration) f.duration ??= duration.trim()
    else if (channel) f.channel ??= channel.trim()
    else if (posted) f.date ??= posted.trim()
    else if (platform) {
      f.source ??= platform[1]
      f.channel ??= platform[2]?.trim()
    } else if (!f.snippet) {
      const split = splitLeadingDate(line)
      leadingDate ??= split.date
      if (split.rest) f.snippet = split.rest
    }
  }
  f.date ??= leadingDate
  return f
}

const PLATFORMS: [RegExp, string][] = [
  [/(^|\.)(youtube\.com|youtu\.be)$/, 'YouTube'],
  [/(^|\.)vimeo\.com$/, 'Vimeo'],
  [/(^|\.)dailymotion\.com$/, 'Dailymotion'],
  [/(^|\.)(facebook\.com|fb\.watch)$/, 'Facebook'],
  [/(^|\.)tiktok\.com$/, 'TikTok'],
  [/(^|\.)instagram\.com$/, 'Instagram'],
  [/(^|\.)twitch\.tv$/, 'Twitch'],
  [/(^|\.)(twitter\.com|x\.com)$/, 'Twitter'],
  [/(^|\.)rumble\.com$/, 'Rumble'],
  [/(^|\.)bilibili\.com$/, 'Bilibili'],
]

/**
 * The video platform: a known one by its domain, else the site name Google appends to the title
 * ("… - playmakerstats.com") when it names the link's own site.
 */
function sourceOf(title: string, domain: string): string | undefined {
  for (const [re, name] of PLATFORMS) if (re.test(domain)) return name
  const suffix = / [-|] ([^-|]{2,40})$/.exec(title)?.[1]?.trim()
  if (!suffix) return undefined
  const squash = (s: string) => s.toLowerCase().replace(/[^a-z0-9.]/g, '')
  const site = squash(suffix)
  const label = domain.split('.').at(-2) ?? domain
  return site === squash(domain) || site === squash(label) ? suffix : undefined
}

/** YouTube page descriptions start "<Channel>. 70.9K subscribers." in Google's snippet. */
function youtubeChannelOf(snippet: string | undefined): string | undefined {
  return snippet ? /^(.{2,80}?)\.\s+[\d.,]+\s*[KMB]?\s+subscribers\b/i.exec(snippet)?.[1] : undefined
}

/** The thumbnail: an absolute image URL (inline data: images are placeholders filled by script). */
function thumbnailOf($: cheerio.CheerioAPI, card: Element): string | undefined {
  for (const img of $(card).find('img[src]').toArray()) {
    const src = img.attribs.src ?? ''
    if (/^https?:\/\//i.test(src)) return src
  }
  return undefined
}
