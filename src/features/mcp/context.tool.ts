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
  q: z.string().trim().min(1).max(2048).describe('The question'),
  max_tokens: z.number().int().min(500).max(50_000).optional().describe(`default ${DEFAULT_CONTEXT_TOKENS}`),
  num: z.number().int().min(1).max(10).optional().describe(`default ${DEFAULT_CONTEXT_PAGES}`),
  engine: z.string().min(1).max(200).optional().describe('As in search'),
  country: z
    .string()
    .regex(/^[A-Za-z]{2}$/)
    .optional(),
  language: z
    .string()
    .regex(/^[A-Za-z]{2,3}(-[A-Za-z]{2}|-[A-Za-z]{4})?$/)
    .optional(),
  time: z.enum(['hour', 'day', 'week', 'month', 'year']).optional(),
  include_domains: z.array(z.string().min(1).max(300)).min(1).max(20).optional().describe('example.com, example.com/docs or .gov'),
  exclude_domains: z.array(z.string().min(1).max(300)).min(1).max(20).optional(),
  max_age: z.number().int().min(0).optional(),
  answer: z
    .union([z.boolean(), z.enum(['basic', 'advanced'])])
    .optional()
    .describe("The operator's model writes a short answer citing the passages as [n] (+1 credit; only where a model is configured)"),
})

/**
 * Passages and sources are the REST answer's items (docs/context.md), typed loosely; request_id and
 * the credits are left untyped, as in every tool's output (mcp.schemas.ts), to keep tools/list small.
 */
export const ContextOutput = z.looseObject({
  query: z.string(),
  answer: z.unknown().optional(),
  passages: z.array(z.unknown()),
  sources: z.array(z.unknown()),
  tokens_used: z.number().int(),
  truncated: z.boolean(),
  engine: z.string().nullable(),
})

type Json = Record<string, unknown>

export const contextTool = {
  name: 'context',
  description:
    'Search q, read the top num results and return the passages that best answer it, best first, within max_tokens, each with its page: for facts rather than links. 1 credit plus 1 per page read; unreadable pages are free.',
  input: ContextInput,
  output: ContextOutput,
  annotations: { readOnlyHint: true, openWorldHint: true },
  async run(ctx, args) {
    const body: Json = {}
    for (const [k, v] of Object.entries(args)) if (v !== undefined) body[k] = v
    const reply = expectOk(await ctx.api({ method: 'POST', path: '/v1/context', body }))
    const answer = reply.body as ContextLike & { meta: Json; passages: Json[] }
    const billing = { request_id: reply.requestId, credits_used: reply.creditsUsed, credits_remaining: reply.creditsRemaining }
    const credits =
      billing.credits_used == null
        ? ''
        : `\n\nCredits used: ${billing.credits_used}${billing.credits_remaining != null ? ` · remaining: ${billing.credits_remaining}` : ''}`
    return {
      text: renderContextMarkdown(answer) + credits,
      structured: {
        query: args.q,
        ...(answer.answer !== undefined && { answer: answer.answer }),
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
