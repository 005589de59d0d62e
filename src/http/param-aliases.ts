/**
 * Parameter names of other search APIs (SerpApi, Serper, Brave, Tavily, Bing, DuckDuckGo, Google
 * Custom Search) mapped to what Trawl calls them, so a migrating user's 400 says what to write instead.
 */
const ALIASES: Record<string, string> = {
  // SerpApi / Serper / Google
  gl: 'country',
  hl: 'language',
  lr: 'language',
  cr: 'country',
  google_domain: 'country',
  start: 'page',
  ijn: 'page',
  tbm: 'the vertical endpoint (/v1/images, /v1/news, /v1/videos, /v1/shopping)',
  udm: 'the vertical endpoint (/v1/images, /v1/news, /v1/videos, /v1/shopping)',
  type: 'the vertical endpoint (/v1/images, /v1/news, /v1/videos, /v1/shopping)',
  nfpr: 'autocorrect',
  filter: 'autocorrect',
  no_cache: 'max_age',
  json_restrictor: 'fields',
  output: 'format',
  safesearch: 'safe',
  safeSearch: 'safe',
  // Google Custom Search JSON API
  cx: '/customsearch/v1 (cx is accepted there)',
  dateRestrict: 'time',
  siteSearch: 'include_domains',
  excludeTerms: 'q with -term',
  key: 'api_key',
  // Brave / Bing / DuckDuckGo
  count: 'num',
  offset: 'page',
  mkt: 'country',
  cc: 'country',
  setlang: 'language',
  search_lang: 'language',
  ui_lang: 'language',
  kl: 'country',
  freshness: 'time',
  spellcheck: 'autocorrect',
  // Tavily / Exa and friends
  query: 'q',
  search_query: 'q',
  max_results: 'num',
  num_results: 'num',
  search_depth: 'num',
  time_range: 'time',
  days: 'time',
  topic: 'the vertical endpoint (/v1/news)',
  include_raw_content: 'include_content',
  include_answer: 'answer_box (returned whenever the engine shows one)',
  include_images: '/v1/images',
  apiKey: 'api_key',
  api_key_header: 'the Authorization header',
}

/**
 * Names other APIs use for a parameter only some endpoints take, hinted only where the endpoint
 * takes the replacement (SerpApi's Google Maps Reviews names on /v1/reviews, say).
 */
const ENDPOINT_ALIASES: Record<string, string> = {
  // SerpApi Google Maps Reviews
  sort_by: 'sort',
  data_id: 'fid',
  next_page_token: 'page_token',
  // DataForSEO's keyword; a list of pages where one is taken (map); Lens APIs' image_url
  keyword: 'q',
  urls: 'url',
  image_url: 'url',
}

/** `accepted`: the endpoint's own parameter names, which unlocks the hints of ENDPOINT_ALIASES. */
export function unknownParameterMessage(name: string, accepted?: ReadonlySet<string>): string {
  const replacement = aliasOf(ALIASES, name) ?? endpointAliasOf(name, accepted)
  return replacement ? `unknown parameter ${name}: use ${replacement}` : `unknown parameter ${name}`
}

function endpointAliasOf(name: string, accepted: ReadonlySet<string> | undefined): string | undefined {
  const replacement = aliasOf(ENDPOINT_ALIASES, name)
  return replacement !== undefined && accepted?.has(replacement) ? replacement : undefined
}

function aliasOf(table: Record<string, string>, name: string): string | undefined {
  return Object.hasOwn(table, name) ? table[name] : undefined
}
