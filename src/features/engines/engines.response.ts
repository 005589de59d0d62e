import { z } from 'zod'

const State = z.enum(['healthy', 'degraded', 'blocked', 'drifting', 'down'])

const Layout = z.object({
  layout: z.string().describe('search, news, images, videos, autocomplete, …; a route of web search is `search@<route>`'),
  state: State.describe('down: a route whose last two requests failed on the network (DNS, connection, TLS, timeout)'),
  since: z.string().nullable().describe('when the current state began'),
  requests: z.number().int().describe('answers in the rolling window (last 50)'),
  block_rate: z.number(),
  timeout_rate: z.number(),
  error_rate: z.number(),
  unreadable_rate: z.number().describe('share of answered pages parsed as partial or empty'),
  p50_ms: z.number().nullable(),
  p95_ms: z.number().nullable(),
  last_at: z.string().nullable(),
  last_failure: z
    .string()
    .nullable()
    .describe("why the latest failure in the window failed: a block's cause (CAPTCHA page, DuckDuckGo's 202, a gate's proof of work), a timeout, an error"),
})

export const EngineStatus = z.object({
  name: z.string(),
  primary: z.boolean(),
  verticals: z.array(z.string()),
  params: z.array(z.string()).describe('optional request parameters the provider honours'),
  auto: z.boolean().describe('tried by engine=auto'),
  consensus: z.boolean().describe('asked by engine=consensus'),
  state: State.describe('the worst state of its layouts'),
  since: z.string().nullable(),
  layouts: z.array(Layout),
  routes: z
    .array(
      z.object({
        name: z.string().describe('wml, web, browser, html, lite, djs, api, …'),
        available: z.boolean().describe('false when this deployment cannot use it (no browser, no API key)'),
        unavailable_reason: z.string().nullable(),
        health: Layout.nullable().describe('null until the route has been asked'),
      }),
    )
    .describe('web search routes in the order they are tried inside one request; the first healthy one that takes the request answers'),
})

export const EnginesResponse = z.object({ engines: z.array(EngineStatus) })
export type EngineStatus = z.infer<typeof EngineStatus>
