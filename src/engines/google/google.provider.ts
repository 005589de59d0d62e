import type { Provider } from '../engine.ts'
import { googleAutocomplete } from './autocomplete/google-autocomplete.ts'
import { detectGoogleBlock } from './google-block.detect.ts'
import { googleWebRoute, googleWmlRoute } from './google-search.routes.ts'
import { googleImages } from './images/google-images.ts'
import { googleLens } from './lens/google-lens.ts'
import { googleMaps } from './maps/google-maps.ts'
import { googlePlaces } from './maps/google-places.ts'
import { googleNews } from './news/google-news.ts'
import { googlePatents } from './patents/google-patents.ts'
import { googleReviews } from './reviews/google-reviews.ts'
import { googleScholar } from './scholar/google-scholar.ts'
import { googleShopping } from './shopping/google-shopping.ts'
import { googleVideos } from './videos/google-videos.ts'

/**
 * The primary engine: Google web search and every vertical. `reviewsTokenSecret` signs reviews
 * page tokens (shared by all processes).
 */
export function googleProvider(opts: { reviewsTokenSecret: string }): Provider {
  return {
    name: 'google',
    capabilities: {
      verticals: ['search', 'news', 'images', 'videos', 'maps', 'places', 'shopping', 'scholar', 'patents', 'autocomplete', 'lens', 'reviews'],
      params: ['page', 'location', 'uule', 'll', 'time', 'tbs', 'safe', 'device', 'autocorrect', 'ads', 'include_domains'],
      siteOperator: true,
    },
    // Web search's routes: the feature-phone page first, the plain page after it (a `browser`
    // route may follow it in fallbackRoutes). google-search.routes.ts says what each takes.
    search: googleWmlRoute,
    fallbackRoutes: [googleWebRoute],
    verticals: {
      news: googleNews,
      images: googleImages,
      videos: googleVideos,
      maps: googleMaps,
      places: googlePlaces,
      shopping: googleShopping,
      scholar: googleScholar,
      patents: googlePatents,
      autocomplete: googleAutocomplete,
      lens: googleLens,
      reviews: googleReviews(opts.reviewsTokenSecret),
    },
    detectBlock: (r) => detectGoogleBlock(r),
  }
}
