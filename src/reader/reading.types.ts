/**
 * Shapes of the page-reading core shared by /v1/webpage, /v1/extract, crawl and monitors. The ones
 * sent to callers are inferred from page.schema.ts, their one definition.
 */
import type { z } from 'zod'
import type * as R from './page.schema.ts'

export type ReadFormat = 'markdown' | 'text' | 'html'
export type ReadContentType = 'html' | 'xhtml' | 'pdf' | 'text'

export interface ReadInput {
  /** Final URL of the page (after redirects): links and images are resolved against it. */
  url: string
  contentType: ReadContentType
  body: Buffer
  /** Decoded text for html/xhtml/text (safeFetch supplies it); decoded from `body` when absent. */
  text?: string
}

export interface ReadOptions {
  format: ReadFormat
  includeLinks?: boolean
  includeImages?: boolean
  /** Trims the returned content (not title or metadata) to this many o200k tokens. */
  maxTokens?: number
  /** Ranking target for highlights. */
  query?: string
  /** Number of passages to return (0-10); needs `query`. */
  highlights?: number
}

export type PageMetadata = z.infer<typeof R.PageMetadata>
export type Highlight = z.infer<typeof R.Highlight>
export type ReadLink = z.infer<typeof R.ReadLink>
/** The wire shape of one read page: an item of extract `results[]`, and the body of /v1/webpage. */
export type PageResult = z.infer<typeof R.PageResult>

export interface ReadResult {
  title: string | null
  published_at: string | null
  metadata: PageMetadata
  markdown?: string
  text?: string
  html?: string
  /**
   * Links inside the main content (what the reader returned), absolute, http(s) only, first
   * occurrence kept, fragments to the page itself dropped. Navigation links are not included:
   * use /v1/map for those.
   */
  links?: ReadLink[]
  /** Image URLs inside the main content, absolute, deduplicated, data: URLs dropped. */
  images?: string[]
  highlights?: Highlight[]
  /** o200k tokens of the returned content after trimming. */
  tokens: number
  trimmed: boolean
  /**
   * True when no readable content was found (blank page, script-only shell, empty PDF): the
   * content field is then ''. The route reports this as `empty_page`, not as an error here.
   */
  empty: boolean
}
