import { z } from 'zod'
import { ApiError } from '../../../errors.ts'
import { intBetween } from '../../../params/search.params.ts'

/**
 * Firecrawl v2 request bodies, camelCase as its SDKs send them. Strict like Firecrawl's own server:
 * an unknown key is a 400. Options Trawl cannot honour are refused by name (see `readScrapeOptions`);
 * options that only tune how Firecrawl renders a page are accepted and have no effect (docs/compat-firecrawl.md).
 */

const flag = (name: string) => z.boolean({ error: `${name} must be true or false` }).optional()
const text = (name: string, max = 2048) => z.string({ error: `${name} must be a string` }).max(max, `${name} must be at most ${max} characters`)
const strings = (name: string, max: number) =>
  z.array(text(name, 512), { error: `${name} must be a list of strings` }).max(max, `${name} may list at most ${max} entries`)

/** A format as a name ("markdown") or an object ({ type: "json", ... }). */
const format = z.union([text('formats', 64), z.looseObject({ type: text('formats type', 64) })], {
  error: 'formats entries must be format names such as "markdown" or objects with a type',
})

/** ScrapeOptions of Firecrawl v2: /v2/scrape's body, and scrapeOptions of crawl, search and batch scrape. */
export const scrapeOptionsShape = {
  formats: z.array(format, { error: 'formats must be a list of formats' }).max(20, 'formats may list at most 20 formats').optional(),
  onlyMainContent: flag('onlyMainContent').describe('accepted; Trawl always returns the main content (rawHtml is the whole page)'),
  includeTags: strings('includeTags', 100).optional().describe('not supported: must be empty'),
  excludeTags: strings('excludeTags', 100).optional().describe('not supported: must be empty'),
  headers: z.record(z.string(), text('headers', 4096)).optional().describe('not supported: must be empty'),
  timeout: intBetween('timeout', 1, 600_000).optional().describe('milliseconds; Trawl waits at most 90 s for a page'),
  waitFor: intBetween('waitFor', 0, 60_000).optional().describe('accepted; a JavaScript shell is drawn (render=auto) when the server has a browser'),
  mobile: flag('mobile'),
  parsers: z.array(z.unknown()).max(10, 'parsers may list at most 10 entries').optional().describe('accepted; PDFs are always read'),
  actions: z.array(z.unknown()).max(50, 'actions may list at most 50 entries').optional().describe('not supported: must be empty'),
  location: z
    .strictObject({ country: text('location.country', 16).optional(), languages: strings('location.languages', 20).optional() })
    .optional()
    .describe('accepted; pages are read from the server'),
  skipTlsVerification: flag('skipTlsVerification'),
  removeBase64Images: flag('removeBase64Images'),
  fastMode: flag('fastMode'),
  blockAds: flag('blockAds'),
  storeInCache: flag('storeInCache'),
  proxy: text('proxy', 32).optional(),
  maxAge: intBetween('maxAge', 0, 31_536_000_000).optional().describe('milliseconds: accept a cached read this old, at half price'),
  minAge: intBetween('minAge', 0, 31_536_000_000).optional(),
  zeroDataRetention: flag('zeroDataRetention').describe('not supported: Trawl caches what it reads'),
  origin: text('origin', 256).optional(),
  integration: text('integration', 256).optional(),
}

export const ScrapeOptions = z.strictObject(scrapeOptionsShape)
export type ScrapeOptions = z.infer<typeof ScrapeOptions>

const url = text('url', 8192).min(1, 'url must not be empty')

export const FirecrawlScrapeBody = z.strictObject({ url: url.describe('the page to read'), ...scrapeOptionsShape }).meta({
  examples: [{ url: 'https://example.com/', formats: ['markdown', 'links'], onlyMainContent: true }],
})

const sourceName = z.enum(['web', 'news', 'images'], { error: 'sources entries must be web, news or images' })
const source = z.union([sourceName, z.strictObject({ type: sourceName, tbs: text('tbs', 256).optional(), location: text('location', 256).optional() })])

export const FirecrawlSearchBody = z
  .strictObject({
    query: z.string({ error: 'query must be a string' }).trim().min(1, 'query must not be empty').max(2048, 'query must be at most 2,048 characters'),
    limit: intBetween('limit', 1, 100).optional().describe('results per source, 1 to 100; default 5'),
    sources: z.array(source, { error: 'sources must be a list of web, news, images' }).min(1).max(3).optional().describe('default ["web"]'),
    categories: z.array(z.unknown()).max(10).optional().describe('not supported: must be empty'),
    tbs: text('tbs', 256).optional(),
    location: text('location', 256).optional(),
    country: text('country', 16).optional().describe('two-letter code; default us'),
    lang: text('lang', 16).optional().describe('language code; default en'),
    timeout: intBetween('timeout', 1, 600_000).optional().describe('milliseconds; accepted'),
    ignoreInvalidURLs: flag('ignoreInvalidURLs'),
    highlights: flag('highlights'),
    includeDomains: strings('includeDomains', 20).optional(),
    excludeDomains: strings('excludeDomains', 20).optional(),
    scrapeOptions: ScrapeOptions.optional().describe('read the web results as Markdown (formats: markdown only), +1 credit per page read'),
    origin: text('origin', 256).optional(),
    integration: text('integration', 256).optional(),
  })
  .meta({ examples: [{ query: 'espresso grinder', limit: 5 }] })

const sitemap = z.enum(['include', 'skip', 'only'], { error: 'sitemap must be include, skip or only' })

export const FirecrawlMapBody = z
  .strictObject({
    url: url.describe('any page of the site'),
    search: text('search', 512).optional(),
    sitemap: sitemap.optional(),
    includeSubdomains: flag('includeSubdomains').describe('default true'),
    ignoreQueryParameters: flag('ignoreQueryParameters').describe('default true'),
    limit: intBetween('limit', 1, 100_000).optional().describe('default 5000; Trawl lists at most 5000'),
    timeout: intBetween('timeout', 1, 600_000).optional(),
    location: ScrapeOptions.shape.location,
    origin: text('origin', 256).optional(),
    integration: text('integration', 256).optional(),
  })
  .meta({ examples: [{ url: 'https://example.com/', limit: 100 }] })

export const FirecrawlCrawlBody = z
  .strictObject({
    url: url.describe('start page'),
    prompt: text('prompt', 10_000).optional().describe('not supported'),
    includePaths: strings('includePaths', 20).optional().describe('regular expressions on the URL path'),
    excludePaths: strings('excludePaths', 20).optional().describe('regular expressions on the URL path'),
    maxDiscoveryDepth: intBetween('maxDiscoveryDepth', 0, 1000).optional().describe('link hops; Trawl goes 10 deep at most (the default)'),
    sitemap: sitemap.optional(),
    ignoreQueryParameters: flag('ignoreQueryParameters'),
    deduplicateSimilarURLs: flag('deduplicateSimilarURLs'),
    limit: intBetween('limit', 1, 100_000).optional().describe('pages; default 25, at most 1000 (this many credits are reserved)'),
    crawlEntireDomain: flag('crawlEntireDomain').describe('default false: only pages under the start URL path'),
    allowExternalLinks: flag('allowExternalLinks').describe('not supported: must be false'),
    allowSubdomains: flag('allowSubdomains'),
    ignoreRobotsTxt: flag('ignoreRobotsTxt').describe('not supported: must be false'),
    robotsUserAgent: text('robotsUserAgent', 256).optional().describe('not supported'),
    delay: z.number({ error: 'delay must be a number of seconds' }).min(0).max(3600).optional().describe('accepted; Trawl honours Crawl-delay'),
    maxConcurrency: intBetween('maxConcurrency', 1, 1000).optional(),
    regexOnFullURL: flag('regexOnFullURL').describe('not supported: must be false'),
    webhook: z.unknown().optional().describe('not supported: use POST /v1/crawl with webhook_url'),
    scrapeOptions: ScrapeOptions.optional().describe('formats markdown (default) and links'),
    zeroDataRetention: flag('zeroDataRetention'),
    origin: text('origin', 256).optional(),
    integration: text('integration', 256).optional(),
  })
  .meta({ examples: [{ url: 'https://example.com/', limit: 25, scrapeOptions: { formats: ['markdown'] } }] })

export const MAX_BATCH_URLS = 100

export const FirecrawlBatchBody = z
  .strictObject({
    urls: z
      .array(url, { error: 'urls must be a list of URLs' })
      .min(1, 'urls must list at least one URL')
      .max(MAX_BATCH_URLS, `urls may list at most ${MAX_BATCH_URLS} URLs per batch on Trawl; send more with several batches`),
    ...scrapeOptionsShape,
    webhook: z.unknown().optional().describe('not supported'),
    appendToId: text('appendToId', 64).optional().describe('not supported'),
    ignoreInvalidURLs: flag('ignoreInvalidURLs').describe('default true: invalid URLs are listed in invalidURLs'),
    maxConcurrency: intBetween('maxConcurrency', 1, 1000).optional(),
  })
  .meta({ examples: [{ urls: ['https://example.com/', 'https://example.org/'], formats: ['markdown'] }] })

export const JobPageQuery = z.strictObject({
  skip: intBetween('skip', 0, 100_000).optional().describe('documents to skip (the `next` URL sets it)'),
  limit: intBetween('limit', 1, 1000).optional().describe('documents per answer; default 100 (and at most 10 MB)'),
})

export type FirecrawlSearchBody = z.infer<typeof FirecrawlSearchBody>
export type FirecrawlMapBody = z.infer<typeof FirecrawlMapBody>
export type FirecrawlCrawlBody = z.infer<typeof FirecrawlCrawlBody>
export type FirecrawlBatchBody = z.infer<typeof FirecrawlBatchBody>

export type ContentFormat = 'markdown' | 'html' | 'rawHtml'

/** What a ScrapeOptions asks of Trawl's reader. */
export interface ReadRequest {
  contents: ContentFormat[]
  links: boolean
  images: boolean
  /** Seconds (Trawl's max_age), from maxAge in milliseconds. */
  maxAge?: number
  /** Seconds, 1 to 90, from timeout in milliseconds. */
  timeout?: number
  /** formats json: the schema (and prompt) the model fills (/v2/scrape only). */
  json?: { schema: Record<string, unknown>; prompt?: string }
}

const SUPPORTED_FORMATS = new Set(['markdown', 'html', 'rawHtml', 'links', 'images', 'json'])

const refuse = (message: string) => new ApiError('invalid_request', message)

/**
 * The formats and options Trawl's reader can serve; the others are refused by name, before anything
 * is billed. Without formats a page comes back as Markdown, as on Firecrawl.
 */
export function readScrapeOptions(o: ScrapeOptions, where = '', takesJson = false): ReadRequest {
  const names = (o.formats ?? ['markdown']).map((f) => (typeof f === 'string' ? f : f.type))
  for (const name of names) {
    if (!SUPPORTED_FORMATS.has(name)) {
      throw refuse(`${where}formats: ${name} is not supported by Trawl; use markdown, html, rawHtml, links, images or json`)
    }
  }
  if (o.includeTags?.length || o.excludeTags?.length)
    throw refuse(`${where}includeTags and excludeTags are not supported by Trawl: it picks the main content itself`)
  if (o.headers && Object.keys(o.headers).length > 0) throw refuse(`${where}headers is not supported by Trawl: pages are fetched with Trawl's own headers`)
  if (o.actions?.length) throw refuse(`${where}actions is not supported by Trawl: it reads pages without a browser`)
  if (o.zeroDataRetention) throw refuse(`${where}zeroDataRetention is not supported by Trawl: pages read are cached`)
  const contents = (['markdown', 'html', 'rawHtml'] as const).filter((f) => names.includes(f))
  const request: ReadRequest = { contents, links: names.includes('links'), images: names.includes('images') }
  const json = o.formats?.find((f) => typeof f !== 'string' && f.type === 'json')
  if (json || names.includes('json')) request.json = jsonFormat(json, where, takesJson)
  if (o.maxAge !== undefined && o.maxAge >= 1000) request.maxAge = Math.min(Math.floor(o.maxAge / 1000), 31_536_000)
  if (o.timeout !== undefined) request.timeout = Math.min(90, Math.max(1, Math.ceil(o.timeout / 1000)))
  return request
}

/** formats json: a schema (an object) and an optional prompt, on /v2/scrape (one model call per page). */
function jsonFormat(format: unknown, where: string, takesJson: boolean): NonNullable<ReadRequest['json']> {
  if (!takesJson) throw refuse(`${where}formats: json is taken on /v2/scrape only on Trawl (a model call per page; docs/models.md)`)
  const { schema, prompt } = (typeof format === 'object' && format !== null ? format : {}) as { schema?: unknown; prompt?: unknown }
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) {
    throw refuse(`${where}formats: json needs a schema on Trawl ({ "type": "json", "schema": { "type": "object", ... } })`)
  }
  if (prompt !== undefined && typeof prompt !== 'string') throw refuse(`${where}formats: json prompt must be a string`)
  return { schema: schema as Record<string, unknown>, ...(prompt && { prompt }) }
}

/** Trawl's parameter names in a validation message, as the Firecrawl field names they came from. */
export function firecrawlNames(message: string, names: Record<string, string>): string {
  let out = message
  for (const [trawl, firecrawl] of Object.entries(names)) out = out.replace(new RegExp(`\\b${trawl}\\b`, 'g'), firecrawl)
  return out.replace(/^([\w.]+): \1\b/, '$1') // "lang: language must …" once renamed
}
