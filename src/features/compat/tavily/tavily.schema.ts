import { z } from 'zod'
import { ApiError } from '../../../errors.ts'
import { parseWith } from '../../../http/parse-input.ts'
import { intBetween } from '../../../params/search.params.ts'

/**
 * Request bodies of Tavily's API (POST /search, /extract, /map, /crawl) as its clients send them:
 * every field @tavily/core, tavily-python, langchain-tavily and tavily-mcp send is read by its
 * Tavily name. As Tavily's own server, fields it does not know are ignored (clients add their own,
 * such as client_source): the answer names them in X-Trawl-Ignored-Parameters. A known field of
 * the wrong type or out of range is a 400. The key may come as `api_key` in the body (read by the
 * app's key check). Limits are Trawl's where they are tighter than Tavily's (20 domains, 20 URLs).
 */

const flag = (name: string) => z.boolean({ error: `${name} must be true or false` })
const seconds = (name: string, max: number) =>
  z
    .number({ error: `${name} must be a number of seconds` })
    .min(0, `${name} must be 0 or more`)
    .max(max, `${name} must be at most ${max}`)
const text = (name: string, max: number) =>
  z
    .string({ error: `${name} must be a string` })
    .trim()
    .min(1, `${name} must not be empty`)
    .max(max, `${name} must be at most ${max} characters`)
const date = (name: string) => z.string({ error: `${name} must be a date` }).regex(/^\d{4}-\d{2}-\d{2}$/, `${name} must be a date like 2025-01-31`)
const list = (name: string, max: number, item = z.string().min(1).max(256)) =>
  z.array(item, { error: `${name} must be a list of strings` }).max(max, `${name} may list at most ${max} entries`)

/** The key, when a client sends it in the body; the app's key check reads it, parameters never do. */
const apiKey = z.string().max(256).optional()
/** What LangChain's JS tools add to every body. */
const clientSource = z.string().max(64).optional().describe('accepted; no effect')
/** What every body may carry beside its own fields, last: the key and the client's name. */
const clientFields = { api_key: apiKey, client_source: clientSource }
const includeUsage = flag('include_usage').optional().describe('usage.credits: the credits this call cost')

export const TavilySearchParams = z
  .object({
    query: text('query', 2048).describe('the query'),
    search_depth: z
      .enum(['basic', 'advanced', 'fast', 'ultra-fast'], { error: 'search_depth must be basic, advanced, fast or ultra-fast' })
      .optional()
      .describe(
        'basic, fast and ultra-fast: one search, result snippets as content. advanced: the result pages are read too (+1 credit per page) and content holds their chunks most relevant to the query',
      ),
    topic: z
      .enum(['general', 'news', 'finance'], { error: 'topic must be general, news or finance' })
      .optional()
      .describe('general (default) and finance search the web (Trawl /v1/search); news searches news (Trawl /v1/news)'),
    max_results: intBetween('max_results', 0, 20)
      .optional()
      .describe('0 to 20 results (default 5): up to 10 is one page of 10 (1 credit), up to 20 two pages (2 credits)'),
    chunks_per_source: intBetween('chunks_per_source', 1, 3).optional().describe('with search_depth advanced: chunks per result (default 3)'),
    time_range: z
      .enum(['day', 'week', 'month', 'year', 'd', 'w', 'm', 'y'], { error: 'time_range must be day, week, month or year' })
      .optional()
      .describe("only results from the last day, week, month or year (Trawl's time)"),
    days: intBetween('days', 1, 3650).optional().describe('only results from the last n days (rounded up to day, week, month or year)'),
    max_hours: intBetween('max_hours', 1, 87_600).optional().describe('only results from the last n hours (rounded up to hour, day, week, month or year)'),
    start_date: date('start_date').optional().describe('YYYY-MM-DD: only results published from then (a date range for the engine)'),
    end_date: date('end_date').optional().describe('YYYY-MM-DD: only results published until then'),
    include_answer: z
      .union([z.boolean(), z.enum(['basic', 'advanced'])], { error: 'include_answer must be true, false, basic or advanced' })
      .optional()
      .describe(
        "with the operator's model (TRAWL_LLM_URL): a short answer it writes from the results' content (basic, true: up to 3 sentences; advanced: up to 8), each sentence citing [n] = results[n-1], +1 model call; without one, or when the call fails (not billed): extractive, the sentence (basic, true) or three sentences (advanced) of the results that best match the query by BM25; null when nothing answers",
      ),
    include_raw_content: z
      .union([z.boolean(), z.enum(['markdown', 'text'])], { error: 'include_raw_content must be true, false, markdown or text' })
      .optional()
      .describe('read each result page (+1 credit per page read, at most 10) and return it as Markdown in raw_content, up to 4,000 tokens'),
    include_images: flag('include_images').optional().describe('also search images for the query (Trawl /v1/images, 1 credit)'),
    include_image_descriptions: flag('include_image_descriptions').optional().describe('with include_images: each image with the title of its page'),
    include_favicon: flag('include_favicon').optional().describe("each result's site /favicon.ico address (not checked)"),
    include_usage: includeUsage,
    include_domains: list('include_domains', 20).optional().describe('up to 20 domains to keep'),
    exclude_domains: list('exclude_domains', 20).optional().describe('up to 20 domains to drop'),
    include_domains_mode: z.string().max(32).optional().describe('accepted; no effect'),
    country: text('country', 64).optional().describe('a country name (united states) or two-letter code: results as searched from there'),
    language: text('language', 16).optional().describe('language code of the results, e.g. en or pt-BR'),
    filter_by_language: flag('filter_by_language').optional().describe('accepted; no effect'),
    exact_match: flag('exact_match').optional().describe('search the query as one quoted phrase'),
    auto_parameters: flag('auto_parameters').optional().describe('accepted; no effect (parameters are never chosen for you)'),
    fetch_timeout: seconds('fetch_timeout', 120).optional().describe('accepted; page reads have their own deadline'),
    cache_fallback: flag('cache_fallback').optional().describe('accepted; no effect'),
    timeout: seconds('timeout', 120).optional().describe('accepted; no effect'),
    ...clientFields,
  })
  .meta({ examples: [{ query: 'who won the 2024 tour de france', max_results: 5, include_answer: true }] })

export const TavilyExtractParams = z
  .object({
    urls: z
      .union([z.string().min(1).max(8192), z.array(z.string().max(8192)).min(1, 'urls must list at least one URL').max(20, 'urls may list at most 20 URLs')], {
        error: 'urls must be a URL or a list of 1 to 20 URLs',
      })
      .describe('one URL or a list of up to 20'),
    extract_depth: z
      .enum(['basic', 'advanced'], { error: 'extract_depth must be basic or advanced' })
      .optional()
      .describe('accepted; every page gets the same reader'),
    format: z.enum(['markdown', 'text'], { error: 'format must be markdown or text' }).optional().describe('markdown (default) or text'),
    query: text('query', 4096).optional().describe('with it, raw_content holds the chunks of each page most relevant to it'),
    chunks_per_source: intBetween('chunks_per_source', 1, 5).optional().describe('with query: chunks per page (default 3)'),
    include_images: flag('include_images').optional().describe('image URLs inside the content'),
    include_favicon: flag('include_favicon').optional().describe("the site's /favicon.ico address (not checked)"),
    include_usage: includeUsage,
    timeout: seconds('timeout', 90)
      .optional()
      .describe("seconds the client waits (1 to 90; Tavily's defaults: 10 basic, 30 advanced); the answer comes a little before"),
    ...clientFields,
  })
  .meta({ examples: [{ urls: ['https://example.com/'], format: 'markdown' }] })

/** What /map and /crawl share: the start URL and Tavily's site filters. */
const siteShape = {
  url: text('url', 2048).describe('the start page'),
  max_depth: intBetween('max_depth', 0, 10).optional(),
  max_breadth: intBetween('max_breadth', 1, 500).optional().describe('accepted; no effect'),
  limit: intBetween('limit', 1, 1000).optional(),
  instructions: text('instructions', 512).optional().describe('words to rank and keep pages by (BM25 on URLs and link text), not read by a model'),
  select_paths: list('select_paths', 20).optional().describe('regular expressions on the URL path: keep only matching'),
  exclude_paths: list('exclude_paths', 20).optional().describe('regular expressions on the URL path: drop matching'),
  select_domains: list('select_domains', 20).optional().describe('regular expressions on the host: subdomains are followed, only matching hosts kept'),
  exclude_domains: list('exclude_domains', 20).optional().describe('regular expressions on the host: drop matching'),
  allow_external: flag('allow_external').optional().describe('accepted; pages of other sites are never listed'),
  categories: list('categories', 20).optional().describe('accepted; no effect'),
  include_usage: includeUsage,
  timeout: seconds('timeout', 150)
    .optional()
    .describe('seconds to wait (map: about 30 at most; crawl: 110 at most, then the crawl is canceled and what it read returned)'),
  ...clientFields,
}

export const TavilyMapParams = z
  .object({
    ...siteShape,
    limit: intBetween('limit', 1, 5000).optional().describe('URLs to return, 1 to 5,000 (default 50)'),
    include_images: flag('include_images').optional().describe('accepted; no effect'),
  })
  .meta({ examples: [{ url: 'https://example.com/', limit: 50 }] })

export const TavilyCrawlParams = z
  .object({
    ...siteShape,
    max_depth: intBetween('max_depth', 0, 10).optional().describe('link hops from the start page (default 1)'),
    limit: intBetween('limit', 1, 1000).optional().describe('pages to read, 1 to 1,000 (default 50); this many credits are held and the unread part refunded'),
    extract_depth: z
      .enum(['basic', 'advanced'], { error: 'extract_depth must be basic or advanced' })
      .optional()
      .describe('accepted; every page gets the same reader'),
    format: z.enum(['markdown', 'text'], { error: 'format must be markdown or text' }).optional(),
    chunks_per_source: intBetween('chunks_per_source', 1, 5).optional().describe('with instructions: chunks per page in raw_content'),
    include_images: flag('include_images').optional().describe('accepted; images are not listed'),
    include_favicon: flag('include_favicon').optional().describe("the site's /favicon.ico address (not checked)"),
  })
  .meta({ examples: [{ url: 'https://example.com/', limit: 10, max_depth: 1 }] })

export type TavilySearchParams = z.infer<typeof TavilySearchParams>
export type TavilyExtractParams = z.infer<typeof TavilyExtractParams>
export type TavilyMapParams = z.infer<typeof TavilyMapParams>
export type TavilyCrawlParams = z.infer<typeof TavilyCrawlParams>

/**
 * Tavily's server reads null and [] as "not sent", and clients send them (axios keeps null,
 * LangChain sends empty domain lists): drop them before the strict parse. A body that is not a
 * JSON object is left for the parse to refuse.
 */
export function withoutUnset(body: unknown): unknown {
  if (Array.isArray(body)) throw new ApiError('invalid_request', 'body must be a JSON object, not an array')
  if (typeof body !== 'object' || body === null) return body
  return Object.fromEntries(Object.entries(body).filter(([, v]) => v !== null && !(Array.isArray(v) && v.length === 0)))
}

/**
 * A Tavily body: unset fields dropped, known fields checked, the names of unknown ones returned
 * (ignored, as Tavily's server ignores them) for the X-Trawl-Ignored-Parameters header.
 */
export function readTavily<S extends z.ZodObject>(schema: S, body: unknown): { params: z.infer<S>; ignored: string[] } {
  const input = withoutUnset(body ?? {})
  const params = parseWith(schema, input)
  const known = new Set(Object.keys(schema.shape))
  const ignored = typeof input === 'object' && input !== null ? Object.keys(input).filter((name) => !known.has(name)) : []
  return { params, ignored }
}
