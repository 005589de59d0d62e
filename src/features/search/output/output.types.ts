/** Shapes shared by the response output layer (fields=, format=compact, format=markdown) of every search vertical. */
import type { ParseQuality } from '../search.types.ts'

export const VERTICALS = ['search', 'news', 'images', 'videos', 'maps', 'places', 'shopping', 'scholar', 'patents', 'reviews', 'autocomplete', 'lens'] as const

export type Vertical = (typeof VERTICALS)[number]

export type OutputFormat = 'json' | 'compact' | 'markdown'

/** SPEC "Response meta". `route` is an internal attempt log whose shape is not part of the interface. */
export interface ResponseMeta {
  request_id: string
  credits_used: number
  cached: boolean
  cached_at?: string
  engine: string
  route: unknown
  latency_ms: number
  parse_quality: ParseQuality
  resolved_urls: boolean
}

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

/**
 * Top-level keys besides `request`, `results` and `meta` each vertical may return (SPEC "Resources and their
 * fields"). fields= accepts only these, so a typo fails loudly instead of silently returning an empty object.
 */
const EXTRA_KEYS: Record<Vertical, readonly string[]> = {
  search: ['people_also_ask', 'related_searches', 'knowledge_graph', 'answer_box', 'top_stories', 'places', 'ads'],
  news: [],
  images: [],
  videos: [],
  maps: [],
  places: [],
  shopping: [],
  scholar: [],
  patents: [],
  reviews: ['next_page_token'],
  autocomplete: [],
  lens: [],
}

/** Every top-level key a `fields=` path may start with on this vertical. */
export function topLevelKeys(vertical: Vertical): readonly string[] {
  return ['request', 'results', ...EXTRA_KEYS[vertical], 'meta']
}

/** The public path of a vertical, for error messages that tell the caller where they are. */
export function endpointPath(vertical: Vertical): string {
  return `/v1/${vertical}`
}
