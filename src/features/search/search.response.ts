import { z } from 'zod'
import { OrganicResult, ParseQuality, SearchSections } from '../../engines/results.schema.ts'

/**
 * The /v1/search response (format=json): the one definition of these shapes. The OpenAPI document
 * is generated from it and the TypeScript types are inferred from it (engines/engine.types.ts). Item
 * fields are required and nullable: format=json sends every one, null when unknown, [] for an empty
 * list (output/stable-shape.ts). Optional keys are the ones that may be absent on purpose.
 * format=compact and fields= trim it.
 */
export const SearchMeta = z.object({
  request_id: z.string(),
  credits_used: z.number(),
  cached: z.boolean(),
  cached_at: z.string().optional().describe('present for cached results'),
  engine: z.string(),
  route: z
    .array(z.record(z.string(), z.unknown()))
    .describe(
      'one entry per upstream attempt: engine, host, status, outcome (ok, blocked, timeout, error, or skipped for a provider auto/consensus passed over), reason, ms',
    ),
  providers: z
    .record(z.string(), z.number().int())
    .optional()
    .describe('engine=consensus: each provider that returned results, with its result count (one page billed each)'),
  latency_ms: z.number().int(),
  parse_quality: ParseQuality,
  resolved_urls: z.boolean(),
})

export const SearchResponse = z.object({
  request: z.record(z.string(), z.unknown()).describe('the normalised request, defaults filled in'),
  results: z.array(OrganicResult),
  ...SearchSections.shape,
  meta: SearchMeta,
})

export type SearchResponse = z.infer<typeof SearchResponse>
