import type { Document, Element } from 'domhandler'
import { absoluteUrl, collapse, findAll, findFirst, rawText, textOf, walkElements } from './dom.utils.ts'
import type { PageMetadata } from './reading.types.ts'

export interface PageFacts {
  title: string | null
  publishedAt: string | null
  metadata: PageMetadata
  /** JSON-LD articleBody when the page publishes one: a strong hint of what the article text is. */
  articleBody: string | null
}

type JsonObject = Record<string, unknown>

/** Every JSON-LD object on the page, `@graph` arrays and top-level arrays flattened. */
function jsonLdObjects(doc: Document): JsonObject[] {
  const out: JsonObject[] = []
  const visit = (v: unknown) => {
    if (Array.isArray(v)) return v.forEach(visit)
    if (!v || typeof v !== 'object') return
    const o = v as JsonObject
    out.push(o)
    if (o['@graph']) visit(o['@graph'])
  }
  for (const s of findAll(doc, (el) => el.name === 'script' && /ld\+json/i.test(el.attribs.type ?? ''))) {
    try {
      visit(
        JSON.parse(
          rawText(s)
            .trim()
            .replace(/^<!--|-->$/g, ''),
        ),
      )
    } catch {
      // Broken JSON-LD is common (trailing commas, raw newlines); the meta tags still answer.
    }
  }
  return out
}

const str = (v: unknown): string | undefined => {
  if (typeof v === 'string') return collapse(v) || undefined
  if (Array.isArray(v)) return str(v[0])
  if (v && typeof v === 'object') return str((v as JsonObject).name ?? (v as JsonObject)['@value'])
  return undefined
}

const names = (v: unknown): string[] => (Array.isArray(v) ? v : [v]).map((x) => str(x)).filter((x): x is string => !!x && !/^https?:\/\//.test(x))

const ARTICLE_TYPES = /article|posting|report|blog|news|review|webpage|recipe|howto|qapage/i

/** Parses a date the page states and returns ISO 8601 (UTC), or null when it is not a date. */
export function toIsoDate(value: string | undefined): string | null {
  if (!value) return null
  const v = value.trim()
  if (!/\d{4}|\d{1,2}[/.-]\d{1,2}/.test(v)) return null
  const t = Date.parse(/^\d{4}-\d{2}-\d{2} \d/.test(v) ? v.replace(' ', 'T') : v)
  if (Number.isNaN(t)) return null
  const year = new Date(t).getUTCFullYear()
  return year >= 1990 && year <= 2100 ? new Date(t).toISOString() : null
}

/** Cuts " | Site", " - Site" and similar from a <title> when what is left still reads as a title. */
function cleanTitle(title: string, siteName: string | undefined): string {
  let t = collapse(title)
  if (siteName && t.length > siteName.length + 3) {
    for (const sep of [' | ', ' - ', ' – ', ' — ', ' :: ', ' · ', ' » ']) {
      if (t.endsWith(`${sep}${siteName}`)) return t.slice(0, -(sep.length + siteName.length)).trim()
      if (t.startsWith(`${siteName}${sep}`)) return t.slice(siteName.length + sep.length).trim()
    }
  }
  const m = /^(.{15,}?)\s+[|–—·»]\s+[^|–—·»]{2,40}$/.exec(t)
  if (m) t = m[1]!
  return t
}

/** Title, date and the page's own metadata (meta tags, Open Graph, Twitter cards, JSON-LD). */
export function extractFacts(doc: Document, url: string): PageFacts {
  const meta = new Map<string, string>()
  const og: Record<string, string> = {}
  const twitter: Record<string, string> = {}
  let canonical: string | undefined
  let htmlLang: string | undefined
  let titleTag: string | undefined
  walkElements(doc, (el: Element) => {
    if (el.name === 'html') htmlLang = el.attribs.lang ?? el.attribs['xml:lang']
    else if (el.name === 'title' && titleTag === undefined) titleTag = textOf(el)
    else if (el.name === 'link' && /\bcanonical\b/i.test(el.attribs.rel ?? '')) canonical ??= el.attribs.href
    else if (el.name === 'meta') {
      const key = (el.attribs.property ?? el.attribs.name ?? el.attribs.itemprop ?? el.attribs['http-equiv'] ?? '').trim().toLowerCase()
      const content = el.attribs.content ?? el.attribs.datetime
      if (!key || content === undefined) return
      const value = collapse(content)
      if (!value) return
      if (!meta.has(key)) meta.set(key, value)
      if (key.startsWith('og:') && !(key.slice(3) in og)) og[key.slice(3)] = value
      if (key.startsWith('twitter:') && !(key.slice(8) in twitter)) twitter[key.slice(8)] = value
    }
    return el.name !== 'svg'
  })

  const ld = jsonLdObjects(doc)
  const types = [...new Set(ld.flatMap((o) => (Array.isArray(o['@type']) ? o['@type'] : [o['@type']])).filter((t): t is string => typeof t === 'string'))]
  const article =
    ld.find((o) => ARTICLE_TYPES.test(String(o['@type'])) && (o.headline || o.datePublished || o.articleBody)) ?? ld.find((o) => o.headline || o.datePublished)
  const get = (...keys: string[]) => keys.map((k) => meta.get(k)).find(Boolean)

  const siteName = og.site_name ?? str((article?.publisher as JsonObject | undefined)?.name) ?? get('application-name')
  const headline = str(article?.headline)
  const h1 = findFirst(doc, (el) => el.name === 'h1')
  const title = og.title ?? twitter.title ?? headline ?? (titleTag ? cleanTitle(titleTag, siteName) : undefined) ?? (h1 ? textOf(h1) : undefined)

  const timeEl =
    findFirst(
      doc,
      (el) =>
        el.name === 'time' &&
        !!el.attribs.datetime &&
        (/pub/i.test(`${el.attribs.class ?? ''} ${el.attribs.itemprop ?? ''}`) || el.attribs.pubdate !== undefined),
    ) ?? findFirst(doc, (el) => el.name === 'time' && !!el.attribs.datetime)
  const published =
    toIsoDate(str(article?.datePublished)) ??
    toIsoDate(
      get(
        'article:published_time',
        'og:published_time',
        'datepublished',
        'date',
        'pubdate',
        'publishdate',
        'publish-date',
        'dc.date.issued',
        'dc.date',
        'dcterms.created',
        'citation_publication_date',
        'citation_date',
        'parsely-pub-date',
        'sailthru.date',
        'article.published',
        'published_time',
      ),
    ) ??
    toIsoDate(str(article?.dateCreated)) ??
    toIsoDate(timeEl?.attribs.datetime)
  const modified = toIsoDate(str(article?.dateModified)) ?? toIsoDate(get('article:modified_time', 'og:updated_time', 'datemodified', 'last-modified'))

  const authors = article ? names(article.author ?? article.creator) : []
  const author = authors.length > 0 ? authors.join(', ') : get('author', 'article:author', 'dc.creator', 'citation_author', 'parsely-author', 'sailthru.author')

  const metadata: PageMetadata = {}
  const description = get('description', 'og:description', 'twitter:description') ?? str(article?.description)
  if (description) metadata.description = description
  if (author && !/^https?:\/\//.test(author)) metadata.author = author
  const language = htmlLang ?? get('content-language', 'language', 'dc.language') ?? og.locale?.replace('_', '-')
  if (language) metadata.language = language.trim()
  if (siteName) metadata.site_name = siteName
  const canonicalUrl = absoluteUrl(canonical ?? og.url, url)
  if (canonicalUrl) metadata.canonical_url = canonicalUrl
  if (modified) metadata.modified_at = modified
  if (Object.keys(og).length > 0) metadata.open_graph = og
  if (Object.keys(twitter).length > 0) metadata.twitter = twitter
  if (types.length > 0) metadata.json_ld_type = types.length === 1 ? types[0]! : types
  const keywords = get('keywords', 'news_keywords')
  if (keywords) metadata.keywords = keywords

  const body = typeof article?.articleBody === 'string' ? collapse(article.articleBody) : ''
  return { title: title ?? null, publishedAt: published, metadata, articleBody: body.length >= 200 ? body : null }
}
