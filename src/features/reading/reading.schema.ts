import { z } from 'zod'
import { ApiError } from '../../errors.ts'
import { maxTokens, renderMode } from '../../params/page.params.ts'
import { country, flag, intBetween, maxAge } from '../../params/search.params.ts'

/**
 * Request bodies of POST /v1/extract and POST /v1/webpage (extract: up to 20
 * URLs). Both read pages the same way, so they share every option but the URL field.
 */

export const MAX_EXTRACT_URLS = 20
export const DEFAULT_TIMEOUT_SECONDS = 50

/** Each entry is only length-checked here: a malformed URL fails alone in `failed[]`, not the whole call. */
const urlEntry = z.string({ error: 'must be a URL string' }).max(8192, 'must be at most 8,192 characters')

const options = {
  format: z.enum(['markdown', 'text', 'html'], { error: 'format must be markdown, text or html' }).optional(),
  query: z.string({ error: 'query must be a string' }).trim().min(1, 'query must not be empty').max(4096, 'query must be at most 4,096 characters').optional(),
  highlights: intBetween('highlights', 0, 10).optional(),
  max_tokens: maxTokens.optional(),
  include_links: flag('include_links').optional(),
  include_images: flag('include_images').optional(),
  max_age: maxAge.optional(),
  country: country.optional(),
  timeout: z
    .number({ error: 'timeout must be a whole number of seconds between 1 and 90' })
    .int('timeout must be a whole number of seconds between 1 and 90')
    .min(1, 'timeout must be between 1 and 90 seconds')
    .max(90, 'timeout must be between 1 and 90 seconds')
    .optional(),
  render: renderMode.optional(),
  schema: z
    .record(z.string(), z.unknown(), { error: 'schema must be a JSON Schema object' })
    .optional()
    .describe(
      "a JSON Schema (type object): the operator's model fills it from the page into `data`, with `basis` naming the page passages each field came from; +1 credit per model call used (docs/models.md); 501 not_configured without a model",
    ),
  prompt: z
    .string({ error: 'prompt must be a string' })
    .trim()
    .min(1, 'prompt must not be empty')
    .max(2000, 'prompt must be at most 2,000 characters')
    .optional()
    .describe('with schema: instructions for the model (what to look for); the page stays the only source'),
}

function checkOptions(v: { highlights?: number; query?: string; schema?: unknown; prompt?: string; format?: string }, ctx: z.RefinementCtx) {
  if ((v.highlights ?? 0) > 0 && !v.query) {
    ctx.addIssue({ code: 'custom', path: ['highlights'], message: 'highlights requires query (the text passages are ranked against)' })
  }
  if (v.prompt !== undefined && v.schema === undefined) ctx.addIssue({ code: 'custom', path: ['prompt'], message: 'prompt requires schema' })
  if (v.schema !== undefined && (v.format ?? 'markdown') !== 'markdown') {
    ctx.addIssue({ code: 'custom', path: ['schema'], message: 'schema needs format markdown (the model reads the Markdown, and basis points into it)' })
  }
}

export const ExtractParams = z
  .strictObject({
    urls: z
      .array(urlEntry, { error: 'urls must be a list of 1 to 20 URLs' })
      .min(1, 'urls must list at least one URL')
      .max(MAX_EXTRACT_URLS, `urls may list at most ${MAX_EXTRACT_URLS} URLs per call; send more with several calls`),
    ...options,
  })
  .superRefine(checkOptions)

export const WebpageParams = z
  .strictObject({
    url: z.string({ error: 'url must be a URL string' }).min(1, 'url must not be empty').max(8192, 'url must be at most 8,192 characters'),
    ...options,
  })
  .superRefine(checkOptions)

export type ExtractParams = z.infer<typeof ExtractParams>
export type WebpageParams = z.infer<typeof WebpageParams>

/**
 * The one-URL and many-URL endpoints are easy to mix up; say which field the other one takes
 * instead of the generic "unknown parameter". Runs before the schema, so it wins over that message.
 */
export function rejectSwappedUrlField(body: unknown, endpoint: 'extract' | 'webpage') {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return
  if (endpoint === 'extract' && Object.hasOwn(body, 'url') && !Object.hasOwn(body, 'urls')) {
    throw new ApiError('invalid_request', 'unknown parameter url: use urls (a list of 1 to 20 URLs), or POST /v1/webpage for one page')
  }
  if (endpoint === 'webpage' && Object.hasOwn(body, 'urls')) {
    throw new ApiError('invalid_request', 'unknown parameter urls: use url (one page), or POST /v1/extract for up to 20 pages')
  }
}
