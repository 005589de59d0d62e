import { z } from 'zod'
import { flag } from '../../params/search.params.ts'
import { pathPatterns, sitemapMode, siteUrl } from '../../params/site.params.ts'

/** The body of POST /v1/map. */
export const MapParams = z.strictObject({
  url: siteUrl.describe('any page of the site; sitemaps are read from its origin'),
  search: z
    .string()
    .trim()
    .min(1, 'search must not be empty')
    .max(512, 'search must be at most 512 characters')
    .optional()
    .describe('keep only relevant URLs, most relevant first (BM25)'),
  limit: z
    .number({ error: 'limit must be an integer between 1 and 5,000' })
    .int('limit must be an integer between 1 and 5,000')
    .min(1, 'limit must be between 1 and 5,000')
    .max(5000, 'limit must be between 1 and 5,000')
    .optional()
    .describe('1 to 5,000; default 100'),
  sitemap: sitemapMode.optional().describe('include (default: sitemaps and start-page links), only, skip'),
  include_subdomains: flag('include_subdomains').optional(),
  include_paths: pathPatterns('include_paths').optional().describe('regular expressions on the URL path; keep only matching'),
  exclude_paths: pathPatterns('exclude_paths').optional().describe('regular expressions on the URL path; never keep matching'),
  ignore_query_parameters: flag('ignore_query_parameters').optional().describe('URLs differing only in query string count as one'),
})

export type MapParams = z.infer<typeof MapParams>
