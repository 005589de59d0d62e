/**
 * Shapes shared by the search feature, its engines and its output formats (wire names are
 * snake_case). Response shapes are inferred from the zod response schemas, their one definition.
 */
import type { z } from 'zod'
import type * as S from './results.schema.ts'

export type Device = 'desktop' | 'mobile'

/** The normalised /v1/search request: defaults filled in, echoed as `request` in the response. */
export interface SearchRequest {
  endpoint: 'search'
  engine: string
  q: string
  country: string // two-letter ISO code, lower case, default 'us'
  language: string // 'en', 'pt-BR'; default 'en'
  location?: string
  uule?: string
  ll?: string
  num: 10 | 20 | 30 | 50 | 100
  page: number // 1..10
  /** Exact result offset, overriding page (the compatible endpoint's 1-based `start`). */
  offset?: number
  time?: 'hour' | 'day' | 'week' | 'month' | 'year'
  tbs?: string
  safe: 'off' | 'active'
  device: Device
  autocorrect?: boolean
  ads?: boolean
  include_domains?: string[]
  exclude_domains?: string[]
}

/**
 * What an engine's parser returns for a response shape `T`: the keys format=json fills in (nullable
 * ones with null, lists with []) are optional and never null, so a parser leaves out what a page
 * lacks. Nested objects and list items follow the same rule.
 */
export type Parsed<T> = T extends readonly (infer E)[] ? Parsed<E>[] : T extends object ? Flat<ParsedObject<T>> : T

type Filled<V> = undefined extends V ? false : null extends V ? true : [V] extends [readonly unknown[]] ? true : false
type ParsedObject<T> = { [K in keyof T as Filled<T[K]> extends true ? K : never]?: Parsed<Exclude<T[K], null>> } & {
  [K in keyof T as Filled<T[K]> extends true ? never : K]: Parsed<T[K]>
}
type Flat<T> = { [K in keyof T]: T[K] }

export type ParseQuality = z.infer<typeof S.ParseQuality>

export type Sitelink = Parsed<z.infer<typeof S.Sitelink>>
export type OrganicResult = Parsed<z.infer<typeof S.OrganicResult>>
export type PeopleAlsoAsk = Parsed<z.infer<typeof S.PeopleAlsoAsk>>
export type RelatedSearch = Parsed<z.infer<typeof S.RelatedSearch>>
export type KnowledgeGraph = Parsed<z.infer<typeof S.KnowledgeGraph>>
export type AnswerBox = Parsed<z.infer<typeof S.AnswerBox>>
export type TopStory = Parsed<z.infer<typeof S.TopStory>>
export type LocalPlace = Parsed<z.infer<typeof S.LocalPlace>>
export type Ad = Parsed<z.infer<typeof S.Ad>>

/** What an engine's parser gets out of one result page. Keys without data are left out. */
export type ParsedSearchPage = Parsed<z.infer<typeof S.SearchSections>> & {
  results: OrganicResult[]
  /** Total result count the engine printed ("About 1,230,000 results"), when it did. */
  total_results?: number
  parse_quality: ParseQuality
  /**
   * Set when the page itself says nothing matched (Google's no-results card, DuckDuckGo's
   * `.no-results`, …; docs/engines.md lists them). Such a page was read cleanly: engine health
   * counts it as an answer, never as a sign of drift. Internal: never part of a response body.
   */
  saysNoResults?: true
}

// ---------------------------------------------------------------------------------------------
// Other verticals: their results[] item fields, from verticals/vertical.response.ts.

/** What an engine's parser gets out of one page of any vertical other than web search. */
export interface VerticalPage<T> {
  results: T[]
  parse_quality: ParseQuality
  total_results?: number
  /** As on ParsedSearchPage: the answer itself said nothing matched. Internal. */
  saysNoResults?: true
}

export type NewsResult = Parsed<z.infer<(typeof S.VERTICAL_ITEMS)['news']>>
export type ImageResult = Parsed<z.infer<(typeof S.VERTICAL_ITEMS)['images']>>
export type VideoResult = Parsed<z.infer<(typeof S.VERTICAL_ITEMS)['videos']>>
export type MapsPlace = Parsed<z.infer<(typeof S.VERTICAL_ITEMS)['maps']>>
export type ShoppingResult = Parsed<z.infer<(typeof S.VERTICAL_ITEMS)['shopping']>>
export type ScholarResult = Parsed<z.infer<(typeof S.VERTICAL_ITEMS)['scholar']>>
export type PatentResult = Parsed<z.infer<(typeof S.VERTICAL_ITEMS)['patents']>>
export type AutocompleteSuggestion = Parsed<z.infer<(typeof S.VERTICAL_ITEMS)['autocomplete']>>
export type LensResult = Parsed<z.infer<(typeof S.VERTICAL_ITEMS)['lens']>>
export type Review = Parsed<z.infer<(typeof S.VERTICAL_ITEMS)['reviews']>>

export type ReviewSort = 'most_relevant' | 'newest' | 'highest_rating' | 'lowest_rating'

/**
 * The normalised request of every vertical other than web search, echoed as `request`. Only the
 * parameters that apply to the vertical are set (verticals/vertical.schemas.ts); defaults are filled in.
 */
export type VerticalEndpoint = VerticalRequest['endpoint']

export interface VerticalRequest {
  endpoint: 'news' | 'images' | 'videos' | 'maps' | 'places' | 'shopping' | 'scholar' | 'patents' | 'autocomplete' | 'lens' | 'reviews'
  engine?: string
  q?: string // every vertical but lens and reviews
  url?: string // lens: the image URL
  country?: string
  language?: string
  location?: string
  uule?: string
  ll?: string // maps
  num?: number // news, images, videos, scholar, patents (10..100); reviews (1..50)
  page?: number
  time?: 'hour' | 'day' | 'week' | 'month' | 'year'
  tbs?: string
  safe?: 'off' | 'active'
  include_domains?: string[]
  exclude_domains?: string[]
  // reviews
  place_id?: string
  cid?: string
  fid?: string
  sort?: ReviewSort
  page_token?: string
}
