import { z } from 'zod'
import type { VerticalEndpoint } from './engine.types.ts'

/**
 * What engines deliver, as the API sends it (format=json): the one definition of every result
 * item's shape. The response schemas of the features wrap these in their envelopes, the OpenAPI
 * document is generated from them and the TypeScript types are inferred from them
 * (engine.types.ts). Item fields are required and nullable: format=json sends every one,
 * null when unknown, [] for an empty list. Optional keys are the ones that may be absent on purpose.
 */
const str = () => z.string().nullable()

export const Sitelink = z.object({ title: z.string(), link: z.string() })

export const OrganicResult = z.object({
  position: z.number().int(),
  title: z.string(),
  link: z.string(),
  domain: z.string(),
  displayed_link: str(),
  snippet: str(),
  date: str(),
  sitelinks: z.array(Sitelink),
  sources: z
    .array(z.object({ engine: z.string(), position: z.number().int() }))
    .optional()
    .describe('engine=consensus: every provider that returned this page, with its position there'),
  // include_content only.
  content: z.string().optional().describe('with include_content: the page as Markdown'),
  content_title: z.string().nullable().optional(),
  content_cached: z.boolean().optional(),
  content_trimmed: z.boolean().optional(),
  content_error: z.object({ code: z.string(), message: z.string() }).optional(),
})

export const PeopleAlsoAsk = z.object({ question: z.string(), snippet: str(), link: str() })

export const RelatedSearch = z.object({ query: z.string() })

// Feature blocks have no fixed list of fields, so what a page lacks stays absent there.
export const KnowledgeGraph = z.object({
  title: z.string(),
  type: z.string().optional(),
  description: z.string().optional(),
  source: z.object({ name: z.string(), link: z.string() }).optional(),
  website: z.string().optional(),
  image_url: z.string().optional(),
  attributes: z.record(z.string(), z.string()).optional(),
})

export const AnswerBox = z.object({
  type: z.string().describe('featured_snippet, calculator, definition, …'),
  title: z.string().optional(),
  answer: z.string().optional(),
  snippet: z.string().optional(),
  link: z.string().optional(),
  domain: z.string().optional(),
})

export const TopStory = z.object({
  title: z.string(),
  link: z.string(),
  source: z.string().optional(),
  date: z.string().optional(),
  image_url: z.string().optional(),
})

export const LocalPlace = z.object({
  position: z.number().int(),
  title: z.string(),
  address: z.string().optional(),
  rating: z.number().optional(),
  rating_count: z.number().int().optional(),
  type: z.string().optional(),
  phone_number: z.string().optional(),
  website: z.string().optional(),
  place_id: z.string().optional(),
  cid: z.string().optional(),
})

export const Ad = z.object({
  position: z.number().int(),
  block: z.enum(['top', 'bottom']),
  title: z.string(),
  link: z.string(),
  domain: z.string(),
  displayed_link: z.string().optional(),
  snippet: z.string().optional(),
})

export const ParseQuality = z.enum(['ok', 'partial', 'empty'])

/** The extra keys of a /v1/search body beside `results`. */
export const SearchSections = z.object({
  people_also_ask: z.array(PeopleAlsoAsk).describe('empty when none'),
  related_searches: z.array(RelatedSearch).describe('empty when none'),
  knowledge_graph: KnowledgeGraph.nullable(),
  answer_box: AnswerBox.nullable(),
  top_stories: z.array(TopStory).nullable(),
  places: z.array(LocalPlace).nullable().describe('the local pack'),
  ads: z.array(Ad).optional().describe('only with ads=true, then always (empty when none)'),
})

const int = () => z.number().int().nullable()
const num = () => z.number().nullable()

export const News = z.object({
  position: z.number().int(),
  title: z.string(),
  link: z.string(),
  domain: z.string(),
  snippet: str(),
  date: str().describe('as displayed, e.g. a relative time'),
  source: str(),
  image_url: str(),
})

export const Image = z.object({
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

export const Video = z.object({
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

export const Place = z.object({
  position: z.number().int(),
  title: z.string(),
  address: str(),
  latitude: num(),
  longitude: num(),
  rating: num(),
  rating_count: int(),
  price_level: str(),
  type: str(),
  types: z.array(z.string()),
  website: str(),
  phone_number: str(),
  opening_hours: z.record(z.string(), z.string()).nullable().describe('weekday name to hours text'),
  thumbnail_url: str(),
  place_id: str(),
  cid: str(),
  fid: str(),
})

export const Shopping = z.object({
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

export const Scholar = z.object({
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

export const Patent = z.object({
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

export const Suggestion = z.object({ value: z.string() })

export const Lens = z.object({
  position: z.number().int(),
  title: z.string(),
  source: str(),
  link: z.string(),
  domain: z.string(),
  image_url: str(),
  thumbnail_url: str(),
})

export const Review = z.object({
  rating: z.number(),
  date: str(),
  iso_date: str(),
  snippet: str(),
  likes: int(),
  user: z.object({ name: z.string(), thumbnail: str(), reviews: int() }).nullable(),
  response: z.object({ snippet: z.string(), date: str() }).nullable().describe("the owner's reply"),
})

/** The `results[]` item schema of each vertical other than web search. */
export const VERTICAL_ITEMS = {
  news: News,
  images: Image,
  videos: Video,
  maps: Place,
  // A places item is the maps shape, without the fields a local result lacks.
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
} satisfies Record<VerticalEndpoint, z.ZodObject>
