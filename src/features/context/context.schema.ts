import { z } from 'zod'
import { ErrorObject } from '../../http/error-schema.ts'
import { ModelUsage } from '../../llm/model.schema.ts'
import * as p from '../../params/search.params.ts'

/** POST /v1/context: the question, the budget, how many pages, and the search's own filters (as /v1/search takes them). */

export const DEFAULT_CONTEXT_TOKENS = 4000
export const DEFAULT_CONTEXT_PAGES = 5

export const ContextParams = z.strictObject({
  q: p.q.describe('the question or topic: searched for, and what passages are ranked against'),
  max_tokens: z
    .number({ error: 'max_tokens must be an integer between 500 and 50,000' })
    .int('max_tokens must be an integer between 500 and 50,000')
    .min(500, 'max_tokens must be between 500 and 50,000')
    .max(50_000, 'max_tokens must be between 500 and 50,000')
    .optional()
    .describe(`budget in o200k tokens for all passages together, 500 to 50,000 (default ${DEFAULT_CONTEXT_TOKENS})`),
  num: z
    .number({ error: 'num must be the number of pages to read (1 to 10)' })
    .int('num must be an integer between 1 and 10')
    .min(1, 'num must be between 1 and 10')
    .max(10, 'num must be between 1 and 10')
    .optional()
    .describe(`pages to read from the top results, 1 to 10 (default ${DEFAULT_CONTEXT_PAGES}); a result that cannot be read is replaced by the next one`),
  engine: p.engine.optional().describe('as for /v1/search: google (default), another provider, a comma-separated list or array, auto, or consensus'),
  country: p.country.optional().describe('two-letter ISO code of the search; default us'),
  language: p.language.optional().describe('language code of the search, optional region (en, pt-BR); default en'),
  time: p.time.optional().describe('only results from the past hour, day, week, month or year'),
  include_domains: p.domainList('include_domains').optional().describe('up to 20 domains, path prefixes or TLDs (.gov) to keep'),
  exclude_domains: p.domainList('exclude_domains').optional().describe('up to 20 domains, path prefixes or TLDs to drop'),
  max_age: p.maxAge.optional().describe('accept a cached search and cached pages up to this many seconds old, each at half price'),
  answer: z
    .union([z.boolean(), z.enum(['basic', 'advanced'])], { error: 'answer must be true, false, basic or advanced' })
    .optional()
    .describe(
      "true or basic (up to 3 sentences) or advanced (up to 8): the operator's model writes a short answer from the passages, each sentence citing them as [n]; +1 model call (docs/models.md); 501 not_configured without a model",
    ),
})

export type ContextParams = z.infer<typeof ContextParams>

export const ContextPassage = z.object({
  text: z.string().describe("the passage: a slice of its page's Markdown, markdown.slice(start, end)"),
  url: z.string().describe('its page, after redirects (as /v1/webpage answers it)'),
  title: z.string().nullable().describe("its page's title"),
  position: z.number().int().describe('rank of the search result the page was read for'),
  score: z
    .number()
    .describe('relevance to q, comparable within one answer: the lexical score (ranking lexical), the fused reciprocal-rank score (hybrid), or 0 (leads)'),
  tokens: z.number().int().describe('length in o200k tokens'),
  start: z.number().int().describe("offset of the first character in the page's Markdown (UTF-16 code units, as JavaScript strings count)"),
  end: z.number().int().describe('offset just past the last character'),
  heading: z.string().nullable().describe('the nearest heading above the passage (or the one it starts with)'),
})

export const ContextSource = z.object({
  url: z.string().describe("the search result's link"),
  title: z.string().describe("the search result's title"),
  position: z.number().int(),
  read: z.boolean().describe('the page was read (and billed)'),
  cached: z.boolean().optional().describe('read pages: answered from the page cache (max_age), at half price'),
  passages: z.number().int().describe('passages taken from this page'),
  error: ErrorObject.optional().describe('why the page was not read (not billed): upstream_error, upstream_timeout, invalid_request or empty_page'),
})

export const ContextMeta = z.object({
  request_id: z.string(),
  credits_used: z.number(),
  latency_ms: z.number().int(),
  tokens_used: z.number().int().describe("the passages' tokens together; at most max_tokens"),
  truncated: z
    .boolean()
    .describe('passages relevant enough to give were left out because max_tokens was reached: tokens_relevant says what budget would hold them'),
  tokens_relevant: z
    .number()
    .int()
    .describe('tokens of every passage relevant enough to give (those given and those left out for the budget): a max_tokens that would hold them all'),
  ranking: z
    .enum(['lexical', 'hybrid', 'leads'])
    .describe(
      'how passages were chosen: lexical (words, stems and WordNet relations of q), hybrid (lexical fused with the operator embeddings endpoint), or leads (nothing matched q: the first passage of each page read, in result order)',
    ),
  notes: z.array(z.string()).describe('why the answer is as it is when that is not plain ranking: a fallback to leads, an embeddings endpoint that failed'),
  engine: z.string().describe('the provider(s) that answered the search'),
  cached: z.boolean().describe('the search itself was answered from the cache (max_age)'),
  pages_read: z.number().int(),
  model: ModelUsage.optional().describe('with answer: what the model was asked and answered'),
})

export const ContextAnswer = z
  .object({
    text: z.string().describe('the answer; [n] cites passages[n-1] (every sentence cites at least one passage)'),
    citations: z
      .array(
        z.object({
          n: z.number().int().describe('the number used in the text'),
          url: z.string(),
          title: z.string().nullable(),
          start: z.number().int().describe("offset in the page's Markdown, as the passage's"),
          end: z.number().int(),
        }),
      )
      .describe('each passage the answer cites, in order of first citation'),
  })
  .nullable()
  .describe("with answer: the model's answer, checked against the passages; null when none could be written (meta.notes says why)")

export const ContextResponse = z.object({
  request: z.record(z.string(), z.unknown()).describe('the normalised request, defaults filled in'),
  answer: ContextAnswer.optional(),
  passages: z.array(ContextPassage).describe('best first'),
  sources: z.array(ContextSource).describe('every result considered, in result order'),
  meta: ContextMeta,
})

export type ContextPassage = z.infer<typeof ContextPassage>
export type ContextResponse = z.infer<typeof ContextResponse>
export type ContextAnswer = z.infer<typeof ContextAnswer>
