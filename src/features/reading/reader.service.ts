import type { AnyNode, Document } from 'domhandler'
import { parseDocument } from 'htmlparser2'
import { decodeText } from '../../net/body-decode.ts'
import { countTokens, trimToTokens } from '../../text/tokens.ts'
import { cleanContent, pickContentRoot, pruneDocument } from './content.extract.ts'
import { trimToArticleBody } from './content.hint.ts'
import { absoluteUrl, findFirst, isElement, walkElements } from './dom.utils.ts'
import { rankHighlights } from './highlights.rank.ts'
import { serializeCleanHtml } from './html.serialize.ts'
import { imageSource, writeMarkdown } from './markdown.convert.ts'
import { extractFacts } from './metadata.extract.ts'
import { readPdf } from './pdf.read.ts'
import { readabilityNodes } from './readability.fallback.ts'
import type { ReadInput, ReadLink, ReadOptions, ReadResult } from './reading.types.ts'

export type { ReadInput, ReadOptions, ReadResult } from './reading.types.ts'

/** Below this much prose our pick is not trusted and Readability gets a try. */
const MIN_PROSE = 250

interface Content {
  title: string | null
  publishedAt: string | null
  metadata: ReadResult['metadata']
  nodes: AnyNode[] | null
  baseUrl: string
  /** Set for PDFs and plain text, which have no DOM. */
  markdown?: string
  text?: string
}

/** The page's `<base href>` wins over its URL for resolving relative links, as in a browser. */
function baseUrlOf(doc: Document, url: string): string {
  const base = findFirst(doc, (el) => el.name === 'base' && !!el.attribs.href)
  return absoluteUrl(base?.attribs.href, url) ?? url
}

/** Main content of an HTML page as DOM nodes: Trawl's extractor, Readability when it finds too little. */
export function extractHtml(html: string, url: string): Content {
  const doc = parseDocument(html)
  const facts = extractFacts(doc, url)
  const baseUrl = baseUrlOf(doc, url)
  pruneDocument(doc)
  const pick = pickContentRoot(doc)
  const good = pick ? (pick.stats.get(pick.root)?.good ?? 0) : 0
  let nodes: AnyNode[] | null = null
  if (pick && good >= MIN_PROSE) {
    cleanContent(pick, facts.title, baseUrl)
    if (facts.articleBody) trimToArticleBody(pick.root, facts.articleBody)
    nodes = [pick.root]
  } else {
    const rescued = readabilityNodes(html, baseUrl)
    if (rescued && rescued.textLength > good) nodes = rescued.nodes
    else if (pick) {
      cleanContent(pick, facts.title, baseUrl)
      nodes = [pick.root]
    }
  }
  return { title: facts.title, publishedAt: facts.publishedAt, metadata: facts.metadata, nodes, baseUrl }
}

function collectLinksAndImages(nodes: AnyNode[], baseUrl: string, pageUrl: string): { links: ReadLink[]; images: string[] } {
  const links = new Map<string, ReadLink>()
  const images = new Set<string>()
  const page = pageUrl.replace(/#.*$/, '')
  const root = { children: nodes } as unknown as Document
  walkElements(root, (el) => {
    if (el.name === 'a') {
      const url = absoluteUrl(el.attribs.href, baseUrl)
      if (!url || !/^https?:/i.test(url) || url.replace(/#.*$/, '') === page) return
      // An image-only link is named by the image's alt text.
      const text = collectText(el) || imageAlt(el)
      const known = links.get(url)
      if (!known) links.set(url, { url, text })
      else if (!known.text && text) known.text = text
    } else if (el.name === 'img') {
      const src = absoluteUrl(imageSource(el), baseUrl)
      if (src && /^https?:/i.test(src)) images.add(src)
    }
  })
  return { links: [...links.values()], images: [...images] }
}

function imageAlt(el: AnyNode): string {
  let alt = ''
  walkElements({ children: [el] } as unknown as Document, (c) => {
    if (!alt && c.name === 'img') alt = (c.attribs.alt ?? '').replace(/\s+/g, ' ').trim()
  })
  return alt
}

function collectText(el: AnyNode): string {
  let s = ''
  const visit = (n: AnyNode) => {
    if (n.type === 'text') s += (n as unknown as { data: string }).data
    else if (isElement(n)) n.children.forEach(visit)
  }
  visit(el)
  return s.replace(/\s+/g, ' ').trim()
}

async function contentOf(input: ReadInput): Promise<Content> {
  if (input.contentType === 'pdf') {
    const pdf = await readPdf(input.body)
    return { ...pdf, nodes: null, baseUrl: input.url }
  }
  const text = input.text ?? decodeText(input.body, undefined, input.contentType).text
  if (input.contentType === 'text') {
    return { title: null, publishedAt: null, metadata: {}, nodes: null, baseUrl: input.url, markdown: text.trim(), text: text.trim() }
  }
  return extractHtml(text, input.url)
}

const escapeHtml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')

/**
 * Reads a fetched document (HTML, XHTML, PDF or plain text) into the requested format with its
 * title, date and metadata. A page with no readable content is not an error here: the result
 * has `empty: true` and '' as content, and the route reports `empty_page`.
 */
export async function readDocument(input: ReadInput, opts: ReadOptions): Promise<ReadResult> {
  const c = await contentOf(input)
  let content: string
  let plainForHighlights: string | undefined
  const sink = { links: [] as ReadLink[], images: [] as string[] }
  if (c.nodes) {
    if (opts.format === 'html') content = serializeCleanHtml(c.nodes, c.baseUrl)
    else content = writeMarkdown(c.nodes, { baseUrl: c.baseUrl, plain: opts.format === 'text', ...sink })
    if (opts.format === 'html' && opts.query && opts.highlights) {
      plainForHighlights = writeMarkdown(c.nodes, { baseUrl: c.baseUrl, plain: false, ...sink })
    }
  } else {
    const md = c.markdown ?? ''
    content = opts.format === 'html' ? (md ? `<pre>${escapeHtml(c.text ?? md)}</pre>` : '') : opts.format === 'text' ? (c.text ?? md) : md
    if (opts.format === 'html') plainForHighlights = md
  }

  const result: ReadResult = { title: c.title, published_at: c.publishedAt, metadata: c.metadata, tokens: 0, trimmed: false, empty: false }
  if (opts.query && opts.highlights && opts.highlights > 0) {
    result.highlights = rankHighlights(plainForHighlights ?? content, opts.query, Math.min(opts.highlights, 10))
  }
  if (opts.includeLinks || opts.includeImages) {
    const found = c.nodes ? collectLinksAndImages(c.nodes, c.baseUrl, input.url) : { links: [], images: [] }
    if (opts.includeLinks) result.links = found.links
    if (opts.includeImages) result.images = found.images
  }
  let trimmed = false
  if (opts.maxTokens !== undefined) ({ text: content, trimmed } = trimToTokens(content, opts.maxTokens))
  result[opts.format] = content
  result.tokens = countTokens(content)
  result.trimmed = trimmed
  result.empty = !/[\p{L}\p{N}]/u.test(opts.format === 'html' ? content.replace(/<[^>]*>/g, '') : content)
  return result
}
