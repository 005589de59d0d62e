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
  let from = 0
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    if (c < 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) {
      out += `${s.slice(from, i)} `
      from = i + 1
    }
  }
  return from === 0 ? s : out + s.slice(from)
}

/**
 * Bounds on what is read of an answer, applied to each field before anything else touches it (the
 * markup stripping, the URL parser, token counts, the cache): whatever answers at the instance's
 * address can put megabytes into one field (a 7.5 MB title held a core for over an hour). Far above
 * what a real instance sends: titles run to about 100 characters, snippets to a few hundred.
 */
export const SEARXNG_LIMITS = {
  /** A result's or infobox's title (characters, markup included). */
  title: 512,
  /** A snippet, an answer, an infobox's description. */
  text: 4096,
  /** Names, dates, labels, suggestions, a resolution, an engine's failure reason. */
  short: 256,
  /** A URL longer than this is not read: cut, it would lead somewhere else. */
  url: 4096,
  /** Items read from each list (results of a page, answers, suggestions, infobox links and attributes). */
  items: 100,
} as const

const isHighSurrogate = (c: number) => c >= 0xd800 && c <= 0xdbff

/** A string field cut to `max` characters (never inside a surrogate pair), with … where it was cut. */
function clip(v: unknown, max: number): string | undefined {
  const s = str(v)
  if (s === undefined || s.length <= max) return s
  const end = isHighSurrogate(s.charCodeAt(max - 1)) ? max - 1 : max
  return `${s.slice(0, end)}…`
}

/** The plain text of a field, cut first. */
const text = (v: unknown, max: number): string => plain(clip(v, max))
const title = (v: unknown) => text(v, SEARXNG_LIMITS.title)
const snippet = (v: unknown) => text(v, SEARXNG_LIMITS.text)
const short = (v: unknown) => text(v, SEARXNG_LIMITS.short)

/** An http(s) URL field, or undefined (also when it is longer than any real link). */
function link(v: unknown): string | undefined {
  const s = str(v)
  return s && s.length <= SEARXNG_LIMITS.url ? httpUrl(s) : undefined
}

/** The first items of a list field. */
const list = (v: unknown): unknown[] => arr(v).slice(0, SEARXNG_LIMITS.items)

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
  for (const pair of list(json.unresponsive_engines)) {
    const [engine, reason] = arr(pair)
    if (typeof engine === 'string') out.push([clip(engine, SEARXNG_LIMITS.short)!, clip(reason, SEARXNG_LIMITS.short) ?? 'failed'])
  }
  return out
}

/** 'ok' when something was read; 'partial' when results were there but none could be read. */
function qualityOf(read: number, present: number): ParseQuality {
  return read > 0 ? 'ok' : present > 0 ? 'partial' : 'empty'
}

/** `results[]` read with `read`, numbered from 1 in SearXNG's order (its score). */
function readResults<T>(json: Json, read: (item: Json, position: number) => T | undefined): { results: T[]; quality: ParseQuality } {
  const { results, present } = readItems(list(json.results), read)
  return { results, quality: qualityOf(results.length, present) }
}

/** A result's page and title; a result without a title is named by its site rather than dropped. */
function linked(item: Json): { title: string; link: string; domain: string } | undefined {
  const url = link(item.url)
  if (!url) return undefined
  const domain = domainOf(url)
  return { title: title(item.title) || domain, link: url, domain }
}

/** `publishedDate` (ISO 8601 from SearXNG's encoder), kept when it is a date. */
function dateOf(item: Json): string | undefined {
  const date = clip(item.publishedDate, SEARXNG_LIMITS.short) ?? clip(item.pubdate, SEARXNG_LIMITS.short)
  return date && !Number.isNaN(Date.parse(date)) ? date : undefined
}

/** A web or news result: its page, then its snippet and date when it has them. */
function datedResult(item: Json, position: number): OrganicResult | undefined {
  const base = linked(item)
  if (!base) return undefined
  const r: OrganicResult = { position, ...base }
  const summary = snippet(item.content)
  if (summary) r.snippet = summary
  const date = dateOf(item)
  if (date) r.date = date
  return r
}

export function parseSearxngWeb(json: Json): ParsedSearchPage {
  const { results, quality } = readResults(json, datedResult)
  const page: ParsedSearchPage = { results, parse_quality: quality }
  const total = json.number_of_results
  if (typeof total === 'number' && Number.isFinite(total) && total > 0) page.total_results = Math.round(total)
  const related = list(json.suggestions)
    .map((s) => short(s))
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
  for (const a of list(json.answers)) {
    const answer = typeof a === 'string' ? snippet(a) : snippet(obj(a)?.answer)
    if (!answer) continue
    const box: AnswerBox = { type: 'answer', answer }
    const url = link(obj(a)?.url)
    if (url) {
      box.link = url
      box.domain = domainOf(url)
    }
    return box
  }
  return undefined
}

const WEBSITE = /official|website|homepage/i

/** The first infobox (Wikipedia, Wikidata…) as the knowledge graph. */
function knowledgeGraphOf(json: Json): KnowledgeGraph | undefined {
  const box = obj(arr(json.infoboxes)[0])
  const name = box ? title(box.infobox) : ''
  if (!box || !name) return undefined
  const kg: KnowledgeGraph = { title: name }
  const description = snippet(box.content)
  if (description) kg.description = description
  const image = link(box.img_src)
  if (image) kg.image_url = image
  const urls = list(box.urls)
    .map(obj)
    .filter((u): u is Json => !!u)
  const website = urls.find((u) => WEBSITE.test(clip(u.title, SEARXNG_LIMITS.short) ?? '') && link(u.url))
  if (website) kg.website = link(website.url)
  const sourceLink = link(box.id) ?? link(urls[0]?.url)
  const engine = short(box.engine)
  if (sourceLink) kg.source = { name: engine || domainOf(sourceLink), link: sourceLink }
  const attributes: Record<string, string> = {}
  for (const a of list(box.attributes)) {
    const label = short(obj(a)?.label)
    const value = snippet(obj(a)?.value)
    if (label && value) attributes[label] = value
  }
  if (Object.keys(attributes).length) kg.attributes = attributes
  return kg
}

export function parseSearxngNews(json: Json): { results: NewsResult[]; parse_quality: ParseQuality } {
  const { results, quality } = readResults<NewsResult>(json, (item, position) => {
    const r: NewsResult | undefined = datedResult(item, position)
    if (!r) return undefined
    const source = short(item.source) || short(item.author)
    if (source) r.source = source
    const image = link(item.thumbnail) ?? link(item.img_src)
    if (image) r.image_url = image
    return r
  })
  return { results, parse_quality: quality }
}

export function parseSearxngImages(json: Json): { results: ImageResult[]; parse_quality: ParseQuality } {
  const { results, quality } = readResults<ImageResult>(json, (item, position) => {
    const imageUrl = link(item.img_src)
    if (!imageUrl) return undefined
    const page = link(item.url)
    const r: ImageResult = { position, title: title(item.title) || domainOf(page ?? imageUrl), image_url: imageUrl }
    const size = /^\s*(\d+)\s*[x×]\s*(\d+)\s*$/i.exec(clip(item.resolution, SEARXNG_LIMITS.short) ?? '')
    if (size) {
      r.image_width = Number(size[1])
      r.image_height = Number(size[2])
    }
    const thumbnail = link(item.thumbnail_src) ?? link(item.thumbnail)
    if (thumbnail) r.thumbnail_url = thumbnail
    const source = short(item.source)
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
    const summary = snippet(item.content)
    if (summary) r.snippet = summary
    const image = link(item.thumbnail) ?? link(item.img_src)
    if (image) r.image_url = image
    const duration = durationOf(item.length)
    if (duration) r.duration = duration
    const channel = short(item.author)
    if (channel) r.channel = channel
    const source = short(item.engine)
    if (source) r.source = source
    const date = dateOf(item)
    if (date) r.date = date
    return r
  })
  return { results, parse_quality: quality }
}

/** `length`: a text such as "12:34", or seconds (SearXNG encodes a timedelta as its total seconds). */
export function durationOf(v: unknown): string | undefined {
  if (typeof v === 'string') return short(v) || undefined
  if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0) return undefined
  const total = Math.round(v)
  const h = Math.floor(total / 3600)
  const m = Math.floor((total % 3600) / 60)
  const s = String(total % 60).padStart(2, '0')
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${s}` : `${m}:${s}`
}
