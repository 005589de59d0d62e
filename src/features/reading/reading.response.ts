import { z } from 'zod'
import { BasisEntry, ModelUsage } from '../../llm/model.schema.ts'
import { PageResult } from '../../reader/page.schema.ts'

/** With `schema`: what the model filled in, checked against it, and where each field came from. */
const Extracted = {
  data: z.record(z.string(), z.unknown()).optional().describe('with schema: an object valid against it'),
  basis: z
    .record(z.string(), z.array(BasisEntry))
    .optional()
    .describe('with schema: per filled top-level field of data, the passages of the page it came from'),
}
const ExtractedPage = PageResult.extend(Extracted)

/** /v1/extract and /v1/webpage responses: the OpenAPI document and the routes' reply schemas. */
export const PageFailure = z.object({
  url: z.string(),
  error: z.object({ code: z.enum(['invalid_request', 'upstream_error', 'upstream_timeout', 'empty_page']), message: z.string() }),
})

export const ExtractResponse = z.object({
  request: z.record(z.string(), z.unknown()),
  results: z.array(ExtractedPage),
  failed: z.array(PageFailure),
  meta: z.object({
    request_id: z.string(),
    credits_used: z.number(),
    latency_ms: z.number().int(),
    succeeded: z.number().int(),
    failed: z.number().int(),
    rendered: z.number().int().describe('results drawn by the headless browser'),
    model: ModelUsage.optional().describe('with schema: the model calls made for all pages'),
  }),
})

export const WebpageResponse = ExtractedPage.extend({
  meta: z.object({
    request_id: z.string(),
    credits_used: z.number(),
    latency_ms: z.number().int(),
    rendered: z.boolean().describe('the page was drawn by the headless browser (render)'),
    empty_page: z.literal(true).optional().describe('no readable content was found; not billed'),
    model: ModelUsage.optional().describe('with schema: the model calls made'),
  }),
})

export type PageFailure = z.infer<typeof PageFailure>
export type ExtractResponse = z.infer<typeof ExtractResponse>
export type WebpageResponse = z.infer<typeof WebpageResponse>
