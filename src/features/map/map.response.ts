import { z } from 'zod'

/** POST /v1/map's answer, for the OpenAPI document. */
export const MapResponse = z.object({
  request: z.record(z.string(), z.unknown()).describe('url, limit, sitemap, include_subdomains and the filters sent'),
  results: z.array(
    z.object({
      url: z.string(),
      title: z.string().optional().describe('when known (a link text or feed title)'),
      lastmod: z.string().optional().describe('as written in the sitemap'),
      source: z.enum(['sitemap', 'page']),
    }),
  ),
  meta: z.object({ request_id: z.string(), credits_used: z.number(), latency_ms: z.number().int(), count: z.number().int() }),
})

export type MapResponse = z.infer<typeof MapResponse>
