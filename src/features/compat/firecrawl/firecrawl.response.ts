import { z } from 'zod'
import { errorResponses, jsonAnswer } from '../../../http/error-schema.ts'

/** Firecrawl v2 answers as Trawl sends them, for the OpenAPI document and the tests. */

export const FirecrawlMetadata = z
  .looseObject({
    title: z.string().optional(),
    description: z.string().optional(),
    language: z.string().optional(),
    sourceURL: z.string().describe('the URL asked for'),
    url: z.string().describe('the final URL, after redirects'),
    statusCode: z.number().int().optional().describe('absent on a search result whose page could not be read (see error)'),
    contentType: z.string().optional(),
    ogTitle: z.string().optional(),
    ogDescription: z.string().optional(),
    ogImage: z.string().optional(),
    ogUrl: z.string().optional(),
    ogSiteName: z.string().optional(),
    ogLocale: z.string().optional(),
    author: z.string().optional(),
    canonicalUrl: z.string().optional(),
    publishedTime: z.string().optional(),
    modifiedTime: z.string().optional(),
    numPages: z.number().int().optional(),
    cacheState: z.enum(['hit', 'miss']).optional(),
    cachedAt: z.string().optional(),
    creditsUsed: z.number().optional(),
    scrapeId: z.string().optional().describe('the Trawl request id'),
    proxyUsed: z.literal('basic').optional(),
    error: z.string().optional(),
  })
  .describe('page metadata in Firecrawl’s names')

export const FirecrawlDocument = z.object({
  markdown: z.string().optional(),
  html: z.string().optional().describe('the main content as clean HTML'),
  rawHtml: z.string().optional().describe('the page as fetched'),
  links: z.array(z.string()).optional(),
  images: z.array(z.string()).optional(),
  json: z
    .record(z.string(), z.unknown())
    .optional()
    .describe("formats json: the operator's model fills its schema from the page (Trawl's /v1/webpage schema; docs/models.md)"),
  metadata: FirecrawlMetadata,
  warning: z.string().optional(),
})

export const FirecrawlScrapeResponse = z.object({ success: z.literal(true), data: FirecrawlDocument })

const WebResult = FirecrawlDocument.partial().extend({
  url: z.string(),
  title: z.string(),
  description: z.string(),
  position: z.number().int(),
})
const NewsResult = z.object({
  title: z.string(),
  url: z.string(),
  snippet: z.string().optional(),
  date: z.string().optional(),
  imageUrl: z.string().optional(),
  position: z.number().int(),
})
const ImageResult = z.object({
  title: z.string(),
  imageUrl: z.string(),
  imageWidth: z.number().int().optional(),
  imageHeight: z.number().int().optional(),
  url: z.string().optional(),
  position: z.number().int(),
})

export const FirecrawlSearchResponse = z.object({
  success: z.literal(true),
  data: z.object({ web: z.array(WebResult).optional(), news: z.array(NewsResult).optional(), images: z.array(ImageResult).optional() }),
  creditsUsed: z.number(),
  id: z.string().describe('the Trawl request id'),
  warning: z.string().optional(),
})

export const FirecrawlMapResponse = z.object({
  success: z.literal(true),
  links: z.array(z.object({ url: z.string(), title: z.string().optional(), description: z.string().optional() })),
  warning: z.string().optional(),
})

export const FirecrawlJobStarted = z.object({
  success: z.literal(true),
  id: z.string(),
  url: z.string().describe('where to poll the job'),
  invalidURLs: z.array(z.string()).optional().describe('batch scrape: URLs that were not queued'),
  warning: z.string().optional(),
})

export const FirecrawlActiveCrawls = z.object({
  success: z.literal(true),
  crawls: z.array(
    z.object({
      id: z.string(),
      teamId: z.string().describe("the account's id"),
      url: z.string(),
      options: z.record(z.string(), z.unknown()).describe('the crawl options in Firecrawl’s names'),
    }),
  ),
})

export const FirecrawlJobStatus = z.object({
  success: z.literal(true),
  status: z.enum(['scraping', 'completed', 'failed', 'cancelled']),
  total: z.number().int(),
  completed: z.number().int(),
  creditsUsed: z.number(),
  expiresAt: z.string(),
  next: z.string().nullable().describe('the next page of documents, when there is one'),
  data: z.array(FirecrawlDocument),
  warning: z.string().optional(),
  error: z.string().optional().describe('why a crawl failed'),
})

export const FirecrawlCancelled = z.object({ success: z.literal(true), status: z.enum(['cancelled', 'completed', 'failed']) })

export const FirecrawlJobErrors = z.object({
  errors: z.array(z.object({ id: z.string(), url: z.string(), error: z.string(), code: z.string().optional() })),
  robotsBlocked: z.array(z.string()),
})

export const FirecrawlError = z.object({
  success: z.literal(false),
  code: z.string().optional().describe('Firecrawl’s code where it has one: BAD_REQUEST, BAD_REQUEST_INVALID_JSON, SCRAPE_TIMEOUT, SCRAPE_SITE_ERROR, …'),
  error: z.string().describe('for people'),
  details: z.object({ code: z.string().describe('Trawl’s error code'), request_id: z.string() }),
})

const firecrawlError = (description: string) => jsonAnswer(description, FirecrawlError)

/**
 * The statuses these routes answer, with Firecrawl's body; the 4XX/5XX ranges (Trawl's envelope)
 * cover only what is refused before a route is chosen (a malformed URL or request line).
 */
export const firecrawlErrorResponses = {
  400: firecrawlError(
    'Bad request (code BAD_REQUEST, or BAD_REQUEST_INVALID_JSON): a field is missing, unknown, out of range, of the wrong type or not supported by Trawl (also 413, 415)',
  ),
  401: firecrawlError('Missing, malformed, invalid or revoked API key'),
  402: firecrawlError('Out of credits, over the key’s monthly credit limit, or over the account’s monthly spend cap'),
  403: firecrawlError('Forbidden'),
  404: firecrawlError('No such crawl or batch scrape for this account (or it expired), or no such route'),
  408: firecrawlError('The page was still loading when the timeout ran out (code SCRAPE_TIMEOUT, Retry-After); not billed'),
  429: firecrawlError('Too many requests per second for this key, or too many crawls at once (Retry-After)'),
  500: firecrawlError('Unexpected error (code UNKNOWN_ERROR); not billed'),
  503: firecrawlError('The page or the search engine could not be read, blocked us or timed out (Retry-After); not billed'),
  ...errorResponses,
}

export type FirecrawlDocument = z.infer<typeof FirecrawlDocument>
export type FirecrawlMetadata = z.infer<typeof FirecrawlMetadata>
export type FirecrawlJobStatus = z.infer<typeof FirecrawlJobStatus>

/** The named shapes of the Firecrawl answers, for #/components/schemas of the OpenAPI document. */
export const FIRECRAWL_COMPONENTS = {
  FirecrawlScrapeResponse,
  FirecrawlSearchResponse,
  FirecrawlMapResponse,
  FirecrawlJobStarted,
  FirecrawlJobStatus,
  FirecrawlActiveCrawls,
  FirecrawlCancelled,
  FirecrawlJobErrors,
  FirecrawlDocument,
  FirecrawlMetadata,
  FirecrawlError,
}
