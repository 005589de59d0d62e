import type { Highlight } from '../../reader/reading.types.ts'
import { inline, link, paragraph, plain } from '../../text/markdown.text.ts'
import { MARKDOWN_VERTICALS, renderMarkdown, type Vertical } from '../search/output/output.ts'
import { splitBlocks } from './mcp.pages.ts'

/**
 * Markdown for tool answers. Page text is third-party content, so titles and one-line fields go
 * through the search output's escaping (a title cannot become a heading or a link of its own);
 * page bodies are the reader's own Markdown, passed on as read.
 */

/** One read page (webpage, extract, a crawl page): what is said about it, without its text. */
export interface Doc {
  url: string
  title: string | null
  published_at: string | null
  status_code: number | null
  cached: boolean | null
  depth: number | null
  highlights: Highlight[] | null
}

/** Pages as a list of blocks (at most ~1,500 characters each) that answers are cut between. */
export interface DocListing {
  docs: Doc[]
  blocks: { doc: number; text: string }[]
}

type Json = Record<string, unknown>

const str = (v: unknown) => (typeof v === 'string' ? v : null)
const int = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : null)

/** From REST page objects (extract results, the webpage body, crawl result pages). */
export function docListing(pages: readonly Json[]): DocListing {
  const docs: Doc[] = []
  const blocks: DocListing['blocks'] = []
  pages.forEach((page, i) => {
    docs.push({
      url: str(page.url) ?? '',
      title: str(page.title),
      published_at: str(page.published_at),
      status_code: int(page.status_code),
      cached: typeof page.cached === 'boolean' ? page.cached : null,
      depth: int(page.depth),
      highlights: Array.isArray(page.highlights) ? (page.highlights as Highlight[]) : null,
    })
    const content = str(page.markdown) ?? str(page.text) ?? str(page.html) ?? ''
    const parts = splitBlocks(content)
    for (const text of parts.length > 0 ? parts : ['(no readable text on this page)']) blocks.push({ doc: i, text })
  })
  return { docs, blocks }
}

export interface DocPart extends Doc {
  part: 'whole' | 'start' | 'middle' | 'end'
  content: string
}

/** Blocks [from, to) as Markdown (a page cut in two says so) and as structured parts. */
export function renderDocs(listing: DocListing, from: number, to: number): { text: string; parts: DocPart[] } {
  const first = new Map<number, number>()
  const last = new Map<number, number>()
  listing.blocks.forEach((b, i) => {
    if (!first.has(b.doc)) first.set(b.doc, i)
    last.set(b.doc, i)
  })
  const groups: { doc: number; start: number; end: number }[] = []
  for (let i = from; i < Math.min(to, listing.blocks.length); i++) {
    const b = listing.blocks[i]!
    const g = groups.at(-1)
    if (g && g.doc === b.doc) g.end = i
    else groups.push({ doc: b.doc, start: i, end: i })
  }
  const texts: string[] = []
  const parts: DocPart[] = []
  for (const g of groups) {
    const doc = listing.docs[g.doc]!
    const starts = g.start === first.get(g.doc)
    const ends = g.end === last.get(g.doc)
    const part = starts && ends ? 'whole' : starts ? 'start' : ends ? 'end' : 'middle'
    const content = listing.blocks
      .slice(g.start, g.end + 1)
      .map((b) => b.text)
      .join('\n\n')
    const heading = `## ${link(doc.title || doc.url, doc.url) || inline(doc.url)}${starts ? '' : ' (continued)'}`
    const facts = starts
      ? [
          `URL: ${inline(doc.url)}`,
          doc.published_at ? `Published: ${inline(doc.published_at)}` : '',
          doc.depth != null ? `Depth: ${doc.depth}` : '',
          doc.cached ? 'From cache' : '',
        ]
          .filter(Boolean)
          .join(' · ')
      : ''
    const highlights =
      starts && doc.highlights?.length
        ? `Best passages:\n${doc.highlights.map((h) => `> ${paragraph(h.text)}${h.heading ? ` (${inline(h.heading)})` : ''}`).join('\n>\n')}`
        : ''
    const tail = ends ? '' : '\n\n(this page continues on the next page of the answer)'
    texts.push([heading, facts, highlights, content].filter(Boolean).join('\n\n') + tail)
    parts.push({ ...doc, highlights: starts ? doc.highlights : null, part, content })
  }
  return { text: texts.join('\n\n'), parts }
}

/**
 * "pages 2–4 of 9": which documents blocks [from, to) touch, and whether the last is cut ("page 1
 * of 1, in part"). A range past the last block (an extract where no page could be read has none)
 * touches nothing.
 */
export function docRange(listing: DocListing, from: number, until: number): string {
  const to = Math.min(until, listing.blocks.length)
  if (to <= from) return `0 of ${listing.docs.length} pages`
  const a = listing.blocks[from]!.doc + 1
  const b = listing.blocks[to - 1]!.doc + 1
  const cut = from > 0 && listing.blocks[from - 1]!.doc + 1 === a ? ' (continued)' : ''
  const part = to < listing.blocks.length && listing.blocks[to]!.doc + 1 === b ? ', in part' : ''
  return `${a === b ? `page ${a}` : `pages ${a}–${b}`} of ${listing.docs.length}${cut}${part}`
}

/** A search vertical's name in the output layer: web search is `search` there. */
export const outputVertical = (v: string): Vertical => (v === 'web' ? 'search' : v) as Vertical

/** Extra blocks a search body may carry besides results (shown with the first page only). */
export const SEARCH_EXTRAS = ['answer_box', 'knowledge_graph', 'people_also_ask', 'related_searches', 'top_stories', 'places', 'ads', 'next_page_token']

/**
 * A search body's results [from, to) as the REST format=markdown layout renders them. The first
 * page keeps the answer box, knowledge graph and the other blocks; later pages are read from the
 * kept answer and cost nothing, which their footer says.
 */
export function renderSearchPage(vertical: string, body: Json, from: number, to: number): string {
  const results = Array.isArray(body.results) ? body.results.slice(from, to) : []
  const meta = (body.meta ?? {}) as Json
  const shown =
    from === 0 ? { ...body, results } : { request: body.request ?? {}, results, meta: { ...meta, credits_used: 0, cached: false, cached_at: undefined } }
  return renderMarkdown(outputVertical(vertical), shown as { request: object; results: unknown[]; meta: object }).trimEnd()
}

/** A finished batch job's result, for reading: Markdown where the REST API has a layout, else JSON. */
export function renderJobResult(endpoint: string, result: unknown): string {
  if (typeof result === 'string') return result.trim() // the job asked for format=markdown
  const name = endpoint.replace(/^\/v1\//, '')
  if (result && typeof result === 'object') {
    const body = result as Json
    if (name === 'webpage') {
      const { text } = renderDocs(docListing([body]), 0, Number.POSITIVE_INFINITY)
      return text
    }
    if (MARKDOWN_VERTICALS.has(name as Vertical) && Array.isArray(body.results)) {
      return renderMarkdown(name as Vertical, body as { request: object; results: unknown[]; meta: object }).trimEnd()
    }
  }
  return `\`\`\`json\n${JSON.stringify(result)}\n\`\`\``
}

/** One monitor run's new results, briefly: a search result per line, a changed page with its text. */
export function renderRunResults(results: readonly Json[]): string {
  return results
    .map((r, i) => {
      if (typeof r.change === 'string') {
        const md = str(r.markdown) ?? ''
        return `${i + 1}. Page ${inline(r.change)}: ${link(r.title || r.url, r.url)}\n\n${md}`
      }
      const snippet = str(r.snippet)
      return `${i + 1}. ${link(r.title || r.link, r.link) || inline(r.title)}${r.date ? ` — ${inline(r.date)}` : ''}${snippet ? `\n   ${inline(snippet)}` : ''}`
    })
    .join('\n')
}

/** What schema extraction returned for one page: the data, and the passages each field came from. */
export interface Extracted {
  url: string
  title: string | null
  data: Json | null
  basis: Record<string, { n: number; text: string }[]> | null
}

/** A basis passage as one short quoted line: enough to check a field, not the page again. */
const quote = (text: string) => {
  const line = plain(text)
  return `“${inline(line.length > 160 ? `${line.slice(0, 157)}…` : line)}”`
}

/** Extracted data as a JSON block with, under it, each field's sources quoted (`many`: a heading per page). */
export function renderExtracted(entries: readonly Extracted[], many: boolean): string {
  return entries
    .map((e) => {
      const heading = many ? `## Data from ${link(e.title || e.url, e.url) || inline(e.url)}` : '## Data'
      const basis = Object.entries(e.basis ?? {})
        .filter(([, sources]) => sources.length > 0)
        .map(([field, sources]) => `- ${inline(field)}: ${sources.map((s) => `[${s.n}] ${quote(s.text)}`).join(' ')}`)
      return [heading, `\`\`\`json\n${JSON.stringify(e.data, null, 2)}\n\`\`\``, basis.length ? `Basis (passages of the page):\n${basis.join('\n')}` : '']
        .filter(Boolean)
        .join('\n\n')
    })
    .join('\n\n')
}
