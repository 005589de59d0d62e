import { z } from 'zod'
import { type ContextLike, renderContextMarkdown } from '../context/context.markdown.ts'
import { DEFAULT_CONTEXT_PAGES, DEFAULT_CONTEXT_TOKENS } from '../context/context.schema.ts'
import { expectOk } from './mcp.api.ts'
import type { ToolDef } from './mcp.tools.ts'

/**
 * The MCP tool `context`: one POST /v1/context on the caller's key (so billed as that call), the
 * passages as Markdown and as structured content. No cursor: the answer is already bounded by
 * max_tokens, which is the passages' budget here.
 */

export const ContextInput = z.strictObject({
  q: z.string().trim().min(1).max(2048).describe('The question to answer, in plain words. It is searched for, and the passages are ranked against it.'),
  max_tokens: z
    .number()
    .int()
    .min(500)
    .max(50_000)
    .optional()
    .describe(`Budget for all passages together, in tokens (500 to 50,000, default ${DEFAULT_CONTEXT_TOKENS}). Fewer are given when fewer match well.`),
  num: z
    .number()
    .int()
    .min(1)
    .max(10)
    .optional()
    .describe(`How many top results to read (1 to 10, default ${DEFAULT_CONTEXT_PAGES}); 1 credit each. A result that cannot be read is replaced by the next.`),
  engine: z
    .string()
    .min(1)
    .max(200)
    .optional()
    .describe('Search provider: google (default), bing, duckduckgo, brave, mojeek, startpage, wikipedia, several comma-separated, auto or consensus.'),
  country: z
    .string()
    .regex(/^[A-Za-z]{2}$/)
    .optional()
    .describe('Two-letter country code whose results to get (default us).'),
  language: z
    .string()
    .regex(/^[A-Za-z]{2,3}(-[A-Za-z]{2}|-[A-Za-z]{4})?$/)
    .optional()
    .describe('Language code of the results, optionally with region: en, de, pt-BR (default en).'),
  time: z.enum(['hour', 'day', 'week', 'month', 'year']).optional().describe('Only results from the past hour, day, week, month or year.'),
  include_domains: z
    .array(z.string().min(1).max(300))
    .min(1)
    .max(20)
    .optional()
    .describe('Read only results from these sites: up to 20 domains (example.com), path prefixes (example.com/docs) or TLDs (.gov).'),
  exclude_domains: z.array(z.string().min(1).max(300)).min(1).max(20).optional().describe('Never read results from these sites (same forms).'),
  max_age: z
    .number()
    .int()
    .min(0)
    .max(31_536_000)
    .optional()
    .describe('Accept a cached search and cached pages up to this many seconds old, each at half price.'),
})

const Passage = z.object({
  text: z.string(),
  url: z.string(),
  title: z.string().nullable(),
  position: z.number().int().describe('rank of the search result it comes from'),
  score: z.number(),
  tokens: z.number().int(),
  start: z.number().int().describe("offset in the page's Markdown as the webpage tool gives it"),
  end: z.number().int(),
  heading: z.string().nullable(),
})

const Source = z.object({
  url: z.string(),
  title: z.string(),
  position: z.number().int(),
  read: z.boolean(),
  passages: z.number().int(),
  error: z.object({ code: z.string(), message: z.string() }).nullable().describe('why it was not read (not billed)'),
})

export const ContextOutput = z.object({
  query: z.string(),
  passages: z.array(Passage).describe('best first'),
  sources: z.array(Source).describe('every search result considered'),
  tokens_used: z.number().int(),
  truncated: z.boolean().describe('more passages matched than max_tokens holds'),
  engine: z.string().nullable(),
  request_id: z.string().nullable(),
  credits_used: z.number().nullable(),
  credits_remaining: z.number().nullable(),
})

type Json = Record<string, unknown>

export const contextTool = {
  name: 'context',
  title: 'Passages that answer a question',
  description: [
    'Answer material for a question in one call: searches the web, reads the top results and returns only the passages most relevant to the question, best first, within a token budget (max_tokens).',
    'Each passage names its page (url, title, search position). Use it instead of search followed by webpage when you need facts, not links.',
    'Costs 1 credit for the search plus 1 per page read (num, default 5; half price from cache with max_age); pages that cannot be read are listed and cost nothing.',
  ].join(' '),
  input: ContextInput,
  output: ContextOutput,
  annotations: { readOnlyHint: true, openWorldHint: true },
  async run(ctx, args) {
    const body: Json = {}
    for (const [k, v] of Object.entries(args)) if (v !== undefined) body[k] = v
    const reply = expectOk(await ctx.api({ method: 'POST', path: '/v1/context', body }))
    const answer = reply.body as ContextLike & { meta: Json; passages: z.infer<typeof Passage>[] }
    const billing = { request_id: reply.requestId, credits_used: reply.creditsUsed, credits_remaining: reply.creditsRemaining }
    const credits =
      billing.credits_used == null
        ? ''
        : `\n\nCredits used: ${billing.credits_used}${billing.credits_remaining != null ? ` · remaining: ${billing.credits_remaining}` : ''}`
    return {
      text: renderContextMarkdown(answer) + credits,
      structured: {
        query: args.q,
        passages: answer.passages,
        sources: answer.sources.map((s) => ({
          url: s.url,
          title: s.title,
          position: s.position,
          read: s.read,
          passages: s.passages ?? 0,
          error: s.error ?? null,
        })),
        tokens_used: typeof answer.meta.tokens_used === 'number' ? answer.meta.tokens_used : 0,
        truncated: answer.meta.truncated === true,
        engine: typeof answer.meta.engine === 'string' ? answer.meta.engine : null,
        ...billing,
      },
    }
  },
} satisfies ToolDef<typeof ContextInput, typeof ContextOutput> as unknown as ToolDef
