/**
 * Parses a Bing Images grid (the /images/search page or its /images/async fragment). Each tile's
 * `a.iusc` carries its data as JSON in the `m` attribute: `murl` the image, `turl` the
 * thumbnail, `purl` the page it is on, `t` the title. Sizes come from the tile's link
 * (`expw` / `exph`) or its "600 x 400 · jpeg" caption.
 */
import type * as cheerio from 'cheerio'
import type { Element } from 'domhandler'
import type { ImageResult, VerticalPage } from '../../engine.types.ts'
import { loadPage } from '../../parse/html.ts'
import { readEach } from '../../parse/quality.ts'
import { domainOf, httpUrl } from '../../parse/text.ts'
import { bingText } from '../bing.util.ts'

interface TileData {
  murl?: unknown
  turl?: unknown
  purl?: unknown
  t?: unknown
  desc?: unknown
}

export function parseBingImages(html: string): VerticalPage<ImageResult> {
  const $ = loadPage(html)
  return readEach($('a.iusc').toArray(), (a, position) => readTile($, a, position))
}

function readTile($: cheerio.CheerioAPI, a: Element, position: number): ImageResult | undefined {
  const data = tileData($(a).attr('m'))
  const imageUrl = httpUrl(str(data?.murl)?.trim())
  const tile = $(a).closest('li, .iuscp, .imgpt')
  const title = bingText(str(data?.t)) || bingText(tile.find('a.inflnk').attr('aria-label')) || bingText(str(data?.desc))
  if (!imageUrl || !title) return undefined

  const result: ImageResult = { position, title, image_url: imageUrl }
  const size = sizeOf($(a).attr('href'), bingText(tile.find('.img_info span').first().text()))
  if (size) {
    result.image_width = size.width
    result.image_height = size.height
  }
  const thumb = httpUrl(str(data?.turl)?.trim())
  if (thumb) result.thumbnail_url = thumb
  const page = httpUrl(str(data?.purl)?.trim())
  if (page) {
    result.link = page
    result.domain = domainOf(page)
  }
  const source = bingText(tile.find('.lnkw a').first().text()) || result.domain
  if (source) result.source = source
  return result
}

function tileData(m: string | undefined): TileData | undefined {
  if (!m) return undefined
  try {
    const v: unknown = JSON.parse(m)
    return v && typeof v === 'object' ? (v as TileData) : undefined
  } catch {
    return undefined
  }
}

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined)

function sizeOf(href: string | undefined, caption: string): { width: number; height: number } | undefined {
  if (href) {
    try {
      const p = new URL(href, 'https://www.bing.com').searchParams
      const width = Number(p.get('expw'))
      const height = Number(p.get('exph'))
      if (width > 0 && height > 0) return { width, height }
    } catch {
      // fall through to the caption
    }
  }
  const m = caption.match(/(\d+)\s*[x×]\s*(\d+)/)
  return m ? { width: Number(m[1]), height: Number(m[2]) } : undefined
}
