/**
 * Readers of Serper's JSON answers (serper.dev; the key names Trawl's own Serper-compatible
 * endpoint, src/features/compat/serper, answers with): `/search` `organic[]` {title, link,
 * snippet, date, sitelinks[], position}, `knowledgeGraph`, `answerBox`, `peopleAlsoAsk[]`,
 * `relatedSearches[]`, `topStories[]`, `places[]`; `/images` `images[]`; `/news` `news[]`;
 * `/videos` `videos[]`; `/places` `places[]`; `/shopping` `shopping[]`; `/scholar` `organic[]`;
 * `/autocomplete` `suggestions[]` {value}. Items are numbered from 1 in Serper's order.
 */
import type { z } from 'zod'
import type {
  AnswerBox,
  AutocompleteSuggestion,
  ImageResult,
  KnowledgeGraph,
  LocalPlace,
  NewsResult,
  OrganicResult,
  Parsed,
  ParsedSearchPage,
  ParseQuality,
  PeopleAlsoAsk,
  ScholarResult,
  ShoppingResult,
  TopStory,
  VerticalPage,
  VideoResult,
} from '../engine.types.ts'
// Serper's prices are Google's price texts: the reader of Google's shopping pages reads them.
import { parsePriceText } from '../google/shopping/price-text.parse.ts'
import { confirmEmpty, readItems } from '../parse/quality.ts'
import { arr, domainOf, httpUrl, type Json, obj, plain, str } from '../parse/text.ts'
import type { VERTICAL_ITEMS } from '../results.schema.ts'

type PlacesResult = Parsed<z.infer<(typeof VERTICAL_ITEMS)['places']>>

/** The answer as JSON, or undefined when it is not JSON. */
export function readSerperJson(body: string): Json | undefined {
  try {
    return obj(JSON.parse(body))
  } catch {
    return undefined
  }
}

/** Serper's own error text (`{"message": …, "statusCode": …}`), when the answer is one. */
export function serperMessage(json: Json): string | undefined {
  const message = plain(json.message)
  return message || undefined
}

function qualityOf(read: number, present: number): ParseQuality {
  return read > 0 ? 'ok' : present > 0 ? 'partial' : 'empty'
}

/** `json[key]` read item by item, numbered from 1. */
function readList<T>(json: Json, key: string, read: (item: Json, position: number) => T | undefined): VerticalPage<T> {
  const { results, present } = readItems(arr(json[key]), read)
  return confirmEmpty({ results, parse_quality: qualityOf(results.length, present) })
}

const text = (v: unknown): string | undefined => plain(v) || undefined
const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined)
const int = (v: unknown): number | undefined => {
  const n = typeof v === 'string' ? Number(v.replace(/[,\s]/g, '')) : v
  return typeof n === 'number' && Number.isInteger(n) && n >= 0 ? n : undefined
}

/** Sets `out[key]` when `value` is defined: parsers leave out what an answer lacks. */
function put<T extends object, K extends keyof T>(out: T, key: K, value: T[K] | undefined): void {
  if (value !== undefined) out[key] = value
}

/** A result's title and page with its domain; undefined without either. */
function linked(item: Json, position: number): { position: number; title: string; link: string; domain: string } | undefined {
  const link = httpUrl(str(item.link))
  const title = plain(item.title)
  if (!link || !title) return undefined
  return { position, title, link, domain: domainOf(link) }
}

/** A place as /search's `places[]` and /places list it; `coordinates` only on /places. */
function readPlace(item: Json, position: number, coordinates: boolean): PlacesResult | undefined {
  const title = plain(item.title)
  if (!title) return undefined
  const p: PlacesResult = { position, title }
  put(p, 'address', text(item.address))
  if (coordinates) {
    put(p, 'latitude', num(item.latitude))
    put(p, 'longitude', num(item.longitude))
  }
  put(p, 'rating', num(item.rating))
  put(p, 'rating_count', int(item.ratingCount))
  put(p, 'type', text(item.category) ?? text(item.type))
  put(p, 'phone_number', text(item.phoneNumber))
  put(p, 'website', httpUrl(str(item.website)))
  put(p, 'place_id', text(item.placeId))
  put(p, 'cid', text(item.cid))
  return p
}

export function parseSerperSearch(json: Json): ParsedSearchPage {
  const organic = readList<OrganicResult>(json, 'organic', (item, position) => {
    const r: OrganicResult | undefined = linked(item, position)
    if (!r) return undefined
    put(r, 'snippet', text(item.snippet))
    put(r, 'date', text(item.date))
    const sitelinks = arr(item.sitelinks)
      .map((s) => ({ title: plain(obj(s)?.title), link: httpUrl(str(obj(s)?.link)) }))
      .filter((s): s is { title: string; link: string } => !!s.title && !!s.link)
    if (sitelinks.length) r.sitelinks = sitelinks
    return r
  })
  const page: ParsedSearchPage = { results: organic.results, parse_quality: organic.parse_quality }
  const kg = knowledgeGraphOf(obj(json.knowledgeGraph))
  if (kg) page.knowledge_graph = kg
  const box = answerBoxOf(obj(json.answerBox))
  if (box) page.answer_box = box
  const paa = arr(json.peopleAlsoAsk)
    .map((q) => peopleAlsoAskOf(obj(q)))
    .filter((q): q is PeopleAlsoAsk => !!q)
  if (paa.length) page.people_also_ask = paa
  const related = arr(json.relatedSearches)
    .map((r) => plain(obj(r)?.query))
    .filter(Boolean)
  if (related.length) page.related_searches = related.map((query) => ({ query }))
  const stories = arr(json.topStories)
    .map((s) => topStoryOf(obj(s)))
    .filter((s): s is TopStory => !!s)
  if (stories.length) page.top_stories = stories
  const places = readList<LocalPlace>(json, 'places', (item, position) => readPlace(item, position, false)).results
  if (places.length) page.places = places
  return page
}

function knowledgeGraphOf(kg: Json | undefined): KnowledgeGraph | undefined {
  const title = plain(kg?.title)
  if (!kg || !title) return undefined
  const out: KnowledgeGraph = { title }
  put(out, 'type', text(kg.type))
  put(out, 'description', text(kg.description))
  const sourceName = plain(kg.descriptionSource)
  const sourceLink = httpUrl(str(kg.descriptionLink))
  if (sourceName && sourceLink) out.source = { name: sourceName, link: sourceLink }
  put(out, 'website', httpUrl(str(kg.website)))
  put(out, 'image_url', httpUrl(str(kg.imageUrl)))
  const attributes: Record<string, string> = {}
  for (const [key, value] of Object.entries(obj(kg.attributes) ?? {})) {
    const v = plain(value)
    if (plain(key) && v) attributes[plain(key)] = v
  }
  if (Object.keys(attributes).length) out.attributes = attributes
  return out
}

/** Serper's answerBox: an `answer` (calculator, weather, a fact) or a featured snippet. */
function answerBoxOf(box: Json | undefined): AnswerBox | undefined {
  if (!box) return undefined
  const answer = text(box.answer)
  const snippet = text(box.snippet) ?? (arr(box.snippetHighlighted).map(plain).filter(Boolean).join(' ') || undefined)
  if (!answer && !snippet) return undefined
  const out: AnswerBox = { type: answer ? 'answer' : 'featured_snippet' }
  put(out, 'title', text(box.title))
  put(out, 'answer', answer)
  put(out, 'snippet', snippet)
  const link = httpUrl(str(box.link))
  if (link) {
    out.link = link
    out.domain = domainOf(link)
  }
  return out
}

function peopleAlsoAskOf(q: Json | undefined): PeopleAlsoAsk | undefined {
  const question = plain(q?.question)
  if (!q || !question) return undefined
  const out: PeopleAlsoAsk = { question }
  put(out, 'snippet', text(q.snippet))
  put(out, 'link', httpUrl(str(q.link)))
  return out
}

function topStoryOf(s: Json | undefined): TopStory | undefined {
  const title = plain(s?.title)
  const link = httpUrl(str(s?.link))
  if (!s || !title || !link) return undefined
  const out: TopStory = { title, link }
  put(out, 'source', text(s.source))
  put(out, 'date', text(s.date))
  put(out, 'image_url', httpUrl(str(s.imageUrl)))
  return out
}

export function parseSerperImages(json: Json): VerticalPage<ImageResult> {
  return readList<ImageResult>(json, 'images', (item, position) => {
    const imageUrl = httpUrl(str(item.imageUrl))
    if (!imageUrl) return undefined
    const page = httpUrl(str(item.link))
    const r: ImageResult = { position, title: plain(item.title) || domainOf(page ?? imageUrl), image_url: imageUrl }
    const width = int(item.imageWidth)
    const height = int(item.imageHeight)
    if (width && height) {
      r.image_width = width
      r.image_height = height
    }
    put(r, 'thumbnail_url', httpUrl(str(item.thumbnailUrl)))
    put(r, 'source', text(item.source))
    if (page) {
      r.link = page
      r.domain = text(item.domain) ?? domainOf(page)
    }
    return r
  })
}

export function parseSerperNews(json: Json): VerticalPage<NewsResult> {
  return readList<NewsResult>(json, 'news', (item, position) => {
    const r: NewsResult | undefined = linked(item, position)
    if (!r) return undefined
    put(r, 'snippet', text(item.snippet))
    put(r, 'date', text(item.date))
    put(r, 'source', text(item.source))
    put(r, 'image_url', httpUrl(str(item.imageUrl)))
    return r
  })
}

export function parseSerperVideos(json: Json): VerticalPage<VideoResult> {
  return readList<VideoResult>(json, 'videos', (item, position) => {
    const r: VideoResult | undefined = linked(item, position)
    if (!r) return undefined
    put(r, 'snippet', text(item.snippet))
    put(r, 'image_url', httpUrl(str(item.imageUrl)))
    put(r, 'duration', text(item.duration))
    put(r, 'source', text(item.source))
    put(r, 'channel', text(item.channel))
    put(r, 'date', text(item.date))
    return r
  })
}

export function parseSerperPlaces(json: Json): VerticalPage<PlacesResult> {
  return readList<PlacesResult>(json, 'places', (item, position) => readPlace(item, position, true))
}

export function parseSerperShopping(json: Json, country?: string): VerticalPage<ShoppingResult> {
  return readList<ShoppingResult>(json, 'shopping', (item, position) => {
    const title = plain(item.title)
    if (!title) return undefined
    const r: ShoppingResult = { position, title }
    put(r, 'source', text(item.source))
    put(r, 'link', httpUrl(str(item.link)))
    const price = text(item.price)
    if (price) {
      r.price = price
      const value = parsePriceText(price, country)
      put(r, 'price_value', value.value)
      put(r, 'currency', value.currency)
    }
    put(r, 'delivery', text(item.delivery))
    put(r, 'image_url', httpUrl(str(item.imageUrl)))
    put(r, 'rating', num(item.rating))
    put(r, 'rating_count', int(item.ratingCount))
    put(r, 'offers', text(item.offers))
    put(r, 'product_id', text(item.productId))
    return r
  })
}

export function parseSerperScholar(json: Json): VerticalPage<ScholarResult> {
  return readList<ScholarResult>(json, 'organic', (item, position) => {
    const title = plain(item.title)
    if (!title) return undefined
    const r: ScholarResult = { position, title }
    const link = httpUrl(str(item.link))
    if (link) {
      r.link = link
      r.domain = domainOf(link)
    }
    put(r, 'publication_info', text(item.publicationInfo))
    put(r, 'snippet', text(item.snippet))
    put(r, 'year', int(item.year))
    put(r, 'cited_by', int(item.citedBy))
    put(r, 'pdf_url', httpUrl(str(item.pdfUrl)))
    put(r, 'id', text(item.id))
    return r
  })
}

export function parseSerperAutocomplete(json: Json): VerticalPage<AutocompleteSuggestion> {
  const seen = new Set<string>()
  return readList<AutocompleteSuggestion>(json, 'suggestions', (item) => {
    const value = plain(item.value)
    if (!value || seen.has(value)) return undefined
    seen.add(value)
    return { value }
  })
}
