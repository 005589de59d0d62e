/** Shapes shared by the search feature, its engines and its output formats (wire names are snake_case). */

export type Device = 'desktop' | 'mobile'
export type ParseQuality = 'ok' | 'partial' | 'empty'

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

export interface Sitelink {
  title: string
  link: string
}

export interface OrganicResult {
  position: number
  title: string
  link: string
  domain: string
  displayed_link?: string
  snippet?: string
  date?: string
  sitelinks?: Sitelink[]
}

export interface PeopleAlsoAsk {
  question: string
  snippet?: string
  link?: string
}

export interface RelatedSearch {
  query: string
}

export interface KnowledgeGraph {
  title: string
  type?: string
  description?: string
  source?: { name: string; link: string }
  website?: string
  image_url?: string
  attributes?: Record<string, string>
}

export interface AnswerBox {
  type: string // 'featured_snippet', 'calculator', 'definition', ...
  title?: string
  answer?: string
  snippet?: string
  link?: string
  domain?: string
}

export interface TopStory {
  title: string
  link: string
  source?: string
  date?: string
  image_url?: string
}

export interface LocalPlace {
  position: number
  title: string
  address?: string
  rating?: number
  rating_count?: number
  type?: string
  phone_number?: string
  website?: string
  place_id?: string
  cid?: string
}

export interface Ad {
  position: number
  block: 'top' | 'bottom'
  title: string
  link: string
  domain: string
  displayed_link?: string
  snippet?: string
}

/** What an engine's parser gets out of one result page. Keys without data are left out. */
export interface ParsedSearchPage {
  results: OrganicResult[]
  people_also_ask?: PeopleAlsoAsk[]
  related_searches?: RelatedSearch[]
  knowledge_graph?: KnowledgeGraph
  answer_box?: AnswerBox
  top_stories?: TopStory[]
  places?: LocalPlace[]
  ads?: Ad[]
  /** Total result count the engine printed ("About 1,230,000 results"), when it did. */
  total_results?: number
  parse_quality: ParseQuality
}

// ---------------------------------------------------------------------------------------------
// Other verticals (SPEC "Other verticals: results[] item fields"). Fields an engine page does not
// carry are left out rather than set to null.

/** What an engine's parser gets out of one page of any vertical other than web search. */
export interface VerticalPage<T> {
  results: T[]
  parse_quality: ParseQuality
  total_results?: number
}

export interface NewsResult {
  position: number
  title: string
  link: string
  domain: string
  snippet?: string
  date?: string // as displayed, e.g. "3 hours ago" or the feed's date text
  source?: string
  image_url?: string
}

export interface ImageResult {
  position: number
  title: string
  image_url: string
  image_width?: number
  image_height?: number
  thumbnail_url?: string
  source?: string
  domain?: string
  link?: string // the page the image is on
}

export interface VideoResult {
  position: number
  title: string
  link: string
  domain: string
  snippet?: string
  image_url?: string
  duration?: string // as displayed, "12:34"
  source?: string // "YouTube"
  channel?: string
  date?: string
}

export interface MapsPlace {
  position: number
  title: string
  address?: string
  latitude?: number
  longitude?: number
  rating?: number
  rating_count?: number
  price_level?: string // as displayed: "$$", "€10–20"
  type?: string
  types?: string[]
  website?: string
  phone_number?: string
  opening_hours?: Record<string, string> // "Monday" -> "7 AM–6 PM"
  thumbnail_url?: string
  place_id?: string // ChIJ…
  cid?: string // decimal customer id
  fid?: string // 0x…:0x… feature id
}

export interface ShoppingResult {
  position: number
  title: string
  source?: string // merchant
  link?: string
  price?: string // as displayed, "$1,299.00"
  price_value?: number
  currency?: string // ISO 4217, "USD"
  delivery?: string
  image_url?: string
  rating?: number
  rating_count?: number
  offers?: string // as displayed, "Compare prices from 5+ stores"
  product_id?: string
}

export interface ScholarResult {
  position: number
  title: string
  link?: string // citations ([CITATION]) have no link
  domain?: string
  publication_info?: string
  snippet?: string
  year?: number
  cited_by?: number
  pdf_url?: string
  id?: string // Scholar's cluster/result id
}

export interface PatentResult {
  position: number
  title: string
  snippet?: string
  link: string
  publication_number: string
  priority_date?: string // ISO date, YYYY-MM-DD
  filing_date?: string
  grant_date?: string
  publication_date?: string
  inventor?: string
  assignee?: string
  language?: string
  pdf_url?: string
  thumbnail_url?: string
}

export interface AutocompleteSuggestion {
  value: string
}

export interface LensResult {
  position: number
  title: string
  source?: string
  link: string
  domain: string
  image_url?: string
  thumbnail_url?: string
}

export interface Review {
  rating: number
  date?: string // as displayed, "2 months ago"
  iso_date?: string // ISO 8601
  snippet?: string
  likes?: number
  user?: { name: string; thumbnail?: string; reviews?: number }
  response?: { snippet: string; date?: string } // owner reply
}

export type ReviewSort = 'most_relevant' | 'newest' | 'highest_rating' | 'lowest_rating'

/**
 * The normalised request of every vertical other than web search, echoed as `request`. Only the
 * parameters that apply to the vertical are set (SPEC parameter table); defaults are filled in.
 */
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
