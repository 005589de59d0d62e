/** Shapes shared by the response output layer (fields=, format=compact, format=markdown) of every search vertical. */
import type { z } from 'zod'
import { type SearchMeta, SearchResponse } from '../search.response.ts'
import { verticalResponse } from '../verticals/vertical.response.ts'

export const VERTICALS = ['search', 'news', 'images', 'videos', 'maps', 'places', 'shopping', 'scholar', 'patents', 'reviews', 'autocomplete', 'lens'] as const

export type Vertical = (typeof VERTICALS)[number]

export type OutputFormat = 'json' | 'compact' | 'markdown'

/** The `meta` of every search-family response. */
export type ResponseMeta = z.infer<typeof SearchMeta>

/**
 * The envelope every vertical produces. Vertical extra keys (people_also_ask, next_page_token, ...) ride along
 * as further properties; the functions here take `B extends ResponseBody` so typed bodies pass without casts.
 * `meta` is loosely typed on purpose: services build it as a plain record (it is cached and replayed), and the
 * renderers read each meta field defensively. `ResponseMeta` is the shape services should aim for.
 */
export interface ResponseBody {
  request: object
  results: readonly unknown[]
  meta: object
}

/** A JSON object as the output layer reads it: it only ever sees parsed, plain data. */
export type JsonObject = Record<string, unknown>

/** The vertical's format=json response schema. */
export function responseSchema(vertical: Vertical): z.ZodObject {
  return vertical === 'search' ? SearchResponse : verticalResponse(vertical)
}

/**
 * Every top-level key a `fields=` path may start with on this vertical: its response schema's keys, so a typo
 * fails loudly instead of silently returning an empty object.
 */
export function topLevelKeys(vertical: Vertical): readonly string[] {
  return Object.keys(responseSchema(vertical).shape)
}

/** The public path of a vertical, for error messages that tell the caller where they are. */
export function endpointPath(vertical: Vertical): string {
  return `/v1/${vertical}`
}
