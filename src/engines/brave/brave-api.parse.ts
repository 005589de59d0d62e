/**
 * Parsers of the official Brave Search API's JSON: /web/search (the shared response reader),
 * /news/search, /images/search and /videos/search (a top-level `results[]` each).
 */
import type { ImageResult, NewsResult, ParsedSearchPage, VerticalPage, VideoResult } from '../engine.types.ts'
import { confirmEmpty, readItems } from '../parse/quality.ts'
import { arr, domainOf, httpUrl, type Json, obj, plain, str } from '../parse/text.ts'
import { quality, readBraveResponse } from './brave-json.parse.ts'

function parseJson(body: string): Json | undefined {
  try {
    return obj(JSON.parse(body))
  } catch {
    return undefined
  }
}

export function parseBraveApiWeb(body: string): ParsedSearchPage {
  const json = parseJson(body)
  if (!json) return { results: [], parse_quality: 'partial' }
  return confirmEmpty(readBraveResponse(json).page)
}

/** Reads `results[]` of a vertical response with `read`, numbering what could be read. */
function readVertical<T>(body: string, read: (item: Json, position: number) => T | undefined): VerticalPage<T> {
  const json = parseJson(body)
  if (!json) return { results: [], parse_quality: 'partial' }
  const { results, present } = readItems(arr(json.results), read)
  return confirmEmpty({ results, parse_quality: quality(results.length, present) })
}

/** Title and absolute link of an item, the least a linked result needs. */
function linked(item: Json): { title: string; link: string; domain: string } | undefined {
  const link = httpUrl(str(item.url))
  const title = plain(item.title)
  return link && title ? { title, link, domain: domainOf(link) } : undefined
}

export function parseBraveApiNews(body: string): VerticalPage<NewsResult> {
  return readVertical(body, (item, position) => {
    const base = linked(item)
    if (!base) return undefined
    const r: NewsResult = { position, ...base }
    const snippet = plain(item.description)
    if (snippet) r.snippet = snippet
    const date = plain(item.age) || plain(item.page_age)
    if (date) r.date = date
    const source = plain(obj(item.profile)?.name) || plain(item.source) || plain(obj(item.meta_url)?.netloc)
    if (source) r.source = source
    const image = httpUrl(str(obj(item.thumbnail)?.original)) ?? httpUrl(str(obj(item.thumbnail)?.src))
    if (image) r.image_url = image
    return r
  })
}

export function parseBraveApiImages(body: string): VerticalPage<ImageResult> {
  return readVertical(body, (item, position) => {
    const props = obj(item.properties)
    const thumb = obj(item.thumbnail)
    const imageUrl = httpUrl(str(props?.url)) ?? httpUrl(str(thumb?.src))
    if (!imageUrl) return undefined
    const page = httpUrl(str(item.url))
    const r: ImageResult = { position, title: plain(item.title) || (page ? domainOf(page) : domainOf(imageUrl)), image_url: imageUrl }
    const width = dimension(props?.width) ?? dimension(thumb?.width)
    const height = dimension(props?.height) ?? dimension(thumb?.height)
    if (width !== undefined && height !== undefined) {
      r.image_width = width
      r.image_height = height
    }
    const thumbnail = httpUrl(str(thumb?.src))
    if (thumbnail) r.thumbnail_url = thumbnail
    const source = plain(item.source) || plain(obj(item.meta_url)?.netloc)
    if (source) r.source = source
    if (page) {
      r.link = page
      r.domain = domainOf(page)
    }
    return r
  })
}

export function parseBraveApiVideos(body: string): VerticalPage<VideoResult> {
  return readVertical(body, (item, position) => {
    const base = linked(item)
    if (!base) return undefined
    const video = obj(item.video)
    const r: VideoResult = { position, ...base }
    const snippet = plain(item.description)
    if (snippet) r.snippet = snippet
    const image = httpUrl(str(obj(item.thumbnail)?.original)) ?? httpUrl(str(obj(item.thumbnail)?.src))
    if (image) r.image_url = image
    const duration = plain(video?.duration)
    if (duration) r.duration = duration
    const source = plain(video?.publisher) || plain(obj(item.profile)?.name) || plain(obj(item.meta_url)?.netloc)
    if (source) r.source = source
    const channel = plain(video?.creator)
    if (channel) r.channel = channel
    const date = plain(item.age) || plain(item.page_age)
    if (date) r.date = date
    return r
  })
}

function dimension(v: unknown): number | undefined {
  const n = typeof v === 'number' ? v : typeof v === 'string' ? Number(v) : Number.NaN
  return Number.isInteger(n) && n > 0 ? n : undefined
}
