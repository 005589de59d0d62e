import { z } from 'zod'
import { webhookUrl } from '../../../params/job.params.ts'
import * as p from '../../../params/search.params.ts'

/** POST /v1/research (docs/research.md): every limit is Trawl's, checked here and enforced by the job, whatever the model says. */

export const RESEARCH_LIMITS = {
  input: 2000,
  searches: { min: 1, max: 10, default: 3 },
  pages: { min: 1, max: 30, default: 10 },
  tokens: { min: 1000, max: 50_000, default: 8000 },
} as const

const { searches, pages, tokens } = RESEARCH_LIMITS

/**
 * 50000 → "50,000". Not toLocaleString: these messages are made at start, and a server's first
 * Intl number format pages in ICU's data, about 8 MB an idle server would keep (bench:idle).
 */
const grouped = (n: number) => String(n).replace(/\B(?=(\d{3})+$)/g, ',')

const bounded = (name: string, min: number, max: number) => {
  const range = `between ${grouped(min)} and ${grouped(max)}`
  return z
    .number({ error: `${name} must be an integer ${range}` })
    .int(`${name} must be an integer ${range}`)
    .min(min, `${name} must be ${range}`)
    .max(max, `${name} must be ${range}`)
}

export const ResearchParams = z.strictObject({
  input: z
    .string({ error: 'input must be a string' })
    .trim()
    .min(1, 'input must not be empty')
    .max(RESEARCH_LIMITS.input, 'input must be at most 2,000 characters')
    .describe('the question or topic to research, 1 to 2,000 characters'),
  output_schema: z
    .record(z.string(), z.unknown(), { error: 'output_schema must be a JSON Schema object' })
    .optional()
    .describe(
      'a JSON Schema (2020-12, or draft-07 when $schema says so) of an object: the result is `data` valid against it, with `basis` naming the sources of each field, instead of a Markdown report',
    ),
  max_searches: bounded('max_searches', searches.min, searches.max)
    .optional()
    .describe(`sub-queries searched, ${searches.min} to ${searches.max} (default ${searches.default}); the model proposes them, Trawl keeps at most this many`),
  max_pages: bounded('max_pages', pages.min, pages.max)
    .optional()
    .describe(`pages read in all, ${pages.min} to ${pages.max} (default ${pages.default}), shared among the sub-queries (at most 10 each)`),
  max_tokens: bounded('max_tokens', tokens.min, tokens.max)
    .optional()
    .describe(`o200k tokens of passages in all, 1,000 to 50,000 (default ${tokens.default}), shared among the sub-queries`),
  engine: p.engine.optional().describe('as for /v1/search: google (default), another provider, a comma-separated list or array, auto, or consensus'),
  webhook_url: webhookUrl.optional().describe('receives the signed research.completed event; default: the account webhook'),
})

export type ResearchParams = z.infer<typeof ResearchParams>
