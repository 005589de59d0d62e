import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { z } from 'zod'
import type { AppDeps } from '../../../deps.ts'
import { tavilyErrorHandling, tavilyErrorResponses } from './tavily.errors.ts'
import { type Charges, sendTavily } from './tavily.money.ts'
import { tavilyCrawl, tavilyExtract, tavilyMap } from './tavily.pages.ts'
import { TavilyCrawlResponse, TavilyExtractResponse, TavilyMapResponse, TavilySearchResponse, TavilyUsageResponse } from './tavily.response.ts'
import { readTavily, TavilyCrawlParams, TavilyExtractParams, TavilyMapParams, TavilySearchParams } from './tavily.schema.ts'
import { tavilySearch } from './tavily.search.ts'
import { tavilyUsage } from './tavily.usage.ts'

export const TAVILY_PREFIX = '/compat/tavily'

/**
 * Tavily's API at <base>/compat/tavily: point a Tavily client's base URL there and give it a
 * Trawl key (Bearer, or api_key in the body). Each call is billed as the Trawl endpoint it maps
 * to; errors answer Tavily's statuses and body (tavily.errors.ts). docs/compat-tavily.md.
 */
export function tavilyRoutes(app: FastifyInstance, deps: AppDeps) {
  app.register(
    async (scope) => {
      tavilyErrorHandling(scope)
      const billed = { auth: 'key' as const, billed: true, keyFrom: { bodyField: 'api_key' } }
      const tags = ['compat-tavily']
      /** A Tavily POST: the body read (fields Tavily does not know named in the answer), one call, the answer billed. */
      const tavilyPost = <S extends z.ZodObject<{ include_usage: z.ZodOptional<z.ZodBoolean> }>>(
        path: string,
        doc: { operationId: string; summary: string; description: string },
        params: S,
        response: z.ZodType,
        call: (
          params: z.infer<S>,
          req: FastifyRequest,
          reply: FastifyReply,
        ) => Promise<{ body: object; charges: Pick<Charges, 'usedMc' | 'balanceMc' | 'cacheHit'> }>,
      ) =>
        scope.post(
          path,
          { config: billed, schema: { ...doc, tags, body: params, response: { 200: response, ...tavilyErrorResponses } } },
          async (req, reply) => {
            const { params: read, ignored } = readTavily(params, req.body)
            const { body, charges } = await call(read, req, reply)
            return sendTavily(req, reply, body, charges, { usage: read.include_usage, ignored, usdPerCredit: deps.usdPerCredit })
          },
        )

      tavilyPost(
        '/search',
        {
          operationId: 'tavilySearch',
          summary: 'Tavily-compatible search',
          description:
            "Tavily's POST /search. topic general and finance are /v1/search, topic news /v1/news, billed as those (1 credit per page of 10; max_results over 10 is two pages). include_raw_content and search_depth advanced read the result pages (+1 credit per page read); include_images is a /v1/images call; include_answer is the operator's model's answer citing the results when one is configured (+1 model call), else extractive (BM25 over the results).",
        },
        TavilySearchParams,
        TavilySearchResponse,
        (params, req) => tavilySearch(deps, req.auth, params, req.id),
      )
      tavilyPost(
        '/extract',
        {
          operationId: 'tavilyExtract',
          summary: 'Tavily-compatible extract',
          description:
            "Tavily's POST /extract: /v1/extract, billed as it is (1 credit per page that came back, failures free). With query, raw_content holds each page's chunks most relevant to it.",
        },
        TavilyExtractParams,
        TavilyExtractResponse,
        (params, req) => tavilyExtract(deps, req.auth, params, req.id),
      )
      tavilyPost(
        '/map',
        {
          operationId: 'tavilyMap',
          summary: 'Tavily-compatible map',
          description: "Tavily's POST /map: /v1/map (sitemaps and the start page's links), billed as it is (1 credit when URLs were found).",
        },
        TavilyMapParams,
        TavilyMapResponse,
        (params, req) => tavilyMap(deps, req.auth, params, req.id),
      )
      // The client going away cancels the crawl: what it read so far is returned.
      tavilyPost(
        '/crawl',
        {
          operationId: 'tavilyCrawl',
          summary: 'Tavily-compatible crawl',
          description:
            "Tavily's POST /crawl, answered when the crawl ends: a /v1/crawl, billed as it is (limit credits held, 1 per page read, the rest refunded). After timeout (at most 110 s) or when the client goes away the crawl is canceled and the pages read so far returned.",
        },
        TavilyCrawlParams,
        TavilyCrawlResponse,
        (params, req, reply) => tavilyCrawl(deps, req.auth, params, req.id, () => reply.raw.destroyed || req.raw.socket?.destroyed === true),
      )

      scope.get(
        '/usage',
        {
          config: { auth: 'key-free' },
          schema: {
            operationId: 'tavilyUsage',
            summary: 'Tavily-compatible usage',
            description: "Tavily's GET /usage: this key's and account's credits this UTC month, by endpoint. Free, like GET /v1/account.",
            tags,
            response: { 200: TavilyUsageResponse, ...tavilyErrorResponses },
          },
        },
        async (req) => tavilyUsage(deps.store, req.auth),
      )
    },
    { prefix: TAVILY_PREFIX },
  )
}
