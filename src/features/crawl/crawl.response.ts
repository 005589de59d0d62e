import { z } from 'zod'

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
      pages: z
        .array(z.record(z.string(), z.unknown()))
        .describe('url, depth, title, markdown or text, published_at, metadata, rendered (drawn by the headless browser), links'),
      failed: z.array(z.object({ url: z.string(), error: z.object({ code: z.string(), message: z.string() }) })),
      stats: z
        .record(z.string(), z.unknown())
        .describe('pages, failed, seconds, discovered, queued, duplicates, sitemap_urls, robots, robots_disallowed, robots_blocked, crawl_delay_ms, stopped'),
    })
    .nullable(),
  error: z.object({ code: z.string(), message: z.string() }).nullable(),
})

export type CrawlTask = z.infer<typeof CrawlTask>
