/**
 * format=markdown: one readable document per response, for a person and for a model's context window alike.
 * Every layout opens with a heading naming the query and closes with a footer saying who answered and what it
 * cost, so a pasted excerpt still says where it came from.
 */
import { ApiError } from '../../../errors.ts'
import { inline, joinParts, object, plain } from '../../../text/markdown.text.ts'
import { renderSearchBlocks } from './markdown.search.ts'
import {
  type BlockRenderer,
  renderImageBlocks,
  renderNewsBlocks,
  renderPatentBlocks,
  renderPlaceBlocks,
  renderReviewBlocks,
  renderScholarBlocks,
  renderShoppingBlocks,
  renderVideoBlocks,
} from './markdown.verticals.ts'
import { endpointPath, type JsonObject, type OutputFormat, type Vertical } from './output.types.ts'

type MarkdownVertical = Exclude<Vertical, 'autocomplete' | 'lens'>

const LAYOUTS: Record<MarkdownVertical, { label: string; render: BlockRenderer }> = {
  search: { label: 'Search', render: renderSearchBlocks },
  news: { label: 'News', render: renderNewsBlocks },
  images: { label: 'Images', render: renderImageBlocks },
  videos: { label: 'Videos', render: renderVideoBlocks },
  maps: { label: 'Maps', render: renderPlaceBlocks },
  places: { label: 'Places', render: renderPlaceBlocks },
  shopping: { label: 'Shopping', render: renderShoppingBlocks },
  scholar: { label: 'Scholar', render: renderScholarBlocks },
  patents: { label: 'Patents', render: renderPatentBlocks },
  reviews: { label: 'Reviews', render: renderReviewBlocks },
}

/** Verticals that have a Markdown layout. Autocomplete (a list of strings) and lens (JSON only) do not. */
export const MARKDOWN_VERTICALS: ReadonlySet<Vertical> = new Set(Object.keys(LAYOUTS) as MarkdownVertical[])

/** Throws `invalid_request` when `format` is not offered on `vertical`; call it before doing any upstream work. */
export function assertFormatAllowed(vertical: Vertical, format: OutputFormat): void {
  if (format !== 'markdown' || MARKDOWN_VERTICALS.has(vertical)) return
  const instead = vertical === 'lens' ? 'it returns JSON only' : 'use json or compact'
  throw new ApiError('invalid_request', `format=markdown is not available on ${endpointPath(vertical)}; ${instead}`)
}

/** The whole Markdown document for a response body. Throws `invalid_request` on a vertical without Markdown. */
export function renderMarkdown(vertical: Vertical, body: JsonObject): string {
  assertFormatAllowed(vertical, 'markdown')
  const layout = LAYOUTS[vertical as MarkdownVertical]
  const request = object(body.request) ?? {}
  const blocks = layout.render(body)
  return `${[
    heading(layout.label, request),
    context(request),
    ...(blocks.length > 0 ? blocks : ['No results.']),
    '---', // a rule after a blank line: directly under a paragraph it would turn that paragraph into a heading
    footer(object(body.meta) ?? {}),
  ]
    .filter(Boolean)
    .join('\n\n')}\n`
}

function heading(label: string, request: JsonObject): string {
  const query = inline(request.q)
  return query ? `# ${label}: ${query}` : `# ${label}`
}

/** The request details that change what the results mean; defaults (page 1, no location) are not repeated. */
function context(request: JsonObject): string {
  const page = typeof request.page === 'number' && request.page > 1 ? `Page ${request.page}` : ''
  const location = inline(request.location)
  const sortKey = plain(request.sort)
  const sort = sortKey === 'most_relevant' ? '' : inline(sortKey.replace(/_/g, ' ')) // reviews: lowest_rating -> "lowest rating"
  return joinParts([location ? `Location: ${location}` : '', page, sort ? `Sorted by ${sort}` : ''])
}

function footer(meta: JsonObject): string {
  const credits = typeof meta.credits_used === 'number' ? `Credits used: ${meta.credits_used}` : ''
  const cachedAt = plain(meta.cached_at)
  const cached = meta.cached === true ? `Cached: yes${cachedAt ? `, from ${inline(cachedAt)}` : ''}` : 'Cached: no'
  const partial = meta.parse_quality === 'partial' ? 'Partial: some parts of the page could not be parsed' : ''
  return joinParts([plain(meta.engine) ? `Engine: ${inline(meta.engine)}` : '', credits, cached, partial])
}
