/**
 * Readers of a SearXNG instance's JSON answer (`format=json`; `searx/webutils.py`
 * get_json_response): `query`, `number_of_results`, `results[]` (url, title, content, engine,
 * engines, publishedDate, thumbnail, img_src, thumbnail_src, resolution, length, author…),
 * `answers` (strings in older versions, `{answer, url}` objects since 2025), `corrections`,
 * `infoboxes` (infobox, id, content, img_src, urls[], attributes[]), `suggestions` and
 * `unresponsive_engines` ([engine, reason] pairs).
 */
import type { AnswerBox, ImageResult, KnowledgeGraph, NewsResult, OrganicResult, ParsedSearchPage, ParseQuality, VideoResult } from '../engine.types.ts'
import { readItems } from '../parse/quality.ts'
import { arr, domainOf, httpUrl, type Json, obj, plain, str } from '../parse/text.ts'

/** Raw control characters (some engines leave them in snippets; JSON.parse refuses them) as spaces. */
function withoutControls(s: string): string {
  let out = ''
  for (const ch of s) {
    const c = ch.charCodeAt(0)
    out += c < 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d ? ' ' : ch
  }
  return out
}

/** The answer as JSON, or undefined when it is not SearXNG's JSON (an HTML page, a proxy's error). */
export function readSearxngJson(body: string): Json | undefined {
  const text = body.trimStart()
  if (!text.startsWith('{')) return undefined
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    try {
      value = JSON.parse(withoutControls(text))
    } catch {
      return undefined
    }
  }
  const json = obj(value)
  return json && Array.isArray(json.results) ? json : undefined
}

/** The engines that failed, as SearXNG lists them: [engine, reason]. */
export function unresponsiveEngines(json: Json): [string, string][] {
  const out: [string, string][] = []
  for (const pair of arr(json.unresponsive_engines)) {
    const [engine, reason] = arr(pair)
    if (typeof engine === 'string') out.push([engine, typeof reason === 'string' ? reason : 'failed'])
  }
  return out
}

/** 'ok' when something was read; 'partial' when results were there but none could be read. */
function qualityOf(read: number, present: number): ParseQuality {
  return read > 0 ? 'ok' : present > 0 ? 'partial' : 'empty'
}

/** `results[]` read with `read`, numbered from 1 in SearXNG's order (its score). */
function readResults<T>(json: Json, read: (item: Json, position: number) => T | undefined): { results: T[]; quality: ParseQuality } {
  const { results, present } = readItems(arr(json.results), read)
  return { results, quality: qualityOf(results.length, present) }
}

/** A result's page and title; a result without a title is named by its site rather than dropped. */
function linked(item: Json): { title: string; link: string; domain: string } | undefined {
  const link = httpUrl(str(item.url))
  if (!link) return undefined
  const domain = domainOf(link)
  return { title: plain(item.title) || domain, link, domain }
}

/** `publishedDate` (ISO 8601 from SearXNG's encoder), kept when it is a date. */
function dateOf(item: Json): string | undefined {
  const date = str(item.publishedDate) ?? str(item.pubdate)
  return date && !Number.isNaN(Date.parse(date)) ? date : undefined
}

export function parseSearxngWeb(json: Json): ParsedSearchPage {
  const { results, quality } = readResults<OrganicResult>(json, (item, position) => {
    const base = linked(item)
    if (!base) return undefined
    const r: OrganicResult = { position, ...base }
    const snippet = plain(item.content)
    if (snippet) r.snippet = snippet
    const date = dateOf(item)
    if (date) r.date = date
    return r
  })
  const page: ParsedSearchPage = { results, parse_quality: quality }
  const total = json.number_of_results
  if (typeof total === 'number' && Number.isFinite(total) && total > 0) page.total_results = Math.round(total)
  const related = arr(json.suggestions)
    .map((s) => plain(s))
    .filter(Boolean)
  if (related.length) page.related_searches = [...new Set(related)].map((query) => ({ query }))
  const answer = answerOf(json)
  if (answer) page.answer_box = answer
  const kg = knowledgeGraphOf(json)
  if (kg) page.knowledge_graph = kg
  return page
}

/** The first answer: a string (SearXNG before 2025) or `{answer, url}`. */
function answerOf(json: Json): AnswerBox | undefined {
  for (const a of arr(json.answers)) {
    const text = typeof a === 'string' ? plain(a) : plain(obj(a)?.answer)
    if (!text) continue
    const box: AnswerBox = { type: 'answer', answer: text }
    const link = httpUrl(str(obj(a)?.url))
    if (link) {
      box.link = link
      box.domain = domainOf(link)
    }
    return box
  }
  return undefined
}

const WEBSITE = /official|website|homepage/i

/** The first infobox (Wikipedia, Wikidata…) as the knowledge graph. */
function knowledgeGraphOf(json: Json): KnowledgeGraph | undefined {
  const box = obj(arr(json.infoboxes)[0])
  const title = box ? plain(box.infobox) : ''
  if (!box || !title) return undefined
  const kg: KnowledgeGraph = { title }
  const description = plain(box.content)
  if (description) kg.description = description
  const image = httpUrl(str(box.img_src))
  if (image) kg.image_url = image
  const urls = arr(box.urls)
    .map(obj)
    .filter((u): u is Json => !!u)
  const website = urls.find((u) => WEBSITE.test(str(u.title) ?? '') && httpUrl(str(u.url)))
  if (website) kg.website = httpUrl(str(website.url))
  const sourceLink = httpUrl(str(box.id)) ?? httpUrl(str(urls[0]?.url))
  const engine = plain(box.engine)
  if (sourceLink) kg.source = { name: engine || domainOf(sourceLink), link: sourceLink }
  const attributes: Record<string, string> = {}
  for (const a of arr(box.attributes)) {
    const label = plain(obj(a)?.label)
    const value = plain(obj(a)?.value)
    if (label && value) attributes[label] = value
  }
  if (Object.keys(attributes).length) kg.attributes = attributes
  return kg
}

export function parseSearxngNews(json: Json): { results: NewsResult[]; parse_quality: ParseQuality } {
  const { results, quality } = readResults<NewsResult>(json, (item, position) => {
    const base = linked(item)
    if (!base) return undefined
    const r: NewsResult = { position, ...base }
    const snippet = plain(item.content)
    if (snippet) r.snippet = snippet
    const date = dateOf(item)
    if (date) r.date = date
    const source = plain(item.source) || plain(item.author)
    if (source) r.source = source
    const image = httpUrl(str(item.thumbnail)) ?? httpUrl(str(item.img_src))
    if (image) r.image_url = image
    return r
  })
  return { results, parse_quality: quality }
}

export function parseSearxngImages(json: Json): { results: ImageResult[]; parse_quality: ParseQuality } {
  const { results, quality } = readResults<ImageResult>(json, (item, position) => {
    const imageUrl = httpUrl(str(item.img_src))
    if (!imageUrl) return undefined
    const page = httpUrl(str(item.url))
    const r: ImageResult = { position, title: plain(item.title) || domainOf(page ?? imageUrl), image_url: imageUrl }
    const size = /^\s*(\d+)\s*[x×]\s*(\d+)\s*$/i.exec(str(item.resolution) ?? '')
    if (size) {
      r.image_width = Number(size[1])
      r.image_height = Number(size[2])
    }
    const thumbnail = httpUrl(str(item.thumbnail_src)) ?? httpUrl(str(item.thumbnail))
    if (thumbnail) r.thumbnail_url = thumbnail
    const source = plain(item.source)
    if (source) r.source = source
    if (page) {
      r.link = page
      r.domain = domainOf(page)
    }
    return r
  })
  return { results, parse_quality: quality }
}

export function parseSearxngVideos(json: Json): { results: VideoResult[]; parse_quality: ParseQuality } {
  const { results, quality } = readResults<VideoResult>(json, (item, position) => {
    const base = linked(item)
    if (!base) return undefined
    const r: VideoResult = { position, ...base }
    const snippet = plain(item.content)
    if (snippet) r.snippet = snippet
    const image = httpUrl(str(item.thumbnail)) ?? httpUrl(str(item.img_src))
    if (image) r.image_url = image
    const duration = durationOf(item.length)
    if (duration) r.duration = duration
    const channel = plain(item.author)
    if (channel) r.channel = channel
    const source = plain(item.engine)
    if (source) r.source = source
    const date = dateOf(item)
    if (date) r.date = date
    return r
  })
  return { results, parse_quality: quality }
}

/** `length`: a text such as "12:34", or seconds (SearXNG encodes a timedelta as its total seconds). */
export function durationOf(v: unknown): string | undefined {
  if (typeof v === 'string') return plain(v) || undefined
  if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0) return undefined
  const total = Math.round(v)
  const h = Math.floor(total / 3600)
  const m = Math.floor((total % 3600) / 60)
  const s = String(total % 60).padStart(2, '0')
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${s}` : `${m}:${s}`
}
