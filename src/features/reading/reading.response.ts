import { z } from 'zod'

/** /v1/extract and /v1/webpage responses (SPEC "Extract"), for the OpenAPI document. */
const PageResult = z.object({
  url: z.string().describe('final URL, after redirects'),
  status_code: z.number().int(),
  title: z.string().nullable(),
  published_at: z.string().nullable(),
  metadata: z.record(z.string(), z.unknown()).describe('description, author, language, site_name, canonical_url, open_graph, twitter, json_ld_type'),
  cached: z.boolean(),
  cached_at: z.string().optional(),
  markdown: z.string().optional(),
  text: z.string().optional(),
  html: z.string().optional(),
  links: z.array(z.object({ url: z.string(), text: z.string() })).optional(),
  images: z.array(z.string()).optional(),
  highlights: z.array(z.object({ text: z.string(), score: z.number(), heading: z.string().nullable() })).optional(),
})

const Failure = z.object({
  url: z.string(),
  error: z.object({ code: z.enum(['invalid_request', 'upstream_error', 'upstream_timeout', 'empty_page']), message: z.string() }),
})

export const ExtractResponse = z.object({
  request: z.record(z.string(), z.unknown()),
  results: z.array(PageResult),
  failed: z.array(Failure),
  meta: z.object({ request_id: z.string(), credits_used: z.number(), latency_ms: z.number().int(), succeeded: z.number().int(), failed: z.number().int() }),
})

export const WebpageResponse = PageResult.extend({
  meta: z.record(z.string(), z.unknown()),
})
