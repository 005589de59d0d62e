import { z } from 'zod'
import { describeEngines } from '../../engines/registry.ts'
import { BATCH_ENDPOINTS } from '../batches/batches.endpoints.ts'
import { MAX_MAX_TOKENS, MIN_MAX_TOKENS } from './mcp.pages.ts'

/**
 * Tool input and output schemas. Inputs bound each parameter as the REST API does and describe
 * only what its name and type do not say: tools/list is read by the model at every conversation
 * start (docs/mcp.md). The REST route validates again with its own schema, so a tool accepts
 * exactly what its REST twin accepts. Outputs type the top-level fields of `structuredContent`;
 * nested items are the REST items (loosely typed, named in a description).
 */

// ---- shared inputs -------------------------------------------------------------------------
// max_tokens, cursor, max_age, country, language and location mean the same in every tool: the
// server's instructions say so once (mcp.server.ts), rather than each tool's schema.

const maxTokens = z.number().int().min(MIN_MAX_TOKENS).max(MAX_MAX_TOKENS).optional()
const cursor = z.string().min(1).max(4096).optional()
const q = z.string().trim().min(1).max(2048)
const country = z
  .string()
  .regex(/^[A-Za-z]{2}$/)
  .optional()
const language = z
  .string()
  .regex(/^[A-Za-z]{2,3}(-[A-Za-z]{2}|-[A-Za-z]{4})?$/)
  .optional()
const location = z.string().trim().min(1).max(256).optional()
/** At most a year: the REST route says so. */
const maxAge = z.number().int().min(0).optional()
const time = z.enum(['hour', 'day', 'week', 'month', 'year']).optional()
const domainList = z.array(z.string().min(1).max(300)).min(1).max(20)
const pathPatterns = z.array(z.string().min(1).max(200)).max(20)
const webhookUrl = z
  .url({ protocol: /^https?$/ })
  .max(2048)
  .optional()
const waitSeconds = (fallback: number) => z.number().int().min(0).max(45).optional().describe(`default ${fallback}`)

export const SEARCH_VERTICALS = ['web', 'news', 'images', 'videos', 'places', 'maps', 'shopping', 'scholar', 'patents'] as const
export type SearchVertical = (typeof SEARCH_VERTICALS)[number]

// ---- inputs --------------------------------------------------------------------------------

export const SearchInput = z.strictObject({
  q,
  vertical: z.enum(SEARCH_VERTICALS).optional(),
  engine: z
    .string()
    .min(1)
    .max(200)
    .optional()
    .describe(
      `Provider: ${describeEngines()}; several comma-separated, tried in order; auto (falls back when one is blocked); consensus (web: several merged). web, news, images and videos only.`,
    ),
  country,
  language,
  location,
  num: z.literal([10, 20, 30, 50, 100]).optional(),
  page: z.number().int().min(1).max(10).optional(),
  time,
  safe: z.enum(['off', 'active']).optional(),
  device: z.enum(['desktop', 'mobile']).optional(),
  ll: z
    .string()
    .regex(/^@-?\d{1,2}(\.\d+)?,-?\d{1,3}(\.\d+)?,\d{1,2}(\.\d+)?z$/)
    .optional()
    .describe('maps: @lat,lng,zoomz'),
  include_domains: domainList.optional().describe('example.com, example.com/blog or .gov'),
  exclude_domains: domainList.optional(),
  max_age: maxAge,
  max_tokens: maxTokens,
  cursor,
})

const readingOptions = {
  format: z.enum(['markdown', 'text']).optional(),
  query: z.string().trim().min(1).max(4096).optional(),
  highlights: z.number().int().min(0).max(10).optional().describe('Passages best matching query, listed first'),
  max_age: maxAge,
  country: z
    .string()
    .regex(/^[A-Za-z]{2}$/)
    .optional()
    .describe('Fetch via this country'),
  timeout: z.number().int().min(1).max(40).optional().describe('Seconds (default 30)'),
  schema: z
    .record(z.string(), z.unknown())
    .optional()
    .describe("An object's JSON Schema, filled from each page by the operator's model: data, with basis (its passages)"),
  prompt: z.string().trim().min(1).max(2000).optional().describe('With schema: what to look for'),
  max_tokens: maxTokens,
  cursor,
}

export const WebpageInput = z.strictObject({
  url: z.string().min(1).max(8192),
  ...readingOptions,
})

export const ExtractInput = z.strictObject({
  urls: z.array(z.string().min(1).max(8192)).min(1).max(20),
  ...readingOptions,
})

export const MapInput = z.strictObject({
  url: z.string().min(1).max(2048).describe('Any page of the site'),
  search: z.string().trim().min(1).max(512).optional().describe('Keep URLs relevant to this'),
  limit: z.number().int().min(1).max(5000).optional(),
  sitemap: z.enum(['include', 'only', 'skip']).optional().describe('include: sitemaps and links; only: sitemaps; skip: links'),
  include_subdomains: z.boolean().optional(),
  include_paths: pathPatterns.optional().describe('Path regexes'),
  exclude_paths: pathPatterns.optional(),
  ignore_query_parameters: z.boolean().optional(),
  max_tokens: maxTokens,
  cursor,
})

export const CrawlInput = z.strictObject({
  url: z.string().min(1).max(2048),
  limit: z.number().int().min(1).max(1000).optional().describe('Most pages (default 25)'),
  max_depth: z.number().int().min(0).max(10).optional(),
  include_paths: pathPatterns.optional().describe('Path regexes'),
  exclude_paths: pathPatterns.optional(),
  include_subdomains: z.boolean().optional(),
  sitemap: z.enum(['include', 'only', 'skip']).optional().describe('include: sitemaps and links; only: sitemaps; skip: links'),
  query: z.string().trim().min(1).max(512).optional().describe('Read matching pages first'),
  ignore_query_parameters: z.boolean().optional(),
  format: z.enum(['markdown', 'text']).optional(),
  page_max_tokens: z.number().int().min(100).max(100_000).optional(),
  max_age: maxAge,
  webhook_url: webhookUrl,
  wait_seconds: waitSeconds(0),
})

export const CrawlResultInput = z.strictObject({
  id: z.string().min(1).max(64),
  wait_seconds: waitSeconds(15),
  max_tokens: maxTokens,
  cursor,
})

export const RankInput = z.strictObject({
  q: q.describe('keyword'),
  domain: z.string().trim().min(1).max(253).describe('Subdomains match'),
  num: z.literal([10, 20, 30, 50, 100]).optional().describe('default 100'),
  country,
  language,
  location,
  device: z.enum(['desktop', 'mobile']).optional(),
  max_age: maxAge,
})

export const BatchInput = z.strictObject({
  endpoint: z.enum(BATCH_ENDPOINTS),
  requests: z.array(z.record(z.string(), z.unknown())).min(1).max(100).describe('Each the endpoint\'s REST parameters, e.g. {"q":"tea"}'),
  webhook_url: webhookUrl,
})

export const BatchResultInput = z.strictObject({
  ids: z.array(z.string().min(1).max(64)).min(1).max(100),
  wait_seconds: waitSeconds(0),
  max_tokens: maxTokens,
  cursor,
})

export const MonitorCreateInput = z.strictObject({
  endpoint: z.enum(['search', 'news', 'webpage']).optional(),
  q: q.optional(),
  url: z.string().min(1).max(8192).optional(),
  interval: z.enum(['hourly', 'daily', 'weekly']).optional(),
  interval_seconds: z.number().int().min(3600).max(2_592_000).optional(),
  name: z.string().trim().min(1).max(200).optional(),
  active: z.boolean().optional(),
  webhook_url: webhookUrl,
  metadata: z.record(z.string(), z.unknown()).optional().describe('Echoed in webhooks'),
  country,
  language,
  location,
  time,
  num: z.number().int().min(1).max(100).optional(),
  device: z.enum(['desktop', 'mobile']).optional(),
  safe: z.enum(['off', 'active']).optional(),
  include_domains: domainList.optional(),
  exclude_domains: domainList.optional(),
  engine: z.string().min(1).max(200).optional().describe('As in search (search monitors)'),
})

export const MonitorListInput = z.strictObject({ max_tokens: maxTokens, cursor })

export const MonitorRunsInput = z.strictObject({
  id: z.string().min(1).max(64),
  limit: z.number().int().min(1).max(100).optional(),
  before: z.string().max(64).optional().describe('next_before, for older runs'),
  max_tokens: maxTokens,
  cursor,
})

export const AccountInput = z.strictObject({})

// ---- outputs -------------------------------------------------------------------------------
// Each types the answer's top-level fields. Nested items are the REST API's (docs/mcp.md names
// their fields) and typed loosely; every answer also carries request_id (the REST call's
// X-Request-Id) and, when billed, credits_used and credits_remaining, left untyped (loose
// objects) to keep tools/list small.

const str = z.string().nullable()
const int = z.number().int()
const paging = { offset: int, total: int, next_cursor: str }
const items = z.array(z.unknown())
const object = z.record(z.string(), z.unknown())

export const SearchOutput = z.looseObject({
  vertical: z.string(),
  query: z.string(),
  engine: str,
  cached: z.boolean(),
  parse_quality: str,
  results: items,
  extras: object.nullable(),
  ...paging,
})

export const WebpageOutput = z.looseObject({
  pages: items,
  ...paging,
  empty_page: z.boolean(),
  data: object.nullable().optional(),
  basis: object.nullable().optional(),
})

export const ExtractOutput = z.looseObject({ pages: items, ...paging, failed: items, succeeded: int, extracted: items.optional() })

export const MapOutput = z.looseObject({ url: z.string(), results: items, ...paging })

const crawlState = { id: z.string(), status: z.string(), progress: object, credits_used: z.number(), error: object.nullable() }

export const CrawlOutput = z.looseObject({ ...crawlState, credits_reserved: z.number() })

export const CrawlResultOutput = z.looseObject({ ...crawlState, stats: object.nullable(), failed: items, pages: items, ...paging })

export const RankOutput = z.looseObject({ query: z.string(), domain: z.string(), position: int.nullable(), matches: items, checked: int })

export const BatchOutput = z.looseObject({ endpoint: z.string(), jobs: items, queued: int, refused: int })

export const BatchResultOutput = z.looseObject({ jobs: items, done: int, pending: int, ...paging })

export const MonitorCreateOutput = z.looseObject({ monitor: object })

export const MonitorListOutput = z.looseObject({ monitors: items, ...paging })

export const MonitorRunsOutput = z.looseObject({ monitor_id: z.string(), runs: items, next_before: str, ...paging })

export const AccountOutput = z.looseObject({ balance: z.number(), plan: z.string() })
