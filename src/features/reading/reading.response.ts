import { z } from 'zod'
import { PageResult } from '../../reader/page.schema.ts'

/** /v1/extract and /v1/webpage responses: the OpenAPI document and the routes' reply schemas. */
export const PageFailure = z.object({
  url: z.string(),
  error: z.object({ code: z.enum(['invalid_request', 'upstream_error', 'upstream_timeout', 'empty_page']), message: z.string() }),
})

export const ExtractResponse = z.object({
  request: z.record(z.string(), z.unknown()),
  results: z.array(PageResult),
  failed: z.array(PageFailure),
  meta: z.object({
    request_id: z.string(),
    credits_used: z.number(),
    latency_ms: z.number().int(),
    succeeded: z.number().int(),
    failed: z.number().int(),
    rendered: z.number().int().describe('results drawn by the headless browser'),
  }),
})

export const WebpageResponse = PageResult.extend({
  meta: z.object({
    request_id: z.string(),
    credits_used: z.number(),
    latency_ms: z.number().int(),
    rendered: z.boolean().describe('the page was drawn by the headless browser (render)'),
    empty_page: z.literal(true).optional().describe('no readable content was found; not billed'),
  }),
})

export type PageFailure = z.infer<typeof PageFailure>
export type ExtractResponse = z.infer<typeof ExtractResponse>
export type WebpageResponse = z.infer<typeof WebpageResponse>
