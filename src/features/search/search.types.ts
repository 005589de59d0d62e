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
