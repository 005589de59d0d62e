import { z } from 'zod'
import { ParseQuality } from '../engines/results.schema.ts'
import type { RouteAttempt } from '../engines/upstream/upstream.types.ts'
import { elapsed } from './billed-lookup.ts'

/**
 * One entry of `route`: documented as an open record (its fields vary with the outcome), typed as
 * the engines' RouteAttempt it always is.
 */
const RouteEntry = z.record(z.string(), z.unknown()) as unknown as z.ZodType<RouteAttempt>

/**
 * The `meta` of /v1/search, the verticals and /v1/rank: made here, where the billed lookup fills in
 * its request id, credits and latency (billed-lookup.ts), and sent as this schema says.
 */
export const SearchMeta = z.object({
  request_id: z.string(),
  credits_used: z.number(),
  cached: z.boolean(),
  cached_at: z.string().optional().describe('present for cached results'),
  engine: z.string(),
  route: z
    .array(RouteEntry)
    .describe(
      'one entry per upstream attempt: engine, host, status, outcome (ok, blocked, timeout, error, or skipped for a provider auto/consensus passed over), reason, ms',
    ),
  providers: z
    .record(z.string(), z.number().int())
    .optional()
    .describe('engine=consensus: each provider that returned results, with its result count (one page billed each)'),
  latency_ms: z.number().int(),
  parse_quality: ParseQuality,
  resolved_urls: z.boolean(),
})

export type SearchMeta = z.infer<typeof SearchMeta>

/** The meta of a live answer; request_id, credits and latency are final after settling. */
export function liveMeta(
  requestId: string,
  answer: { engine: string; attempts: RouteAttempt[] },
  started: number,
  results: readonly unknown[],
  quality: SearchMeta['parse_quality'],
): SearchMeta {
  return {
    request_id: requestId,
    credits_used: 0,
    cached: false,
    engine: answer.engine,
    route: answer.attempts,
    latency_ms: elapsed(started),
    parse_quality: results.length === 0 ? 'empty' : quality,
    resolved_urls: !results.some(isRedirectLink),
  }
}

/**
 * Links that lead through the engine before the page: Google News' article links (the feed gives
 * no other), and the click-tracking forms of Google, Bing and DuckDuckGo should a parser ever pass
 * one on. `resolved_urls` is false when any result links through one of them.
 */
const REDIRECT_LINK =
  /^https?:\/\/(?:news\.google\.com\/(?:rss\/)?articles\/|(?:www\.)?google\.[a-z.]+\/url\?|(?:www\.)?bing\.com\/ck\/a\?|(?:html\.)?duckduckgo\.com\/l\/\?)/i

function isRedirectLink(result: unknown): boolean {
  const link = (result as { link?: unknown } | null)?.link
  return typeof link === 'string' && REDIRECT_LINK.test(link)
}
