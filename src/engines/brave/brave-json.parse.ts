/**
 * Reads Brave's search response object: the official API's /web/search JSON and the data the
 * web page hands its SvelteKit app (`body.response`) share one shape: `web.results[]` with
 * title, url, description, age / page_age, profile, meta_url, plus `faq`, `infobox` and
 * `query.related_queries`.
 */
import type { KnowledgeGraph, OrganicResult, ParsedSearchPage, PeopleAlsoAsk, RelatedSearch, Sitelink } from '../engine.types.ts'
import { arr, collapse, domainOf, httpUrl, type Json, obj, plain, str } from '../parse/text.ts'

export interface BraveResponseRead {
  page: ParsedSearchPage
  /** Result items present, read or not. */
  markup: number
}

/** The web results and side sections of a Brave response object. */
export function readBraveResponse(response: Json): BraveResponseRead {
  const items = arr(obj(response.web)?.results)
  const results: OrganicResult[] = []
  for (const item of items) {
    const r = webResult(obj(item), results.length + 1)
    if (r) results.push(r)
  }
  const page: ParsedSearchPage = { results, parse_quality: quality(results.length, items.length) }
  const paa = peopleAlsoAsk(response)
  if (paa.length) page.people_also_ask = paa
  const related = relatedSearches(obj(response.query))
  if (related.length) page.related_searches = related
  const kg = knowledgeGraph(response)
  if (kg) page.knowledge_graph = kg
  return { page, markup: items.length }
}

export function quality(read: number, present: number): ParsedSearchPage['parse_quality'] {
  if (read === 0) return present > 0 ? 'partial' : 'empty'
  return read < present ? 'partial' : 'ok'
}

function webResult(item: Json | undefined, position: number): OrganicResult | undefined {
  if (!item) return undefined
  const link = httpUrl(str(item.url))
  const title = plain(item.title)
  if (!link || !title) return undefined
  const r: OrganicResult = { position, title, link, domain: domainOf(link) }
  const shown = displayedLink(obj(item.meta_url))
  if (shown) r.displayed_link = shown
  const snippet = plain(item.description)
  if (snippet) r.snippet = snippet
  const date = plain(item.age) || plain(item.page_age)
  if (date) r.date = date
  const sitelinks = sitelinksOf(item)
  if (sitelinks.length) r.sitelinks = sitelinks
  return r
}

/** "w3schools.com › js", as the page prints it. */
function displayedLink(meta: Json | undefined): string | undefined {
  if (!meta) return undefined
  const host = plain(meta.netloc) || plain(meta.hostname)
  return collapse([host, plain(meta.path)].filter(Boolean).join(' ')) || undefined
}

/** The result's cluster (the page's indented links) or the API's deep_results buttons. */
function sitelinksOf(item: Json): Sitelink[] {
  const out: Sitelink[] = []
  const sources = [...arr(item.cluster), ...arr(obj(item.deep_results)?.buttons)]
  for (const s of sources) {
    const o = obj(s)
    const link = httpUrl(str(o?.url))
    const title = plain(o?.title)
    if (link && title && !out.some((x) => x.link === link)) out.push({ title, link })
  }
  return out
}

function peopleAlsoAsk(response: Json): PeopleAlsoAsk[] {
  const out: PeopleAlsoAsk[] = []
  for (const f of arr(obj(response.faq)?.results)) {
    const o = obj(f)
    const question = plain(o?.question)
    if (!o || !question) continue
    const q: PeopleAlsoAsk = { question }
    const snippet = plain(o.answer)
    if (snippet) q.snippet = snippet
    const link = httpUrl(str(o.url))
    if (link) q.link = link
    out.push(q)
  }
  return out
}

/**
 * `query.related_queries`: on the page each query is a list of [bold, word] pairs; plain
 * strings and {query} objects are taken too.
 */
function relatedSearches(query: Json | undefined): RelatedSearch[] {
  const out: RelatedSearch[] = []
  for (const q of arr(query?.related_queries)) {
    let text = ''
    if (typeof q === 'string') text = plain(q)
    else if (Array.isArray(q)) text = collapse(q.map((part) => (Array.isArray(part) ? plain(part[1]) : plain(part))).join(' '))
    else text = plain(obj(q)?.query) || plain(obj(q)?.text)
    if (text && !out.some((r) => r.query === text)) out.push({ query: text })
  }
  return out
}

function knowledgeGraph(response: Json): KnowledgeGraph | undefined {
  const box = obj(arr(obj(response.infobox)?.results)[0])
  const title = plain(box?.title)
  if (!box || !title) return undefined
  const kg: KnowledgeGraph = { title }
  const type = plain(box.description)
  if (type) kg.type = type
  const description = plain(box.long_desc)
  if (description) kg.description = description
  const provider = obj(arr(box.providers)[0])
  const sourceLink = httpUrl(str(provider?.url)) ?? httpUrl(str(box.url))
  if (sourceLink) kg.source = { name: plain(provider?.name) || domainOf(sourceLink), link: sourceLink }
  const website = httpUrl(str(box.website_url))
  if (website) kg.website = website
  const image = httpUrl(str(obj(box.thumbnail)?.original)) ?? httpUrl(str(obj(arr(box.images)[0])?.original))
  if (image) kg.image_url = image
  const attributes: Record<string, string> = {}
  for (const pair of arr(box.attributes)) {
    const [k, v] = arr(pair)
    const key = plain(k)
    const value = plain(v)
    if (key && value) attributes[key] = value
  }
  if (Object.keys(attributes).length) kg.attributes = attributes
  return kg
}
