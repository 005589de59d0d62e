import { z } from 'zod'
import { webhookUrl } from '../../params/job.params.ts'
import { maxTokens, renderMode } from '../../params/page.params.ts'
import { flag, intBetween, maxAge } from '../../params/search.params.ts'
import { pathPatterns, sitemapMode, siteUrl } from '../../params/site.params.ts'

/** POST /v1/crawl (docs/crawl.md). */
export const CrawlParams = z.strictObject({
  url: siteUrl.describe('start page; always read'),
  limit: z
    .number({ error: 'limit must be an integer between 1 and 1,000' })
    .int('limit must be an integer between 1 and 1,000')
    .min(1, 'limit must be between 1 and 1,000')
    .max(1000, 'limit must be between 1 and 1,000')
    .optional()
    .describe('pages to read, 1 to 1,000 (default 25); this many credits are reserved'),
  max_depth: intBetween('max_depth', 0, 10).optional().describe('link hops, 0 to 10 (default 2); sitemap pages count as 1'),
  include_paths: pathPatterns('include_paths').optional().describe('follow only matching URL paths'),
  exclude_paths: pathPatterns('exclude_paths').optional().describe('never follow matching URL paths'),
  include_subdomains: flag('include_subdomains').optional(),
  sitemap: sitemapMode.optional().describe('include (default), only (start page and sitemap URLs, no links followed), skip'),
  query: z
    .string()
    .trim()
    .min(1, 'query must not be empty')
    .max(512, 'query must be at most 512 characters')
    .optional()
    .describe('best-first order by URL and link-text match'),
  ignore_query_parameters: flag('ignore_query_parameters').optional(),
  format: z.enum(['markdown', 'text'], { error: 'format must be markdown or text' }).optional(),
  include_links: flag('include_links').optional(),
  max_tokens: maxTokens.optional(),
  max_age: maxAge.optional().describe('accept cached pages up to this many seconds old, 0.5 credit each'),
  render: renderMode.optional(),
  webhook_url: webhookUrl.optional().describe('receives the signed crawl.completed event; default: the account webhook'),
})

export type CrawlParams = z.infer<typeof CrawlParams>
