import { z } from 'zod'
import { ErrorObject } from '../../http/error-schema.ts'
import { PageMetadata, ReadLink } from '../../reader/page.schema.ts'

/** One page a crawl read, as the result lists it. */
export const CrawlPage = z.object({
  url: z.string().describe('final URL, after redirects'),
  depth: z.number().int().describe('links followed from the start page to reach it; URLs from the sitemaps count as 1'),
  title: z.string().nullable(),
  markdown: z.string().optional().describe('format=markdown (the default)'),
  text: z.string().optional().describe('format=text'),
  published_at: z.string().nullable(),
  metadata: PageMetadata,
  rendered: z.boolean().describe('drawn by the headless browser (render) rather than read from the static HTML'),
  links: z.array(ReadLink).optional().describe("with include_links: the links of the page's content"),
})

export const CrawlStats = z.object({
  pages: z.number().int().describe('pages read'),
  failed: z.number().int().describe('pages that could not be read'),
  seconds: z.number().describe('how long the crawl ran, to a tenth of a second'),
  discovered: z.number().int().describe('distinct URLs of the site found (the start page, links, sitemaps)'),
  queued: z.number().int().describe('URLs found but left unread when the crawl stopped'),
  duplicates: z.number().int().describe('URLs found again, and redirects to a page already read'),
  sitemap_urls: z.number().int().describe('URLs first found in the sitemaps'),
  robots: z.string().describe('how robots.txt answered: found, not_found (…), error (…) or unreachable (…)'),
  robots_disallowed: z.number().int().describe('URLs robots.txt disallowed, not read'),
  robots_blocked: z.boolean().describe('robots.txt answered an error or could not be reached: only the start page was read'),
  crawl_delay_ms: z.number().nullable().describe("robots.txt's Crawl-delay, when it set one"),
  stopped: z
    .enum(['done', 'limit', 'time_limit', 'size_limit', 'too_many_failures', 'canceled'])
    .describe('why the crawl ended: nothing left to read, limit pages read, the time or size cap, too many failures, or DELETE'),
})

/** A crawl task, for the OpenAPI document. */
export const CrawlTask = z.object({
  id: z.string(),
  kind: z.literal('crawl'),
  status: z.enum(['queued', 'running', 'completed', 'failed', 'canceled']),
  created_at: z.string().nullable(),
  started_at: z.string().nullable(),
  completed_at: z.string().nullable(),
  credits_reserved: z.number().describe('= limit'),
  credits_used: z.number(),
  webhook_status: z.enum(['pending', 'delivered', 'failed']).nullable(),
  progress: z.object({
    pages_done: z.number().int(),
    pages_failed: z.number().int(),
    pages_queued: z.number().int(),
    pages_discovered: z.number().int(),
    limit: z.number().int(),
  }),
  result: z
    .object({
      url: z.string(),
      pages: z.array(CrawlPage).describe('in the order they were read'),
      failed: z.array(z.object({ url: z.string(), error: ErrorObject })),
      stats: CrawlStats,
    })
    .nullable(),
  error: ErrorObject.nullable(),
})

export type CrawlTask = z.infer<typeof CrawlTask>
export type CrawlPage = z.infer<typeof CrawlPage>
export type CrawlStats = z.infer<typeof CrawlStats>
