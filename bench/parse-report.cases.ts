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

export interface ParseCase {
  vertical: string
  /** Under ../shared/fixtures/ (real captures), or test/fixtures/ when `local` (constructed ones); a trailing / means every file in it. */
  file: string
  local?: boolean
  fields: string[]
  parse(body: string): { results: readonly unknown[]; parse_quality: string }
}

const WEB_FIELDS = ['title', 'link', 'domain', 'displayed_link', 'snippet', 'date', 'sitelinks']
const web = (file: string): ParseCase => ({ vertical: 'search', file, fields: WEB_FIELDS, parse: (b) => parseGoogleSearch(b, { includeAds: false }) })

/** A page of 100 asked for, so the report shows everything a fixture holds rather than the first 10. */
const whole = (endpoint: VerticalRequest['endpoint'], country = 'us'): VerticalRequest => ({ endpoint, country, language: 'en', num: 100, page: 1 })

const FIELDS = {
  news: ['title', 'link', 'domain', 'snippet', 'date', 'source', 'image_url'],
  images: ['title', 'image_url', 'image_width', 'image_height', 'thumbnail_url', 'source', 'domain', 'link'],
  videos: ['title', 'link', 'domain', 'snippet', 'image_url', 'duration', 'source', 'channel', 'date'],
  maps: [
    'title',
    'address',
    'latitude',
    'longitude',
    'rating',
    'rating_count',
    'price_level',
    'type',
    'types',
    'website',
    'phone_number',
    'opening_hours',
    'thumbnail_url',
    'place_id',
    'cid',
    'fid',
  ],
  places: ['title', 'address', 'rating', 'rating_count', 'type', 'phone_number', 'website', 'place_id', 'cid'],
  shopping: ['title', 'source', 'link', 'price', 'price_value', 'currency', 'delivery', 'image_url', 'rating', 'rating_count', 'offers', 'product_id'],
  scholar: ['title', 'link', 'domain', 'publication_info', 'snippet', 'year', 'cited_by', 'pdf_url', 'id'],
  patents: [
    'title',
    'snippet',
    'link',
    'publication_number',
    'priority_date',
    'filing_date',
    'grant_date',
    'publication_date',
    'inventor',
    'assignee',
    'language',
    'pdf_url',
    'thumbnail_url',
  ],
  autocomplete: ['value'],
  lens: ['title', 'source', 'link', 'domain', 'image_url', 'thumbnail_url'],
  reviews: ['rating', 'date', 'iso_date', 'snippet', 'likes', 'user', 'response'],
}

export const PARSE_CASES: ParseCase[] = [
  web('serp/google/web-desktop/'),
  web('serp/google/web-mobile/'),
  web('serp/google/web-nojs/'),
  web('serp/google/web-basic/'),
  { vertical: 'news', file: 'google/news/', local: true, fields: FIELDS.news, parse: (b) => parseGoogleNews(b, whole('news')) },
  { vertical: 'images', file: 'serp/google/images/', fields: FIELDS.images, parse: (b) => parseGoogleImages(b, whole('images')) },
  { vertical: 'videos', file: 'serp/google/videos/', fields: FIELDS.videos, parse: (b) => parseGoogleVideos(b, whole('videos')) },
  { vertical: 'maps', file: 'serp/google/maps/', fields: FIELDS.maps, parse: (b) => parseGoogleMaps(b) },
  { vertical: 'places', file: 'serp/google/maps/gosom-search-coffee.json', fields: FIELDS.places, parse: (b) => parseGooglePlaces(b) },
  {
    vertical: 'shopping',
    file: 'serp/google/web-desktop/codechallenge-best-running-shoes.html',
    fields: FIELDS.shopping,
    parse: (b) => parseGoogleShopping(b),
  },
  {
    vertical: 'shopping',
    file: 'serp/google/web-desktop/old-2020/sescraper-shopping-pla.html',
    fields: FIELDS.shopping,
    parse: (b) => parseGoogleShopping(b, { country: 'fr' }),
  },
  {
    vertical: 'shopping',
    file: 'google/shopping/shopping-tbm-shop-us.constructed.html',
    local: true,
    fields: FIELDS.shopping,
    parse: (b) => parseGoogleShopping(b),
  },
  {
    vertical: 'shopping',
    file: 'google/shopping/shopping-tbm-shop-de.constructed.html',
    local: true,
    fields: FIELDS.shopping,
    parse: (b) => parseGoogleShopping(b, { country: 'de', page: 2 }),
  },
  { vertical: 'scholar', file: 'serp/google/scholar/', fields: FIELDS.scholar, parse: (b) => parseGoogleScholar(b, whole('scholar')) },
  { vertical: 'scholar', file: 'google/scholar/', local: true, fields: FIELDS.scholar, parse: (b) => parseGoogleScholar(b, whole('scholar')) },
  { vertical: 'patents', file: 'google/patents/', local: true, fields: FIELDS.patents, parse: (b) => parseGooglePatents(b, whole('patents')) },
  { vertical: 'autocomplete', file: 'google/autocomplete/', local: true, fields: FIELDS.autocomplete, parse: (b) => parseGoogleAutocomplete(b) },
  { vertical: 'lens', file: 'google/lens/', local: true, fields: FIELDS.lens, parse: (b) => parseGoogleLens(b) },
  { vertical: 'reviews', file: 'serp/google/maps-reviews/', fields: FIELDS.reviews, parse: (b) => parseGoogleReviews(b) },
  { vertical: 'reviews', file: 'google/reviews/', local: true, fields: FIELDS.reviews, parse: (b) => parseGoogleReviews(b) },
]
