import type { FastifyInstance } from 'fastify'
import type { AppDeps } from '../../../deps.ts'
import { tavilyErrorHandling, tavilyErrorResponses } from './tavily.errors.ts'
import { sendTavily } from './tavily.money.ts'
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
      const opts = (usage: boolean | undefined, ignored: string[]) => ({ usage, ignored, usdPerCredit: deps.usdPerCredit })

      scope.post(
        '/search',
        {
          config: billed,
          schema: {
            operationId: 'tavilySearch',
            summary: 'Tavily-compatible search',
            description:
              "Tavily's POST /search. topic general and finance are /v1/search, topic news /v1/news, billed as those (1 credit per page of 10; max_results over 10 is two pages). include_raw_content and search_depth advanced read the result pages (+1 credit per page read); include_images is a /v1/images call; include_answer is extractive (BM25 over the results), never a model's.",
            tags,
            body: TavilySearchParams,
            response: { 200: TavilySearchResponse, ...tavilyErrorResponses },
          },
        },
        async (req, reply) => {
          const { params, ignored } = readTavily(TavilySearchParams, req.body)
          const { body, charges } = await tavilySearch(deps, req.auth, params, req.id)
          return sendTavily(req, reply, body, charges, opts(params.include_usage, ignored))
        },
      )

      scope.post(
        '/extract',
        {
          config: billed,
          schema: {
            operationId: 'tavilyExtract',
            summary: 'Tavily-compatible extract',
            description:
              "Tavily's POST /extract: /v1/extract, billed as it is (1 credit per page that came back, failures free). With query, raw_content holds each page's chunks most relevant to it.",
            tags,
            body: TavilyExtractParams,
            response: { 200: TavilyExtractResponse, ...tavilyErrorResponses },
          },
        },
        async (req, reply) => {
          const { params, ignored } = readTavily(TavilyExtractParams, req.body)
          const { body, charges } = await tavilyExtract(deps, req.auth, params, req.id)
          return sendTavily(req, reply, body, charges, opts(params.include_usage, ignored))
        },
      )

      scope.post(
        '/map',
        {
          config: billed,
          schema: {
            operationId: 'tavilyMap',
            summary: 'Tavily-compatible map',
            description: "Tavily's POST /map: /v1/map (sitemaps and the start page's links), billed as it is (1 credit when URLs were found).",
            tags,
            body: TavilyMapParams,
            response: { 200: TavilyMapResponse, ...tavilyErrorResponses },
          },
        },
        async (req, reply) => {
          const { params, ignored } = readTavily(TavilyMapParams, req.body)
          const { body, charges } = await tavilyMap(deps, req.auth, params, req.id)
          return sendTavily(req, reply, body, charges, opts(params.include_usage, ignored))
        },
      )

      scope.post(
        '/crawl',
        {
          config: billed,
          schema: {
            operationId: 'tavilyCrawl',
            summary: 'Tavily-compatible crawl',
            description:
              "Tavily's POST /crawl, answered when the crawl ends: a /v1/crawl, billed as it is (limit credits held, 1 per page read, the rest refunded). After timeout (at most 110 s) or when the client goes away the crawl is canceled and the pages read so far returned.",
            tags,
            body: TavilyCrawlParams,
            response: { 200: TavilyCrawlResponse, ...tavilyErrorResponses },
          },
        },
        async (req, reply) => {
          const { params, ignored } = readTavily(TavilyCrawlParams, req.body)
          const gone = () => reply.raw.destroyed || req.raw.socket?.destroyed === true
          const { body, charges } = await tavilyCrawl(deps, req.auth, params, req.id, gone)
          return sendTavily(req, reply, body, charges, opts(params.include_usage, ignored))
        },
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
