import { Parser } from 'htmlparser2'
import { httpUrl } from '../../engines/parse/text.ts'
import { decodeSitemapText, gunzipLayers } from './sitemap-body.decode.ts'

export type SitemapKind = 'urlset' | 'index' | 'rss' | 'atom' | 'text' | 'unknown'

export interface SitemapUrl {
  url: string
  /** Exactly as written (trimmed); absent when missing or empty. */
  lastmod?: string
  /** hreflang alternates (`<xhtml:link rel="alternate" hreflang=…>`) of a urlset entry. */
  alternates?: string[]
}

export interface ParsedSitemap {
  kind: SitemapKind
  urls: SitemapUrl[]
  /** Child sitemaps of an index. */
  sitemaps: string[]
}

export interface SitemapHint {
  /** Where the body came from: relative locations are resolved against it. */
  url?: string
  contentType?: string
}

/**
 * Reads any body a site offers as a sitemap: XML urlset or sitemapindex, RSS 2.0/1.0, Atom, or
 * plain text, gzip-compressed or not. It never rejects a file for being malformed or cut short:
 * whatever entries were complete are returned. Only a gzip body that will not inflate, or that
 * expands past MAX_SITEMAP_BYTES, throws.
 */
export function parseSitemap(body: Buffer, hint: SitemapHint = {}): ParsedSitemap {
  const text = decodeSitemapText(gunzipLayers(body), hint.contentType)
  const start = text.replace(/^\uFEFF/, '').trimStart()
  if (start.startsWith('<')) return parseXmlSitemap(text, hint.url)
  // JSON Feed and other JSON: not a sitemap format (map reads XML sitemaps, RSS/Atom and text).
  if (start.startsWith('{') || start.startsWith('[')) return { kind: 'unknown', urls: [], sitemaps: [] }
  return parseTextSitemap(text, hint.url)
}

/**
 * The protocol's text format: one full URL per line. Only lines that start with a scheme count, so
 * a robots.txt or an error message served at a sitemap's address yields nothing rather than junk.
 */
function parseTextSitemap(text: string, base: string | undefined): ParsedSitemap {
  const urls: SitemapUrl[] = []
  for (const line of text.split(/\r\n|\r|\n/)) {
    const token = line.trim().split(/\s+/)[0] ?? ''
    if (!/^https?:\/\//i.test(token)) continue
    const url = httpUrl(token.trim(), base)
    if (url) urls.push({ url })
  }
  return { kind: urls.length ? 'text' : 'unknown', urls, sitemaps: [] }
}

type Container = 'url' | 'sitemap' | 'item' | 'entry'

interface Entry {
  container: Container
  loc?: string
  lastmod?: string
  /** A creation date, the lastmod only when no modification date is given. */
  published?: string
  alternates: string[]
  /** RSS `<guid>` that is a permalink: the item's URL when it has no `<link>`. */
  guid?: string
}

type Field = 'loc' | 'lastmod' | 'published' | 'guid'

/** Fields read as text, per container; the first non-empty one of each kind wins. */
const TEXT_FIELDS: Record<Container, Record<string, Field>> = {
  url: { loc: 'loc', lastmod: 'lastmod' },
  sitemap: { loc: 'loc', lastmod: 'lastmod' },
  // RSS 2.0 pubDate; RSS 1.0 dc:date.
  item: { link: 'loc', pubdate: 'lastmod', date: 'published', guid: 'guid' },
  // Atom 1.0 updated, else published; Atom 0.3 modified, else issued.
  entry: { updated: 'lastmod', modified: 'lastmod', published: 'published', issued: 'published' },
}

const ROOT_KINDS: Record<string, SitemapKind> = { urlset: 'urlset', sitemapindex: 'index', rss: 'rss', rdf: 'rss', feed: 'atom' }
const CONTAINER_KINDS: Record<Container, SitemapKind> = { url: 'urlset', sitemap: 'index', item: 'rss', entry: 'atom' }

/** Lookup that ignores Object.prototype: an element called `<constructor>` is just unknown. */
const own = <V>(table: Record<string, V>, key: string): V | undefined => (Object.hasOwn(table, key) ? table[key] : undefined)

/** `xhtml:link` -> `link`: sitemaps arrive with default, prefixed and odd namespace prefixes alike. */
const localName = (name: string) => name.slice(name.lastIndexOf(':') + 1)

/**
 * A streaming pass over the XML with htmlparser2, which never gives up on broken markup and closes
 * whatever is open at the end. We track the open elements ourselves so a field counts only as a
 * direct child of its container: `<image:loc>` inside `<url>` is an image, not the page.
 */
function parseXmlSitemap(text: string, base: string | undefined): ParsedSitemap {
  const urls: SitemapUrl[] = []
  const sitemaps: string[] = []
  const stack: string[] = []
  const seenContainers = new Set<Container>()
  let root: string | undefined
  let entry: Entry | undefined
  let entryDepth = -1
  let field: { name: Field; depth: number; text: string } | undefined
  let atEnd = false

  const emit = (e: Entry) => {
    const url = httpUrl((e.loc ?? e.guid ?? '').trim(), base)
    if (!url) return
    if (e.container === 'sitemap') {
      sitemaps.push(url)
      return
    }
    const item: SitemapUrl = { url }
    const lastmod = e.lastmod ?? e.published
    if (lastmod) item.lastmod = lastmod
    if (e.alternates.length) item.alternates = e.alternates
    urls.push(item)
  }

  const parser = new Parser(
    {
      onopentag(rawName, attrs) {
        const name = localName(rawName)
        const parent = stack.at(-1)
        stack.push(name)
        if (root === undefined) root = name
        // An HTML page (a soft 404 answered 200) has links, not sitemap entries.
        if (root === 'html') return
        if (!entry) {
          const container = openContainer(name, parent)
          if (container) {
            entry = { container, alternates: [] }
            entryDepth = stack.length
            seenContainers.add(container)
          }
          return
        }
        if (stack.length !== entryDepth + 1) return
        if (name === 'link') readLinkAttributes(entry, attrs, base)
        const target = own(TEXT_FIELDS[entry.container], name)
        if (name === 'guid' && attrs.ispermalink?.trim().toLowerCase() === 'false') return
        if (target && !field) field = { name: target, depth: stack.length, text: '' }
      },
      ontext(chunk) {
        if (field) field.text += chunk
      },
      onclosetag(_name, implied) {
        if (field && stack.length === field.depth) {
          // A field still open when the input ran out was cut mid-value: a truncated URL is worse than none.
          const value = atEnd && implied ? '' : field.text.trim()
          if (entry && value && entry[field.name] === undefined) entry[field.name] = value
          field = undefined
        }
        if (entry && stack.length === entryDepth) {
          emit(entry)
          entry = undefined
          entryDepth = -1
        }
        stack.pop()
      },
    },
    { xmlMode: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
  )
  parser.write(text)
  atEnd = true
  parser.end()

  let kind: SitemapKind = (root && own(ROOT_KINDS, root)) || 'unknown'
  if (kind === 'unknown' && root !== 'html') {
    const found = [...seenContainers][0]
    if (found) kind = CONTAINER_KINDS[found]
  }
  return { kind, urls, sitemaps }
}

/**
 * Which elements start an entry. `<url>` and `<sitemap>` only directly under their root (or at the
 * top of a file that lost its root): RSS has `<image><url>` too.
 */
function openContainer(name: string, parent: string | undefined): Container | undefined {
  if (name === 'url' || name === 'sitemap') return parent === undefined || parent === 'urlset' || parent === 'sitemapindex' ? name : undefined
  if (name === 'item' || name === 'entry') return name
  return undefined
}

/**
 * `<link>` carries the URL in an attribute in Atom (and in `atom:link` inside RSS items), and the
 * hreflang alternates of a urlset entry. Mobile `media=` alternates and rel=self/edit/enclosure are
 * not pages of their own.
 */
function readLinkAttributes(entry: Entry, attrs: Record<string, string>, base: string | undefined) {
  const href = attrs.href
  if (!href) return
  const rel = (attrs.rel ?? 'alternate').toLowerCase()
  if (entry.container === 'url') {
    const alt = rel === 'alternate' && attrs.hreflang ? httpUrl(href.trim(), base) : undefined
    if (alt) entry.alternates.push(alt)
    return
  }
  if ((entry.container === 'entry' || entry.container === 'item') && rel === 'alternate' && entry.loc === undefined) {
    entry.loc = href.trim()
  }
}
