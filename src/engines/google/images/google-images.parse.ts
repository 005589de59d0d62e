/**
 * Parses a Google Images result page. The basic (no-JS) grid shows each image as a card: a
 * thumbnail link and a text link (title, host) to the page the image is on, both `/url?q=`
 * redirects. The full-size image URL and its size appear only when cards link through `/imgres?`
 * (imgurl, imgrefurl, w, h); otherwise the thumbnail is the only image URL the page holds.
 */
import type * as cheerio from 'cheerio'
import type { Element } from 'domhandler'
import type { ImageResult, VerticalPage, VerticalRequest } from '../../engine.types.ts'
import { loadCheerio } from '../../parse/cheerio-load.ts'
import { qualityOf } from '../../parse/quality.ts'
import { domainOf, httpUrl, normText } from '../../parse/text.ts'
import { detectGoogleBlockInHtml } from '../google-block.detect.ts'
import { compact, isElement, isInside, resultUrl, textOf } from '../google-dom.util.ts'
import { pageOf, pageOffset } from '../google-vertical.util.ts'

export interface ImageGrid {
  /** Every card on the page, positions from 1. */
  results: ImageResult[]
  /** Cards with an image and a link but no title. */
  failed: number
  /** Highest `start` offset among the page's own pagination links (the "Next" page), when there is one. */
  nextStart?: number
}

/** One page of image results: the cards cut to the requested page when `req` is given. */
export function parseGoogleImages(html: string, req?: VerticalRequest): VerticalPage<ImageResult> {
  const grid = parseImageGrid(html)
  const results = req ? pageOf(grid.results, req, (r) => r.link, pageOffset(req)) : grid.results
  return { results, parse_quality: qualityOf(results.length, grid.failed) }
}

/** Every image card of a Google Images page, in page order. A block page yields none. */
export function parseImageGrid(html: string): ImageGrid {
  if (!html || detectGoogleBlockInHtml(html)) return { results: [], failed: 0 }
  const $ = loadCheerio(html)
  const thumbs = new Map<Element, Target>()
  for (const img of $('img[src]').toArray()) {
    const anchor = $(img).closest('a[href]')[0] as Element | undefined
    const target = anchor ? targetOf(anchor.attribs.href) : undefined
    const src = absoluteImageUrl(img.attribs.src)
    if (target && src) thumbs.set(img, { ...target, thumbnail: src })
  }

  const results: ImageResult[] = []
  let failed = 0
  for (const [img, target] of thumbs) {
    const card = cardOf(img, thumbs)
    const { title, source } = captionOf(card, img)
    const name = title || normText(img.attribs.alt ?? '')
    if (!name) {
      failed++
      continue
    }
    results.push(
      compact({
        position: results.length + 1,
        title: name,
        image_url: target.image ?? target.thumbnail,
        image_width: target.width,
        image_height: target.height,
        thumbnail_url: target.thumbnail,
        source,
        domain: target.link ? domainOf(target.link) : undefined,
        link: target.link,
      }),
    )
  }
  return { results, failed, nextStart: nextStartOf($) }
}

interface Target {
  link?: string
  image?: string
  width?: number
  height?: number
  thumbnail: string
}

/** Where a card's link points: the page (and, through `/imgres?`, the full image and its size). */
function targetOf(href: string | undefined): Omit<Target, 'thumbnail'> | undefined {
  if (!href) return undefined
  let u: URL
  try {
    u = new URL(href, 'https://www.google.com')
  } catch {
    return undefined
  }
  if (/(^|\.)google\.[a-z.]+$/.test(u.hostname) && u.pathname === '/imgres') {
    const image = httpUrl(u.searchParams.get('imgurl'))
    const link = httpUrl(u.searchParams.get('imgrefurl'))
    if (!image && !link) return undefined
    return { link, image, width: dimension(u.searchParams.get('w')), height: dimension(u.searchParams.get('h')) }
  }
  const link = resultUrl(href)
  return link ? { link } : undefined
}

function dimension(s: string | null): number | undefined {
  const n = Number(s)
  return Number.isInteger(n) && n > 0 ? n : undefined
}

/** Thumbnail URLs are absolute (encrypted-tbn*.gstatic.com); inline data: images are too big to return. */
function absoluteImageUrl(src: string | undefined): string | undefined {
  if (!src || src.startsWith('data:')) return undefined
  try {
    const u = new URL(src, 'https://www.google.com')
    if (u.protocol !== 'http:' && u.protocol !== 'https:') return undefined
    // Google's own artwork (logo, icons) is not a result thumbnail.
    if (/(^|\.)google\.[a-z.]+$/.test(u.hostname) && !u.pathname.startsWith('/images') && u.pathname !== '/imgres') return undefined
    if (u.pathname.startsWith('/images/branding') || u.pathname.startsWith('/images/icons')) return undefined
    return u.toString()
  } catch {
    return undefined
  }
}

/** The largest element around `img` that holds no other result thumbnail: the card. */
function cardOf(img: Element, thumbs: Map<Element, Target>): Element {
  let card = img
  for (let cur = img.parent; cur && isElement(cur) && cur.name !== 'body'; cur = cur.parent) {
    let others = false
    for (const other of thumbs.keys()) {
      if (other !== img && isInside(other, cur)) {
        others = true
        break
      }
    }
    if (others) break
    card = cur
  }
  return card
}

const HOST_LIKE = /^(?:[a-z0-9-]+\.)+[a-z]{2,}$/i

/** The card's caption lines: the title, and the host the grid prints under it (the source). */
function captionOf(card: Element, img: Element): { title?: string; source?: string } {
  let title: string | undefined
  let source: string | undefined
  const leaves: Element[] = []
  const walk = (el: Element) => {
    if (el === img || el.name === 'script' || el.name === 'style') return
    const kids = el.children.filter(isElement)
    const ownText = el.children.some((c) => c.type === 'text' && c.data.trim())
    if (ownText || !kids.length || kids.every((k) => k.name === 'br')) {
      leaves.push(el)
      return
    }
    for (const k of kids) walk(k)
  }
  walk(card)
  for (const leaf of leaves) {
    const t = textOf(leaf)
    if (!t) continue
    if (!source && HOST_LIKE.test(t)) source = t
    else title ??= t
  }
  return { title, source }
}

/** The largest `start` among links to further result pages. */
function nextStartOf($: cheerio.CheerioAPI): number | undefined {
  let max: number | undefined
  for (const a of $('a[href*="start="]').toArray()) {
    try {
      const u = new URL(a.attribs.href ?? '', 'https://www.google.com')
      if (u.pathname !== '/search') continue
      const start = Number(u.searchParams.get('start'))
      if (Number.isInteger(start) && start > 0 && (max === undefined || start > max)) max = start
    } catch {
      // Not a pagination link.
    }
  }
  return max
}
