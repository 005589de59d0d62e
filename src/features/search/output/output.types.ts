/** Shapes shared by the response output layer (fields=, format=compact, format=markdown) of every search vertical. */
import type { z } from 'zod'
import { SearchResponse } from '../search.response.ts'
import type { SearchBody } from '../search.service.ts'
import { verticalResponse } from '../verticals/vertical.response.ts'
import type { VerticalBody } from '../verticals/vertical.service.ts'

export const VERTICALS = ['search', 'news', 'images', 'videos', 'maps', 'places', 'shopping', 'scholar', 'patents', 'reviews', 'autocomplete', 'lens'] as const

export type Vertical = (typeof VERTICALS)[number]

export type OutputFormat = 'json' | 'compact' | 'markdown'

/** The body of any search-family reply, as its service builds it (search.response.ts `Built`). */
export type ResponseBody = SearchBody | VerticalBody

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
