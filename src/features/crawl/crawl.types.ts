import type { CrawlParams } from './crawl.schema.ts'

/** What the service (queueing, canceling) and the worker (running) share, so neither imports the other. */

/** The job kind's name: what `wakeJobs(signals, CRAWL_JOB)` wakes. */
export const CRAWL_JOB = 'crawl'
export const CRAWL_RESULT_TTL_MS = 24 * 3600_000

/** The request as stored and echoed: defaults filled in. */
export type CrawlRequest = ReturnType<typeof normaliseCrawl>

export function normaliseCrawl(p: CrawlParams) {
  return {
    url: p.url,
    limit: p.limit ?? 25,
    max_depth: p.max_depth ?? 2,
    include_paths: p.include_paths ?? [],
    exclude_paths: p.exclude_paths ?? [],
    include_subdomains: p.include_subdomains ?? false,
    sitemap: p.sitemap ?? 'include',
    query: p.query,
    ignore_query_parameters: p.ignore_query_parameters ?? false,
    format: p.format ?? 'markdown',
    include_links: p.include_links ?? false,
    max_tokens: p.max_tokens,
    max_age: p.max_age,
    render: p.render ?? 'auto',
  }
}
