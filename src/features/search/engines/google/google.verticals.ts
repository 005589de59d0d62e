import { googleAutocomplete } from './autocomplete/google-autocomplete.ts'
import type { GoogleVerticals } from './google.engine.ts'
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

/** Every Google vertical; `reviewsTokenSecret` signs reviews page tokens (shared by all processes). */
export function googleVerticals(opts: { reviewsTokenSecret: string }): GoogleVerticals {
  return {
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
  }
}
