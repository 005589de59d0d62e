/** What the parse report runs: each vertical's pure parser over its saved responses. */

import { parseBingSearch } from '../src/engines/bing/bing.parse.ts'
import { parseBingImages } from '../src/engines/bing/images/bing-images.parse.ts'
import { parseBingNews } from '../src/engines/bing/news/bing-news.parse.ts'
import { parseBraveSearch } from '../src/engines/brave/brave.parse.ts'
import { parseBraveApiImages, parseBraveApiNews, parseBraveApiVideos, parseBraveApiWeb } from '../src/engines/brave/brave-api.parse.ts'
import { parseDuckDuckGoSearch } from '../src/engines/duckduckgo/duckduckgo.parse.ts'
import { parseDuckDuckGoAutocomplete } from '../src/engines/duckduckgo/duckduckgo-autocomplete.ts'
import type { VerticalRequest } from '../src/engines/engine.types.ts'
import { parseGoogleAutocomplete } from '../src/engines/google/autocomplete/google-autocomplete.parse.ts'
import { parseGoogleSearch } from '../src/engines/google/google-search.parse.ts'
import { parseGoogleImages } from '../src/engines/google/images/google-images.parse.ts'
import { parseGoogleLens } from '../src/engines/google/lens/google-lens.parse.ts'
import { parseGoogleMaps } from '../src/engines/google/maps/google-maps.parse.ts'
import { parseGooglePlaces } from '../src/engines/google/maps/google-places.parse.ts'
import { parseGoogleNews } from '../src/engines/google/news/google-news.parse.ts'
import { parseGooglePatents } from '../src/engines/google/patents/google-patents.parse.ts'
import { parseGoogleReviews } from '../src/engines/google/reviews/google-reviews.parse.ts'
import { parseGoogleScholar } from '../src/engines/google/scholar/google-scholar.parse.ts'
import { parseGoogleShopping } from '../src/engines/google/shopping/google-shopping.parse.ts'
import { parseGoogleVideos } from '../src/engines/google/videos/google-videos.parse.ts'
import { parseMojeekSearch } from '../src/engines/mojeek/mojeek.parse.ts'
import { parseStartpage } from '../src/engines/startpage/startpage.parse.ts'
import { parseWikipediaSearch } from '../src/engines/wikipedia/wikipedia.parse.ts'
import { parseWikipediaAutocomplete } from '../src/engines/wikipedia/wikipedia-autocomplete.ts'
import { itemFields } from '../src/features/search/verticals/vertical.response.ts'

export interface ParseCase {
  /** The provider whose parser runs (google when absent). */
  provider?: string
  vertical: string
  /** Under fixtures/ (real captures), or test/fixtures/ when `local` (constructed ones); a trailing / means every file in it. */
  file: string
  local?: boolean
  fields: string[]
  parse(body: string): { results: readonly unknown[]; parse_quality: string }
}

const WEB_FIELDS = ['title', 'link', 'domain', 'displayed_link', 'snippet', 'date', 'sitelinks']
const web = (file: string): ParseCase => ({ vertical: 'search', file, fields: WEB_FIELDS, parse: (b) => parseGoogleSearch(b, { includeAds: false }) })

/** A page of 100 asked for, so the report shows everything a fixture holds rather than the first 10. */
const whole = (endpoint: VerticalRequest['endpoint'], country = 'us'): VerticalRequest => ({ endpoint, country, language: 'en', num: 100, page: 1 })

export const PARSE_CASES: ParseCase[] = [
  web('serp/google/web-desktop/'),
  web('serp/google/web-mobile/'),
  web('serp/google/web-nojs/'),
  web('serp/google/web-basic/'),
  { vertical: 'news', file: 'google/news/', local: true, fields: itemFields('news'), parse: (b) => parseGoogleNews(b, whole('news')) },
  { vertical: 'images', file: 'serp/google/images/', fields: itemFields('images'), parse: (b) => parseGoogleImages(b, whole('images')) },
  { vertical: 'videos', file: 'serp/google/videos/', fields: itemFields('videos'), parse: (b) => parseGoogleVideos(b, whole('videos')) },
  { vertical: 'maps', file: 'serp/google/maps/', fields: itemFields('maps'), parse: (b) => parseGoogleMaps(b) },
  { vertical: 'places', file: 'serp/google/maps/gosom-search-coffee.json', fields: itemFields('places'), parse: (b) => parseGooglePlaces(b) },
  {
    vertical: 'shopping',
    file: 'serp/google/web-desktop/codechallenge-best-running-shoes.html',
    fields: itemFields('shopping'),
    parse: (b) => parseGoogleShopping(b),
  },
  {
    vertical: 'shopping',
    file: 'serp/google/web-desktop/old-2020/sescraper-shopping-pla.html',
    fields: itemFields('shopping'),
    parse: (b) => parseGoogleShopping(b, { country: 'fr' }),
  },
  {
    vertical: 'shopping',
    file: 'google/shopping/shopping-tbm-shop-us.constructed.html',
    local: true,
    fields: itemFields('shopping'),
    parse: (b) => parseGoogleShopping(b),
  },
  {
    vertical: 'shopping',
    file: 'google/shopping/shopping-tbm-shop-de.constructed.html',
    local: true,
    fields: itemFields('shopping'),
    parse: (b) => parseGoogleShopping(b, { country: 'de', page: 2 }),
  },
  { vertical: 'scholar', file: 'serp/google/scholar/', fields: itemFields('scholar'), parse: (b) => parseGoogleScholar(b, whole('scholar')) },
  { vertical: 'scholar', file: 'google/scholar/', local: true, fields: itemFields('scholar'), parse: (b) => parseGoogleScholar(b, whole('scholar')) },
  { vertical: 'patents', file: 'google/patents/', local: true, fields: itemFields('patents'), parse: (b) => parseGooglePatents(b, whole('patents')) },
  { vertical: 'autocomplete', file: 'google/autocomplete/', local: true, fields: itemFields('autocomplete'), parse: (b) => parseGoogleAutocomplete(b) },
  { vertical: 'lens', file: 'google/lens/', local: true, fields: itemFields('lens'), parse: (b) => parseGoogleLens(b) },
  { vertical: 'reviews', file: 'serp/google/maps-reviews/', fields: itemFields('reviews'), parse: (b) => parseGoogleReviews(b) },
  { vertical: 'reviews', file: 'google/reviews/', local: true, fields: itemFields('reviews'), parse: (b) => parseGoogleReviews(b) },
  // Alternative providers: every real capture, and the constructed answers of documented JSON APIs.
  ...provider('bing', 'search', 'serp/bing/web/', WEB_FIELDS, (b) => parseBingSearch(b)),
  ...provider('bing', 'images', 'serp/bing/images/', itemFields('images'), parseBingImages),
  ...provider('bing', 'news', 'serp/bing/news/', itemFields('news'), parseBingNews),
  ...provider('mojeek', 'search', 'serp/mojeek/web/', WEB_FIELDS, parseMojeekSearch),
  ...provider('brave', 'search', 'serp/brave/web/', WEB_FIELDS, (b) => (b.trimStart().startsWith('{') ? parseBraveApiWeb(b) : parseBraveSearch(b))),
  ...provider('brave', 'news', 'serp/brave/news/', itemFields('news'), parseBraveApiNews),
  ...provider('brave', 'images', 'serp/brave/images/', itemFields('images'), parseBraveApiImages),
  ...provider('brave', 'videos', 'serp/brave/videos/', itemFields('videos'), parseBraveApiVideos),
  ...provider('duckduckgo', 'search', 'serp/duckduckgo/html/', WEB_FIELDS, parseDuckDuckGoSearch),
  ...provider('duckduckgo', 'search', 'serp/duckduckgo/lite/', WEB_FIELDS, parseDuckDuckGoSearch),
  ...provider('duckduckgo', 'autocomplete', 'serp/duckduckgo/autocomplete/', itemFields('autocomplete'), parseDuckDuckGoAutocomplete),
  ...provider('startpage', 'search', 'serp/startpage/web/', WEB_FIELDS, parseStartpage),
  ...provider('wikipedia', 'search', 'serp/wikipedia/api/', WEB_FIELDS, (b) => parseWikipediaSearch(b)),
  ...provider('wikipedia', 'search', 'serp/wikipedia/rest/', WEB_FIELDS, (b) => parseWikipediaSearch(b)),
  ...provider('wikipedia', 'autocomplete', 'serp/wikipedia/autocomplete/', itemFields('autocomplete'), parseWikipediaAutocomplete),
]

function provider(name: string, vertical: string, file: string, fields: string[], parse: ParseCase['parse']): ParseCase[] {
  return [{ provider: name, vertical, file, fields, parse }]
}
