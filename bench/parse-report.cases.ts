/** What the parse report runs: each vertical's pure parser over its saved responses. */
import { parseGoogleAutocomplete } from '../src/features/search/engines/google/autocomplete/google-autocomplete.parse.ts'
import { parseGoogleSearch } from '../src/features/search/engines/google/google-search.parse.ts'
import { parseGoogleImages } from '../src/features/search/engines/google/images/google-images.parse.ts'
import { parseGoogleLens } from '../src/features/search/engines/google/lens/google-lens.parse.ts'
import { parseGoogleMaps } from '../src/features/search/engines/google/maps/google-maps.parse.ts'
import { parseGooglePlaces } from '../src/features/search/engines/google/maps/google-places.parse.ts'
import { parseGoogleNews } from '../src/features/search/engines/google/news/google-news.parse.ts'
import { parseGooglePatents } from '../src/features/search/engines/google/patents/google-patents.parse.ts'
import { parseGoogleReviews } from '../src/features/search/engines/google/reviews/google-reviews.parse.ts'
import { parseGoogleScholar } from '../src/features/search/engines/google/scholar/google-scholar.parse.ts'
import { parseGoogleShopping } from '../src/features/search/engines/google/shopping/google-shopping.parse.ts'
import { parseGoogleVideos } from '../src/features/search/engines/google/videos/google-videos.parse.ts'
import type { VerticalRequest } from '../src/features/search/search.types.ts'
import { itemFields } from '../src/features/search/verticals/vertical.response.ts'

export interface ParseCase {
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
]
