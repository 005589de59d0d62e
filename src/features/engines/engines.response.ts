import { z } from 'zod'

const Layout = z.object({
  layout: z.string().describe('search, news, images, videos, autocomplete, …'),
  state: z.enum(['healthy', 'degraded', 'blocked', 'drifting']),
  since: z.string().nullable().describe('when the current state began'),
  requests: z.number().int().describe('answers in the rolling window (last 50)'),
  block_rate: z.number(),
  timeout_rate: z.number(),
  error_rate: z.number(),
  unreadable_rate: z.number().describe('share of answered pages parsed as partial or empty'),
  p50_ms: z.number().nullable(),
  p95_ms: z.number().nullable(),
  last_at: z.string().nullable(),
})

export const EngineStatus = z.object({
  name: z.string(),
  primary: z.boolean(),
  verticals: z.array(z.string()),
  params: z.array(z.string()).describe('optional request parameters the provider honours'),
  auto: z.boolean().describe('tried by engine=auto'),
  consensus: z.boolean().describe('asked by engine=consensus'),
  state: z.enum(['healthy', 'degraded', 'blocked', 'drifting']).describe('the worst state of its layouts'),
  since: z.string().nullable(),
  layouts: z.array(Layout),
})

export const EnginesResponse = z.object({ engines: z.array(EngineStatus) })
export type EngineStatus = z.infer<typeof EngineStatus>
