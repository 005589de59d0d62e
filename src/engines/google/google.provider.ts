import type { Provider } from '../provider.types.ts'
import { googleAutocomplete } from './autocomplete/google-autocomplete.ts'
import { detectGoogleBlock } from './google-block.detect.ts'
import { googleBrowserRoute, googleWebRoute, googleWmlRoute } from './google-search.routes.ts'
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
 * page tokens (shared by all processes); `browserRefusal` says why the `browser` route cannot be used here.
 */
export function googleProvider(opts: { reviewsTokenSecret: string; browserRefusal?: (url: string) => string | null }): Provider<'google'> {
  return {
    name: 'google',
    capabilities: {
      verticals: ['search', 'news', 'images', 'videos', 'maps', 'places', 'shopping', 'scholar', 'patents', 'autocomplete', 'lens', 'reviews'],
      params: ['page', 'location', 'uule', 'll', 'time', 'tbs', 'safe', 'device', 'autocorrect', 'ads', 'include_domains'],
      siteOperator: true,
    },
    // Web search's routes: the feature-phone page first, the plain page after it, the plain page
    // drawn by the browser last. google-search.routes.ts says what each takes.
    search: googleWmlRoute,
    fallbackRoutes: [googleWebRoute, googleBrowserRoute(opts.browserRefusal)],
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
