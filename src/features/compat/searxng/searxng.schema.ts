import { z } from 'zod'
import { describeEngines } from '../../../engines/registry.ts'

/**
 * SearXNG's search parameters (docs.searxng.org "Search API"), documented for GET query strings and
 * POST form or JSON bodies. Like SearXNG, other parameters (theme, image_proxy, enabled_plugins,
 * LangChain's numResults…) are accepted and ignored; values are read as SearXNG reads them, as text.
 */
export const SearxngParams = z
  .object({
    q: z.string().describe('the query (required)'),
    format: z.string().optional().describe('json (default here); html, csv and rss are refused with 403, as by an instance that turned them off'),
    categories: z
      .string()
      .optional()
      .describe('comma-separated: general (web search, default), news, images or videos; the first one Trawl has is searched, others are ignored'),
    engines: z
      .string()
      .optional()
      .describe(
        `comma-separated SearXNG engine names: ${describeEngines({ primary: null, last: ',' })} and their news/images/videos variants are Trawl providers, tried in the order given; others are ignored and listed in unresponsive_engines`,
      ),
    language: z.string().optional().describe('all, auto, or a code such as en or de-DE (the region also sets the country)'),
    pageno: z.string().optional().describe('page, 1 to 10 (default 1); later pages answer no results'),
    time_range: z.string().optional().describe('day, week, month or year'),
    safesearch: z.string().optional().describe('0 (off, default), 1 or 2 (on)'),
    api_key: z.string().optional().describe('the Trawl key, instead of Authorization: Bearer'),
  })
  .meta({ examples: [{ q: 'espresso grinder', format: 'json', categories: 'general', language: 'en' }] })

export type SearxngParams = z.infer<typeof SearxngParams>
