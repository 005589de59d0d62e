import { z } from 'zod'
import { BATCH_ENDPOINTS } from '../batches/batches.endpoints.ts'
import { DEFAULT_MAX_TOKENS, MAX_MAX_TOKENS, MIN_MAX_TOKENS } from './mcp.pages.ts'

/**
 * Tool input and output schemas. Inputs say what each parameter means for a model and bound it as
 * the REST API does; the REST route then validates again with its own schema, so a tool accepts
 * exactly what its REST twin accepts. Outputs describe `structuredContent`: the same items as the
 * text, for clients that read JSON.
 */

// ---- shared inputs -------------------------------------------------------------------------

const maxTokens = z
  .number()
  .int()
  .min(MIN_MAX_TOKENS)
  .max(MAX_MAX_TOKENS)
  .optional()
  .describe(
    `Cap on this answer's text, in tokens (${MIN_MAX_TOKENS} to ${MAX_MAX_TOKENS}, default ${DEFAULT_MAX_TOKENS}). What does not fit is paged: the answer ends with next_cursor.`,
  )
const cursor = z
  .string()
  .min(1)
  .max(4096)
  .optional()
  .describe('next_cursor from the previous answer of this tool, to read its next page. Repeat the other arguments. Reading a next page costs nothing.')
const q = z.string().trim().min(1).max(2048)
const country = z
  .string()
  .regex(/^[A-Za-z]{2}$/)
  .optional()
  .describe('Two-letter country code whose results to get, e.g. us, de, jp (default us).')
const language = z
  .string()
  .regex(/^[A-Za-z]{2,3}(-[A-Za-z]{2}|-[A-Za-z]{4})?$/)
  .optional()
  .describe('Language code, optionally with region: en, de, pt-BR (default en).')
const location = z
  .string()
  .trim()
  .min(1)
  .max(256)
  .optional()
  .describe('Place to search from, as canonical text, e.g. "Austin,Texas,United States". A trailing country name also sets country.')
const maxAge = z
  .number()
  .int()
  .min(0)
  .max(31_536_000)
  .optional()
  .describe('Accept a cached answer up to this many seconds old, at half price. Omit for a fresh answer.')
const domainList = z.array(z.string().min(1).max(300)).min(1).max(20)
const pathPatterns = z.array(z.string().min(1).max(200)).max(20)
const webhookUrl = z
  .url({ protocol: /^https?$/ })
  .max(2048)
  .optional()
  .describe("URL that receives a signed webhook when the work is done; default: the account's webhook URL. Optional: the result can also be polled.")
const waitSeconds = (fallback: number) =>
  z
    .number()
    .int()
    .min(0)
    .max(45)
    .optional()
    .describe(
      `Seconds to wait for the work to finish before answering (0 to 45, default ${fallback}). The answer comes back when it finishes or the wait runs out, with the progress so far.`,
    )
const readTimeout = z
  .number()
  .int()
  .min(1)
  .max(40)
  .optional()
  .describe('Seconds to wait for the pages (1 to 40, default 30). A page still loading then is reported as failed and costs nothing.')

export const SEARCH_VERTICALS = ['web', 'news', 'images', 'videos', 'places', 'maps', 'shopping', 'scholar', 'patents'] as const
export type SearchVertical = (typeof SEARCH_VERTICALS)[number]

// ---- inputs --------------------------------------------------------------------------------

export const SearchInput = z.strictObject({
  q: q.describe('The search query, as you would type it into a search engine (operators like site: and quotes work on web).'),
  vertical: z
    .enum(SEARCH_VERTICALS)
    .optional()
    .describe(
      'What to search (default web): web pages, news articles, images, videos, places (local businesses), maps (places with coordinates; takes ll), shopping (products with prices), scholar (papers with citations), patents.',
    ),
  engine: z
    .string()
    .min(1)
    .max(200)
    .optional()
    .describe(
      'Provider: google (default), bing, duckduckgo, brave, mojeek, startpage or wikipedia; several comma-separated (tried in order); auto (falls back when one is blocked); consensus (web only: several providers merged, each result lists its sources). Only web, news, images and videos take engine.',
    ),
  country,
  language,
  location: location.describe('Place to search from, e.g. "Austin,Texas,United States" (web, news, places, maps, shopping).'),
  num: z
    .literal([10, 20, 30, 50, 100])
    .optional()
    .describe('How many results: 10 (default), 20, 30, 50 or 100. 1 credit per 10; 100 costs 7. More than 10 needs page 1. Not on places, maps, shopping.'),
  page: z.number().int().min(1).max(10).optional().describe('Result page, 1 to 10 (default 1); each page is billed.'),
  time: z
    .enum(['hour', 'day', 'week', 'month', 'year'])
    .optional()
    .describe('Only results from the past hour, day, week, month or year (web, news, images, videos).'),
  safe: z.enum(['off', 'active']).optional().describe('Safe search: off (default) or active (web, images).'),
  device: z.enum(['desktop', 'mobile']).optional().describe('Results as seen on desktop (default) or mobile (web only).'),
  ll: z
    .string()
    .regex(/^@-?\d{1,2}(\.\d+)?,-?\d{1,3}(\.\d+)?,\d{1,2}(\.\d+)?z$/)
    .optional()
    .describe('Map viewport for maps: @latitude,longitude,zoomz, e.g. @40.7455,-74.0083,14z.'),
  include_domains: domainList
    .optional()
    .describe(
      'Keep only results from these sites: up to 20 domains (example.com), path prefixes (example.com/blog) or TLDs (.gov). Web, news, images, videos.',
    ),
  exclude_domains: domainList.optional().describe('Drop results from these sites (same forms as include_domains). Web, news, images, videos.'),
  max_age: maxAge,
  max_tokens: maxTokens,
  cursor,
})

const readingOptions = {
  format: z.enum(['markdown', 'text']).optional().describe('markdown (default, keeps headings, links and tables) or text (plain).'),
  query: z
    .string()
    .trim()
    .min(1)
    .max(4096)
    .optional()
    .describe('What you are looking for on the page(s). With highlights, the passages that best match it are listed first.'),
  highlights: z
    .number()
    .int()
    .min(0)
    .max(10)
    .optional()
    .describe('How many best-matching passages (about 600 characters each) to list; needs query. Default 0.'),
  max_age: maxAge,
  country: z
    .string()
    .regex(/^[A-Za-z]{2}$/)
    .optional()
    .describe('Fetch through an exit in this country (two-letter code), when the server has one configured.'),
  timeout: readTimeout,
  max_tokens: maxTokens,
  cursor,
}

export const WebpageInput = z.strictObject({
  url: z.string().min(1).max(8192).describe('The http(s) address of the page (HTML or PDF) to read.'),
  ...readingOptions,
})

export const ExtractInput = z.strictObject({
  urls: z.array(z.string().min(1).max(8192)).min(1).max(20).describe('1 to 20 http(s) page addresses (HTML or PDF), read 5 at a time. Duplicates are dropped.'),
  ...readingOptions,
})

export const MapInput = z.strictObject({
  url: z.string().min(1).max(2048).describe("Any page of the site. Its sitemaps (from robots.txt or /sitemap.xml) and the page's own links are listed."),
  search: z.string().trim().min(1).max(512).optional().describe('Keep only URLs relevant to this text, most relevant first; others are dropped.'),
  limit: z.number().int().min(1).max(5000).optional().describe('Most URLs to return, 1 to 5,000 (default 100). 1 credit per call that finds URLs.'),
  sitemap: z.enum(['include', 'only', 'skip']).optional().describe('include (default): sitemaps and start-page links; only: sitemaps; skip: links only.'),
  include_subdomains: z.boolean().optional().describe('Also list URLs on subdomains (default false).'),
  include_paths: pathPatterns.optional().describe('Regular expressions on the URL path; keep only matching URLs, e.g. ["^/blog/"].'),
  exclude_paths: pathPatterns.optional().describe('Regular expressions on the URL path; never keep matching URLs.'),
  ignore_query_parameters: z.boolean().optional().describe('Treat URLs that differ only in their query string as one (default false).'),
  max_tokens: maxTokens,
  cursor,
})

export const CrawlInput = z.strictObject({
  url: z.string().min(1).max(2048).describe('Start page. The crawl follows links on the same site from it (and its sitemaps), honouring robots.txt.'),
  limit: z
    .number()
    .int()
    .min(1)
    .max(1000)
    .optional()
    .describe('Most pages to read, 1 to 1,000 (default 25). This many credits are reserved at the start; unread pages are refunded at the end.'),
  max_depth: z.number().int().min(0).max(10).optional().describe('Link hops from the start page, 0 to 10 (default 2). 0 reads only the start page.'),
  include_paths: pathPatterns.optional().describe('Regular expressions on the URL path; follow only matching links, e.g. ["^/docs/"].'),
  exclude_paths: pathPatterns.optional().describe('Regular expressions on the URL path; never follow matching links.'),
  include_subdomains: z.boolean().optional().describe('Also follow links to subdomains (default false).'),
  sitemap: z
    .enum(['include', 'only', 'skip'])
    .optional()
    .describe('include (default): sitemap URLs and links; only: start page and sitemap URLs, no links followed; skip: links only.'),
  query: z.string().trim().min(1).max(512).optional().describe('Read pages that match this text first (by URL and link text).'),
  ignore_query_parameters: z.boolean().optional().describe('Treat URLs that differ only in their query string as one page (default false).'),
  format: z.enum(['markdown', 'text']).optional().describe('Page content as markdown (default) or text.'),
  page_max_tokens: z.number().int().min(100).max(100_000).optional().describe('Trim each page to this many tokens (100 to 100,000) when it is read.'),
  max_age: maxAge.describe('Accept cached pages up to this many seconds old, at 0.5 credit each.'),
  webhook_url: webhookUrl,
  wait_seconds: waitSeconds(0),
})

export const CrawlResultInput = z.strictObject({
  id: z.string().min(1).max(64).describe('The crawl id the crawl tool returned.'),
  wait_seconds: waitSeconds(15),
  max_tokens: maxTokens,
  cursor,
})

export const RankInput = z.strictObject({
  q: q.describe('The keyword to check.'),
  domain: z.string().trim().min(1).max(253).describe('The site to find, e.g. example.com (subdomains match).'),
  num: z.literal([10, 20, 30, 50, 100]).optional().describe('How many results to check: 10, 20, 30, 50 or 100 (default 100, 7 credits).'),
  country,
  language,
  location,
  device: z.enum(['desktop', 'mobile']).optional().describe('desktop (default) or mobile results.'),
  max_age: maxAge,
})

export const BatchInput = z.strictObject({
  endpoint: z
    .enum(BATCH_ENDPOINTS)
    .describe(
      'The REST endpoint every request goes to: search (web), images, videos, news, maps, places, reviews, shopping, scholar, patents, autocomplete, lens or webpage.',
    ),
  requests: z
    .array(z.record(z.string(), z.unknown()))
    .min(1)
    .max(100)
    .describe(
      '1 to 100 request objects with the REST endpoint\'s own parameters, e.g. for search [{"q":"coffee"},{"q":"tea","country":"de"}]; for webpage [{"url":"https://…"}]. Each is validated on its own; a bad one is refused alone.',
    ),
  webhook_url: webhookUrl,
})

export const BatchResultInput = z.strictObject({
  ids: z.array(z.string().min(1).max(64)).min(1).max(100).describe('Job ids the batch tool returned (up to 100).'),
  wait_seconds: waitSeconds(0),
  max_tokens: maxTokens,
  cursor,
})

export const MonitorCreateInput = z.strictObject({
  endpoint: z
    .enum(['search', 'news', 'webpage'])
    .optional()
    .describe('search (default): a saved web search; news: a saved news search; webpage: watch one page for changes.'),
  q: q.optional().describe('search and news monitors: the query.'),
  url: z.string().min(1).max(8192).optional().describe('webpage monitors: the page to watch.'),
  interval: z.enum(['hourly', 'daily', 'weekly']).optional().describe('How often it runs (default daily).'),
  interval_seconds: z.number().int().min(3600).max(2_592_000).optional().describe('Exact interval, 3,600 to 2,592,000 seconds; overrides interval.'),
  name: z.string().trim().min(1).max(200).optional().describe('A name to recognise it by (default: the query or URL).'),
  active: z.boolean().optional().describe('false creates it paused (default true: the first run is due at once).'),
  webhook_url: z
    .url({ protocol: /^https?$/ })
    .max(2048)
    .optional()
    .describe(
      "URL that receives signed monitor.results when a run finds something new; default the account's webhook. Runs can also be read with monitor_runs.",
    ),
  metadata: z.record(z.string(), z.unknown()).optional().describe('Any JSON object up to 2 KB, echoed on the monitor and in its webhooks.'),
  country,
  language,
  location,
  time: z.enum(['hour', 'day', 'week', 'month', 'year']).optional().describe('Only results from the past hour, day, week, month or year.'),
  num: z.number().int().min(1).max(100).optional().describe('Watch only the top num results, 1 to 100 (default 10).'),
  device: z.enum(['desktop', 'mobile']).optional().describe('search monitors: desktop (default) or mobile.'),
  safe: z.enum(['off', 'active']).optional().describe('search monitors: off (default) or active.'),
  include_domains: domainList.optional().describe('Keep only results from these sites (up to 20).'),
  exclude_domains: domainList.optional().describe('Drop results from these sites (up to 20).'),
  engine: z.string().min(1).max(200).optional().describe('A provider name, several comma-separated, auto, or consensus (search monitors only).'),
})

export const MonitorListInput = z.strictObject({ max_tokens: maxTokens, cursor })

export const MonitorRunsInput = z.strictObject({
  id: z.string().min(1).max(64).describe('The monitor id (from monitor_create or monitor_list).'),
  limit: z.number().int().min(1).max(100).optional().describe('How many runs, newest first (1 to 100, default 20).'),
  before: z.string().max(64).optional().describe('Only runs due before this ISO 8601 time: pass next_before of the previous answer for older runs.'),
  max_tokens: maxTokens,
  cursor,
})

export const AccountInput = z.strictObject({})

// ---- outputs -------------------------------------------------------------------------------

const billing = {
  request_id: z.string().nullable().describe('X-Request-Id of the REST call this answer came from'),
  credits_used: z.number().nullable().describe('credits this call cost (0 when it read a page of a kept answer)'),
  credits_remaining: z.number().nullable(),
}
const nextCursor = z.string().nullable().describe('pass as cursor (with the same arguments) for the next page; null on the last page')
const paging = { offset: z.number().int().describe('index of the first item shown'), total: z.number().int(), next_cursor: nextCursor }

const looseItem = z.looseObject({})
const errorObject = z.object({ code: z.string(), message: z.string() })

export const SearchOutput = z.object({
  vertical: z.enum(SEARCH_VERTICALS),
  query: z.string(),
  engine: z.string().nullable(),
  cached: z.boolean(),
  parse_quality: z.string().nullable(),
  results: z.array(looseItem).describe("this page's results, as the REST endpoint returns them (position, title, link, snippet, …)"),
  extras: z
    .record(z.string(), z.unknown())
    .nullable()
    .describe('first page only: answer_box, knowledge_graph, people_also_ask, related_searches, top_stories, places when the engine gave them'),
  ...paging,
  ...billing,
})

const DocPart = z.object({
  url: z.string(),
  title: z.string().nullable(),
  published_at: z.string().nullable(),
  status_code: z.number().int().nullable(),
  cached: z.boolean().nullable(),
  depth: z.number().int().nullable().describe('crawl: link hops from the start page'),
  part: z.enum(['whole', 'start', 'middle', 'end']).describe('whole page, or which part of it this answer holds'),
  content: z.string().describe('the page (or this part of it) as Markdown or text'),
  highlights: z.array(z.object({ text: z.string(), score: z.number(), heading: z.string().nullable() })).nullable(),
})

const docPaging = {
  pages: z.array(DocPart),
  offset: z.number().int().describe('index of the first content block shown'),
  total: z.number().int().describe('content blocks in the whole answer'),
  next_cursor: nextCursor,
}

export const WebpageOutput = z.object({ ...docPaging, empty_page: z.boolean(), ...billing })

export const ExtractOutput = z.object({
  ...docPaging,
  failed: z.array(z.object({ url: z.string(), error: errorObject })).describe('pages that could not be read (free)'),
  succeeded: z.number().int(),
  ...billing,
})

export const MapOutput = z.object({
  url: z.string(),
  results: z.array(z.object({ url: z.string(), title: z.string().nullable(), lastmod: z.string().nullable(), source: z.string() })),
  ...paging,
  ...billing,
})

const crawlProgress = z.object({
  pages_done: z.number().int(),
  pages_failed: z.number().int(),
  pages_queued: z.number().int(),
  pages_discovered: z.number().int(),
  limit: z.number().int(),
})
const crawlStatus = z.enum(['queued', 'running', 'completed', 'failed', 'canceled'])

export const CrawlOutput = z.object({
  id: z.string(),
  status: crawlStatus,
  progress: crawlProgress,
  credits_reserved: z.number(),
  credits_used: z.number().describe('pages paid for so far'),
  error: errorObject.nullable(),
  request_id: z.string().nullable(),
  credits_remaining: z.number().nullable(),
})

export const CrawlResultOutput = z.object({
  id: z.string(),
  status: crawlStatus,
  progress: crawlProgress,
  credits_used: z.number(),
  error: errorObject.nullable(),
  stats: z.record(z.string(), z.unknown()).nullable().describe('when ended: pages, failed, seconds, discovered, stopped, robots, …'),
  failed: z.array(z.object({ url: z.string(), error: errorObject })).describe('first page only: pages that could not be read'),
  ...docPaging,
  request_id: z.string().nullable(),
})

export const RankOutput = z.object({
  query: z.string(),
  domain: z.string(),
  position: z.number().int().nullable().describe('best organic position of the domain; null when not among the checked results'),
  matches: z.array(z.object({ position: z.number().int(), title: z.string(), link: z.string() })),
  checked: z.number().int(),
  ...billing,
})

export const BatchOutput = z.object({
  endpoint: z.string(),
  jobs: z.array(
    z.object({
      index: z.number().int().describe('position in requests'),
      id: z.string().nullable(),
      status: z.string().nullable(),
      error: errorObject.nullable().describe('why this request was refused (not queued, not billed)'),
    }),
  ),
  queued: z.number().int(),
  refused: z.number().int(),
  ...billing,
})

export const BatchResultOutput = z.object({
  jobs: z.array(
    z.object({
      id: z.string(),
      endpoint: z.string().nullable(),
      status: z.string().describe('queued, running, done, failed, or not_found'),
      credits_used: z.number().nullable(),
      error: errorObject.nullable(),
      content: z.string().nullable().describe('done jobs: the result rendered as Markdown (search verticals, webpage) or JSON text'),
    }),
  ),
  done: z.number().int(),
  pending: z.number().int(),
  ...paging,
})

const Monitor = z.looseObject({
  id: z.string(),
  name: z.string(),
  endpoint: z.string(),
  active: z.boolean(),
  interval_seconds: z.number().int(),
  next_run_at: z.string().nullable(),
  last_run_at: z.string().nullable(),
  last_status: z.string().nullable(),
  last_new_results: z.number().int(),
})

export const MonitorCreateOutput = z.object({ monitor: Monitor, request_id: z.string().nullable() })

export const MonitorListOutput = z.object({ monitors: z.array(Monitor), ...paging, request_id: z.string().nullable() })

export const MonitorRunsOutput = z.object({
  monitor_id: z.string(),
  runs: z.array(z.looseObject({ id: z.string(), status: z.string(), new_results: z.number().int() })),
  next_before: z.string().nullable().describe('pass as before for older runs'),
  ...paging,
  request_id: z.string().nullable(),
})

export const AccountOutput = z.looseObject({
  balance: z.number(),
  plan: z.string(),
  rate_limit_rps: z.number().int(),
  monthly_spend_cap: z.number().nullable(),
})
