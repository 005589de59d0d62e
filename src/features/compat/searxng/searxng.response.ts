import { z } from 'zod'

/** SearXNG's JSON answer (format=json), as its clients read it, for the OpenAPI document. */

export const SearxngResult = z.object({
  url: z.string(),
  title: z.string(),
  content: z.string().describe('the snippet; empty for images'),
  engine: z.string().describe('the Trawl provider that answered'),
  engines: z.array(z.string()),
  positions: z.array(z.number().int()),
  score: z.number().describe('1 / position, as SearXNG scores one engine'),
  category: z.enum(['general', 'news', 'images', 'videos']),
  template: z.string().describe('default.html, images.html or videos.html'),
  parsed_url: z.array(z.string()).describe('scheme, host, path, params, query, fragment'),
  publishedDate: z.string().nullable().describe('ISO 8601 when the engine printed a date Trawl could read'),
  priority: z.string(),
  thumbnail: z.string().optional().describe('news and videos: the image'),
  img_src: z.string().optional().describe('images: the image'),
  thumbnail_src: z.string().optional().describe('images: its thumbnail'),
  resolution: z.string().optional().describe('images: width x height, when known'),
  source: z.string().optional().describe('news and images: the publisher or site'),
  length: z.string().optional().describe('videos: the duration'),
  author: z.string().optional().describe('videos: the channel'),
})

export const SearxngInfobox = z.object({
  infobox: z.string(),
  id: z.string().nullable(),
  content: z.string(),
  img_src: z.string().nullable(),
  urls: z.array(z.object({ title: z.string(), url: z.string() })),
  attributes: z.array(z.object({ label: z.string(), value: z.string() })),
  engine: z.string(),
  engines: z.array(z.string()),
})

export const SearxngResponse = z.object({
  query: z.string(),
  number_of_results: z.number().int().describe('the number of results in this answer'),
  results: z.array(SearxngResult),
  answers: z.array(z.string()).describe("the engine's answer box, when it printed one"),
  corrections: z.array(z.string()),
  infoboxes: z.array(SearxngInfobox).describe("web search: the engine's knowledge panel"),
  suggestions: z.array(z.string()).describe('web search: related searches'),
  unresponsive_engines: z
    .array(z.tuple([z.string(), z.string()]))
    .describe('[engine, reason]: engines asked for that Trawl does not have or that cannot serve the request, and providers that failed'),
})

/** The named schemas these routes answer (OpenAPI components). */
export const SEARXNG_COMPONENTS = { SearxngResponse, SearxngResult, SearxngInfobox }
