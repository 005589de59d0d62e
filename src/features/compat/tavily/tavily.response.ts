import { z } from 'zod'

/** Tavily's answer shapes (what @tavily/core and tavily-python read), for the OpenAPI document. */

const usage = z
  .object({ credits: z.number().describe('Trawl credits this call cost (X-Credits-Used)') })
  .optional()
  .describe('with include_usage')
const responseTime = z.number().describe('seconds spent on the request')
const requestId = z.string().describe('the Trawl request id (X-Request-Id)')

export const TavilySearchResult = z.object({
  title: z.string(),
  url: z.string(),
  content: z.string().describe('the result snippet; with search_depth advanced the page chunks most relevant to the query'),
  score: z.number().describe('0 to 1: BM25 relevance of title and content to the query, blended with the engine rank; results keep the engine order'),
  raw_content: z.string().nullable().describe('with include_raw_content: the page as Markdown (up to 4,000 tokens); null when not asked or unreadable'),
  published_date: z.string().optional().describe('topic news: the date as the engine shows it'),
  favicon: z.string().optional().describe('with include_favicon'),
})

export const TavilyImage = z.union([z.string(), z.object({ url: z.string(), description: z.string() })])

export const TavilySearchResponse = z.object({
  query: z.string(),
  follow_up_questions: z.null(),
  answer: z
    .string()
    .nullable()
    .describe(
      "with include_answer: the operator's model's answer citing results as [n] (results[n-1]) when one is configured, else an extractive one; or null",
    ),
  images: z.array(TavilyImage).describe('with include_images: image URLs, or {url, description} with include_image_descriptions'),
  results: z.array(TavilySearchResult),
  response_time: responseTime,
  request_id: requestId,
  usage,
})

export const TavilyPage = z.object({
  url: z.string(),
  title: z.string().nullable().optional(),
  raw_content: z.string().describe('the page as Markdown or text; with query (extract) or instructions (crawl) its most relevant chunks'),
  images: z.array(z.string()),
  favicon: z.string().optional().describe('with include_favicon'),
})

export const TavilyExtractResponse = z.object({
  results: z.array(TavilyPage),
  failed_results: z.array(z.object({ url: z.string(), error: z.string() })),
  response_time: responseTime,
  request_id: requestId,
  usage,
})

export const TavilyMapResponse = z.object({
  base_url: z.string(),
  results: z.array(z.string()).describe('URLs of the site'),
  response_time: responseTime,
  request_id: requestId,
  usage,
})

export const TavilyCrawlResponse = z.object({
  base_url: z.string(),
  results: z.array(TavilyPage),
  response_time: responseTime,
  request_id: requestId,
  usage,
})

const endpointUsage = {
  search_usage: z.number(),
  extract_usage: z.number(),
  crawl_usage: z.number(),
  map_usage: z.number(),
  research_usage: z.number(),
}

export const TavilyUsageResponse = z.object({
  key: z
    .object({
      usage: z.number().describe('credits this key spent this UTC month'),
      limit: z.number().nullable().describe("the key's monthly credit limit, or null"),
      ...endpointUsage,
    })
    .describe('this key, this UTC month, by Trawl endpoint (search: every search vertical)'),
  account: z
    .object({
      current_plan: z.string(),
      plan_usage: z.number().describe('credits the account spent this UTC month'),
      plan_limit: z.number().nullable().describe('the monthly spend cap, or null'),
      paygo_usage: z.number().describe('always 0: Trawl credits are prepaid'),
      paygo_limit: z.number().nullable(),
      balance: z.number().describe('Trawl: credits left on the account'),
      ...endpointUsage,
    })
    .describe('the whole account, this UTC month'),
})

export const TavilyError = z
  .object({ detail: z.object({ error: z.string().describe('what went wrong; names the parameter at fault') }) })
  .describe('Tavily error body')

/** The named schemas these routes answer (OpenAPI components). */
export const TAVILY_COMPONENTS = {
  TavilySearchResponse,
  TavilySearchResult,
  TavilyExtractResponse,
  TavilyPage,
  TavilyMapResponse,
  TavilyCrawlResponse,
  TavilyUsageResponse,
  TavilyError,
}
