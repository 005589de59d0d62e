import { z } from 'zod'

/** The /v1/search response for the OpenAPI document (format=json; compact and fields= trim it). */
const Sitelink = z.object({ title: z.string(), link: z.string() })

const OrganicResult = z.object({
  position: z.number().int(),
  title: z.string(),
  link: z.string(),
  domain: z.string(),
  displayed_link: z.string().optional(),
  snippet: z.string().optional(),
  date: z.string().optional(),
  sitelinks: z.array(Sitelink).optional(),
  content: z.string().optional().describe('with include_content: the page as Markdown'),
  content_error: z.object({ code: z.string(), message: z.string() }).optional(),
})

export const SearchMeta = z.object({
  request_id: z.string(),
  credits_used: z.number(),
  cached: z.boolean(),
  cached_at: z.string().optional(),
  engine: z.string(),
  route: z.array(z.record(z.string(), z.unknown())).describe('one entry per upstream attempt'),
  latency_ms: z.number().int(),
  parse_quality: z.enum(['ok', 'partial', 'empty']),
  resolved_urls: z.boolean(),
})

export const SearchResponse = z.object({
  request: z.record(z.string(), z.unknown()).describe('the normalised request, defaults filled in'),
  results: z.array(OrganicResult),
  people_also_ask: z.array(z.object({ question: z.string(), snippet: z.string().optional(), link: z.string().optional() })).optional(),
  related_searches: z.array(z.object({ query: z.string() })).optional(),
  knowledge_graph: z.record(z.string(), z.unknown()).optional(),
  answer_box: z.record(z.string(), z.unknown()).optional(),
  top_stories: z.array(z.record(z.string(), z.unknown())).optional(),
  places: z.array(z.record(z.string(), z.unknown())).optional(),
  ads: z.array(z.record(z.string(), z.unknown())).optional(),
  meta: SearchMeta,
})
