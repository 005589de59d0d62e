import type { AnyNode, Document } from 'domhandler'
import { decodeText } from '../net/body-decode.ts'
import { type PageLink, pageLinksOf } from '../site/page-links.ts'
import { buildDocument, nestedTooDeep } from '../text/html-tree.ts'
import { titled } from '../text/markdown-outline.ts'
import { cleanContent, pickContentRoot, pruneDocument } from './content.extract.ts'
import { trimToArticleBody } from './content.hint.ts'
import { absoluteUrl, findFirst } from './dom.utils.ts'
import { rankHighlights } from './highlights.rank.ts'
import { serializeCleanHtml } from './html.serialize.ts'
import { writeMarkdown } from './markdown.convert.ts'
import { extractFacts } from './metadata.extract.ts'
import { contentAssets, mergeAssets, type PageAssets, pageAssets } from './page-assets.collect.ts'
import { readPdf } from './pdf.read.ts'
import { readabilityNodes } from './readability.fallback.ts'
import type { PageMetadata, ReadInput, ReadLink, ReadOptions, ReadResult } from './reading.types.ts'
import { type ShellSignals, shellSignalsOf } from './render.decide.ts'

/**
 * The reader's CPU work, free of the tokenizer so that a worker thread (reader.worker.cjs) can load
 * it without o200k's tables: reader.service.ts adds max_tokens and token counts on top.
 */

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
  /** With `assets`: every link of the page and its pictures outside furniture, read before pruning. */
  page?: PageAssets
}

/** The page's `<base href>` wins over its URL for resolving relative links, as in a browser. */
function baseUrlOf(doc: Document, url: string): string {
  const base = findFirst(doc, (el) => el.name === 'base' && !!el.attribs.href)
  return absoluteUrl(base?.attribs.href, url) ?? url
}

/**
 * Main content of an HTML page as DOM nodes: Trawl's extractor, Readability when it finds too
 * little. With `assets`, also the whole page's links and images (`include_links`/`include_images`).
 */
export function extractHtml(html: string, url: string, assets = false, inspect?: (doc: Document) => void): Content {
  const doc = buildDocument(html)
  inspect?.(doc)
  const facts = extractFacts(doc, url)
  const baseUrl = baseUrlOf(doc, url)
  const page = assets ? pageAssets(doc, baseUrl, url) : undefined
  pruneDocument(doc)
  const pick = pickContentRoot(doc)
  const good = pick ? (pick.stats.get(pick.root)?.good ?? 0) : 0
  let nodes: AnyNode[] | null = null
  if (pick && good >= MIN_PROSE) {
    cleanContent(pick, facts.title, baseUrl)
    if (facts.articleBody) trimToArticleBody(pick.root, facts.articleBody)
    nodes = [pick.root]
  } else {
    // Readability parses the raw page again, without the depth limit, and walks it quadratically.
    const rescued = nestedTooDeep(doc) ? null : readabilityNodes(html, baseUrl)
    if (rescued && rescued.textLength > good) nodes = rescued.nodes
    else if (pick) {
      cleanContent(pick, facts.title, baseUrl)
      nodes = [pick.root]
    }
  }
  return { title: facts.title, publishedAt: facts.publishedAt, metadata: facts.metadata, nodes, baseUrl, page }
}

async function contentOf(input: ReadInput, assets: boolean, inspect?: (doc: Document) => void): Promise<Content> {
  if (input.contentType === 'pdf') {
    const pdf = await readPdf(input.body)
    return { ...pdf, nodes: null, baseUrl: input.url }
  }
  const text = input.text ?? decodeText(input.body, undefined, input.contentType).text
  if (input.contentType === 'text') {
    return { title: null, publishedAt: null, metadata: {}, nodes: null, baseUrl: input.url, markdown: text.trim(), text: text.trim() }
  }
  return extractHtml(text, input.url, assets, inspect)
}

const escapeHtml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')

/** A read before max_tokens: the content untrimmed, `empty` when it has no letters or digits. */
export type ReadContent = Omit<ReadResult, 'tokens' | 'trimmed'>

/**
 * Reads a fetched document (HTML, XHTML, PDF or plain text) into the requested format, untrimmed.
 * `inspect` sees an HTML page's whole parsed tree before the reader prunes it.
 */
export async function readContent(input: ReadInput, opts: Omit<ReadOptions, 'maxTokens'>, inspect?: (doc: Document) => void): Promise<ReadContent> {
  const c = await contentOf(input, !!(opts.includeLinks || opts.includeImages), inspect)
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

  const result: ReadContent = { title: c.title, published_at: c.publishedAt, metadata: c.metadata, empty: isEmpty(content, opts.format) }
  // The headline is `title`, taken out of the content (content.title.ts): the Markdown gets it back
  // as `# Title`, so that it reads as a whole document (markdown-outline.ts).
  if (opts.format === 'markdown' && !result.empty) content = titled(content, c.title)
  if (opts.query && opts.highlights && opts.highlights > 0) {
    result.highlights = rankHighlights(plainForHighlights ?? content, opts.query, Math.min(opts.highlights, 10))
  }
  if (opts.includeLinks || opts.includeImages) {
    const inText = c.nodes ? contentAssets(c.nodes, c.baseUrl, input.url) : { links: [], images: [] }
    const found = mergeAssets(inText, c.page)
    if (opts.includeLinks) result.links = found.links
    if (opts.includeImages) result.images = found.images
  }
  result[opts.format] = content
  return result
}

/** No letter or digit in the content (tags aside for HTML): nothing readable. */
export const isEmpty = (content: string, format: ReadOptions['format']) => !/[\p{L}\p{N}]/u.test(format === 'html' ? content.replace(/<[^>]*>/g, '') : content)

/** What page reading asks of the reader for one fetched page (page-read.service.ts). */
export interface PageReadTask {
  input: ReadInput
  format: ReadOptions['format']
  includeLinks?: boolean
  includeImages?: boolean
  /** Crawls: every `<a href>` of the raw page as well. */
  discoverLinks?: boolean
  /** `render=auto` with a browser: the page's JavaScript-shell signals (render.decide.ts) as well. */
  shellSignals?: boolean
}

/** One page read for the cache: the content untrimmed, plus what the options asked for. */
export interface PageContent {
  title: string | null
  published_at: string | null
  metadata: PageMetadata
  /** '' when `empty`. */
  content: string
  empty: boolean
  links?: ReadLink[]
  images?: string[]
  page_links?: PageLink[]
  /** HTML reads: a Markdown rendering, for ranking highlights on text rather than markup. */
  highlight_source?: string
  /** With `shellSignals`, HTML pages only: for the render decision, not stored. */
  shell?: ShellSignals
}

/** The whole CPU part of reading one page: what runs on a reader thread (reader.pool.ts). */
export async function readPageContent(task: PageReadTask): Promise<PageContent> {
  const { input, format } = task
  // Links to follow and shell signals come from the reader's own parse, before it prunes the tree.
  let pageLinks: PageLink[] | undefined
  let shell: ShellSignals | undefined
  const inspect = (doc: Document) => {
    if (task.discoverLinks) pageLinks = pageLinksOf(doc, input.url)
    if (task.shellSignals) shell = shellSignalsOf(doc)
  }
  const read = await readContent(input, { format, includeLinks: task.includeLinks, includeImages: task.includeImages }, inspect)
  const page: PageContent = {
    title: read.title,
    published_at: read.published_at,
    metadata: read.metadata,
    content: read.empty ? '' : (read[format] ?? ''),
    empty: read.empty,
  }
  if (task.includeLinks) page.links = read.links ?? []
  if (task.includeImages) page.images = read.images ?? []
  if (task.discoverLinks) page.page_links = pageLinks ?? []
  if (shell) page.shell = shell
  if (format === 'html' && !read.empty) page.highlight_source = (await readContent(input, { format: 'markdown' })).markdown ?? ''
  return page
}
