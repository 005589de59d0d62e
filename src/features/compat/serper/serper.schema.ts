import { z } from 'zod'
import { country, intBetween, language } from '../../../params/search.params.ts'

/**
 * Serper's request (https://google.serper.dev/<endpoint>): one object of q, gl, hl, num, page, tbs,
 * location, autocorrect (and ll for maps), as a JSON body or, as LangChain's Python wrapper sends it,
 * in the query string of a POST with an empty body. A JSON array of such objects is several queries.
 */

export const SERPER_ENDPOINTS = ['search', 'images', 'news', 'places', 'maps', 'videos', 'shopping', 'scholar', 'patents', 'autocomplete'] as const
export type SerperEndpoint = (typeof SERPER_ENDPOINTS)[number]

/** Queries one call may carry as a JSON array (Serper's own cap). */
export const MAX_QUERIES = 100

// The checks of Trawl's country and language without their normalising transforms: a schema that
// transforms loses its examples in the OpenAPI document, and the Trawl endpoint normalises anyway.
const text = (name: string, max: number) => z.string({ error: `${name} must be a string` }).max(max, `${name} must be at most ${max} characters`)

export const SerperQuery = z.strictObject({
  q: z.string({ error: 'q must be a string' }).trim().min(1, 'q must not be empty').max(2048, 'q must be at most 2,048 characters'),
  gl: country.in.optional().describe('country, two-letter code; default us'),
  hl: language.in.optional().describe('language code, e.g. en or pt-br; default en'),
  num: intBetween('num', 1, 100).optional().describe('results, 1 to 100; default 10; billed at the Trawl depth holding it (10: 1 credit, 20: 2, 100: 7)'),
  page: intBetween('page', 1, 10).optional().describe('default 1'),
  tbs: text('tbs', 256).optional().describe('time filter such as qdr:d'),
  location: text('location', 256).optional().describe('canonical location, e.g. Austin, Texas, United States'),
  autocorrect: z.boolean({ error: 'autocorrect must be true or false' }).optional().describe('search only; default true'),
  ll: text('ll', 64).optional().describe('maps only: @lat,lng,zoomz'),
  type: text('type', 32).optional().describe('accepted and ignored (the path names the endpoint)'),
  engine: text('engine', 32).optional().describe('accepted and ignored'),
})

export type SerperQuery = z.infer<typeof SerperQuery>

export const SerperBody = z.union([SerperQuery, z.array(SerperQuery).min(1).max(MAX_QUERIES)]).meta({
  description: 'one query, or a JSON array of up to 100 queries (each billed as its own call)',
  examples: [{ q: 'apple inc', gl: 'us', hl: 'en', num: 10 }],
})

const NUMBERS = new Set(['num', 'page'])

/** Query-string values typed as the JSON body would carry them (num=10 → 10, autocorrect=false → false). */
export function queryParams(query: Record<string, string | string[] | undefined>): Record<string, unknown> {
  // No prototype: a `__proto__` parameter is kept as a key (and refused as unknown), not swallowed by the setter.
  const out: Record<string, unknown> = Object.create(null)
  for (const [key, raw] of Object.entries(query ?? {})) {
    const value = Array.isArray(raw) ? raw[raw.length - 1] : raw
    if (value === undefined) continue
    if (NUMBERS.has(key)) out[key] = /^\d{1,6}$/.test(value) ? Number(value) : value
    else if (key === 'autocorrect') out[key] = value === 'true' || value === 'True' ? true : value === 'false' || value === 'False' ? false : value
    else out[key] = value
  }
  return out
}
