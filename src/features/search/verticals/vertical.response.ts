import { z } from 'zod'
import { SearchMeta } from '../search.response.ts'
import type { VerticalName } from './vertical.specs.ts'

/** Response bodies of the verticals for the OpenAPI document (format=json; compact and fields= trim them). */

const str = () => z.string().optional()
const int = () => z.number().int().optional()
const num = () => z.number().optional()

const News = z.object({
  position: z.number().int(),
  title: z.string(),
  link: z.string(),
  domain: z.string(),
  snippet: str(),
  date: str().describe('as displayed, e.g. a relative time'),
  source: str(),
  image_url: str(),
})

const Image = z.object({
  position: z.number().int(),
  title: z.string(),
  image_url: z.string(),
  image_width: int(),
  image_height: int(),
  thumbnail_url: str(),
  source: str(),
  domain: str(),
  link: str().describe('the page the image is on'),
})

const Video = z.object({
  position: z.number().int(),
  title: z.string(),
  link: z.string(),
  domain: z.string(),
  snippet: str(),
  image_url: str(),
  duration: str(),
  source: str(),
  channel: str(),
  date: str(),
})

const Place = z.object({
  position: z.number().int(),
  title: z.string(),
  address: str(),
  latitude: num(),
  longitude: num(),
  rating: num(),
  rating_count: int(),
  price_level: str(),
  type: str(),
  types: z.array(z.string()).optional(),
  website: str(),
  phone_number: str(),
  opening_hours: z.record(z.string(), z.string()).optional().describe('weekday name to hours text'),
  thumbnail_url: str(),
  place_id: str(),
  cid: str(),
  fid: str(),
})

const Shopping = z.object({
  position: z.number().int(),
  title: z.string(),
  source: str(),
  link: str(),
  price: str().describe('as displayed'),
  price_value: num(),
  currency: str(),
  delivery: str(),
  image_url: str(),
  rating: num(),
  rating_count: int(),
  offers: str(),
  product_id: str(),
})

const Scholar = z.object({
  position: z.number().int(),
  title: z.string(),
  link: str(),
  domain: str(),
  publication_info: str(),
  snippet: str(),
  year: int(),
  cited_by: int(),
  pdf_url: str(),
  id: str(),
})

const Patent = z.object({
  position: z.number().int(),
  title: z.string(),
  snippet: str(),
  link: z.string(),
  publication_number: z.string(),
  priority_date: str(),
  filing_date: str(),
  grant_date: str(),
  publication_date: str(),
  inventor: str(),
  assignee: str(),
  language: str(),
  pdf_url: str(),
  thumbnail_url: str(),
})

const Suggestion = z.object({ value: z.string() })

const Lens = z.object({
  position: z.number().int(),
  title: z.string(),
  source: str(),
  link: z.string(),
  domain: z.string(),
  image_url: str(),
  thumbnail_url: str(),
})

const Review = z.object({
  rating: z.number(),
  date: str(),
  iso_date: str(),
  snippet: str(),
  likes: int(),
  user: z.object({ name: z.string(), thumbnail: str(), reviews: int() }).optional(),
  response: z.object({ snippet: z.string(), date: str() }).optional().describe("the owner's reply"),
})

const ITEMS: Record<VerticalName, z.ZodObject> = {
  news: News,
  images: Image,
  videos: Video,
  maps: Place,
  // SPEC: the maps shape, without the fields a local result lacks.
  places: Place.pick({
    position: true,
    title: true,
    address: true,
    latitude: true,
    longitude: true,
    rating: true,
    rating_count: true,
    type: true,
    phone_number: true,
    website: true,
    place_id: true,
    cid: true,
  }),
  shopping: Shopping,
  scholar: Scholar,
  patents: Patent,
  autocomplete: Suggestion,
  lens: Lens,
  reviews: Review,
}

/** The item fields SPEC lists for a vertical (besides position), in its order. */
export function itemFields(name: VerticalName): string[] {
  return Object.keys(ITEMS[name].shape).filter((f) => f !== 'position')
}

export function verticalResponse(name: VerticalName) {
  const shape = {
    request: z.record(z.string(), z.unknown()).describe('the normalised request, defaults filled in'),
    results: z.array(ITEMS[name]),
    ...(name === 'reviews' && { next_page_token: z.string().optional().describe('absent on the last page and past the first 100 reviews') }),
    meta: SearchMeta,
  }
  return z.object(shape)
}
