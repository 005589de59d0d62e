import { z } from 'zod'

/** What a reply says of the model calls behind it (context answers, schema extraction): the OpenAPI shape. */
export const ModelUsage = z.object({
  model: z.string().nullable().describe('TRAWL_LLM_MODEL, or null when the endpoint chooses'),
  calls: z.number().int().describe('model calls made (billed only when answered and used)'),
  prompt_tokens: z.number().int(),
  completion_tokens: z.number().int(),
})

export type ModelUsage = z.infer<typeof ModelUsage>

/** The source a filled field came from: a chunk of the page's Markdown as returned. */
export const BasisEntry = z.object({
  n: z.number().int().describe('the source number the model cited'),
  url: z.string(),
  start: z.number().int().describe("offset in the page's Markdown (UTF-16 code units)"),
  end: z.number().int(),
  text: z.string().describe('markdown.slice(start, end)'),
})
