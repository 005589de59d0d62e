import { z } from 'zod'
import { errorResponses, jsonAnswer } from '../../../http/error-schema.ts'

/** Serper's answers as Trawl sends them (key names as Serper spells them), for the OpenAPI document and the tests. */

const SearchParameters = z
  .looseObject({
    q: z.string(),
    gl: z.string(),
    hl: z.string(),
    type: z.string(),
    engine: z.string().describe('the Trawl provider that answered'),
    num: z.number().int().optional(),
    page: z.number().int().optional(),
    autocorrect: z.boolean().optional(),
    tbs: z.string().optional(),
    location: z.string().optional(),
    ll: z.string().optional(),
  })
  .describe('the request, with defaults filled in')

const item = (fields: Record<string, z.ZodType>) => z.looseObject({ position: z.number().int(), ...fields })
const str = () => z.string().optional()
const num = () => z.number().optional()

const Organic = item({
  title: z.string(),
  link: z.string(),
  snippet: str(),
  date: str(),
  sitelinks: z.array(z.object({ title: z.string(), link: z.string() })).optional(),
})

const envelope = <T extends z.ZodRawShape>(extra: T) =>
  z.object({ searchParameters: SearchParameters, credits: z.number().describe('Trawl credits this query cost'), ...extra })

export const SerperSearchResponse = envelope({
  organic: z.array(Organic),
  knowledgeGraph: z
    .looseObject({
      title: z.string(),
      type: str(),
      description: str(),
      descriptionSource: str(),
      descriptionLink: str(),
      website: str(),
      imageUrl: str(),
      attributes: z.record(z.string(), z.string()).optional(),
    })
    .optional(),
  answerBox: z.looseObject({ title: str(), answer: str(), snippet: str(), link: str() }).optional(),
  peopleAlsoAsk: z.array(z.looseObject({ question: z.string(), snippet: str(), link: str() })).optional(),
  relatedSearches: z.array(z.object({ query: z.string() })).optional(),
  topStories: z.array(z.looseObject({ title: z.string(), link: z.string(), source: str(), date: str(), imageUrl: str() })).optional(),
  places: z
    .array(item({ title: z.string(), address: str(), rating: num(), ratingCount: num(), category: str(), phoneNumber: str(), website: str(), cid: str() }))
    .optional(),
})

export const SerperImagesResponse = envelope({
  images: z.array(
    item({ title: z.string(), imageUrl: z.string(), imageWidth: num(), imageHeight: num(), thumbnailUrl: str(), source: str(), domain: str(), link: str() }),
  ),
})
export const SerperNewsResponse = envelope({
  news: z.array(item({ title: z.string(), link: z.string(), snippet: str(), date: str(), source: str(), imageUrl: str() })),
})
export const SerperVideosResponse = envelope({
  videos: z.array(item({ title: z.string(), link: z.string(), snippet: str(), imageUrl: str(), duration: str(), source: str(), channel: str(), date: str() })),
})
const place = {
  title: z.string(),
  address: str(),
  latitude: num(),
  longitude: num(),
  rating: num(),
  ratingCount: num(),
  phoneNumber: str(),
  website: str(),
  cid: str(),
  placeId: str(),
}
export const SerperPlacesResponse = envelope({ places: z.array(item({ ...place, category: str() })) })
export const SerperMapsResponse = envelope({
  ll: z.string().optional().describe('the map viewport asked for'),
  places: z.array(
    item({
      ...place,
      type: str(),
      types: z.array(z.string()).optional(),
      priceLevel: str(),
      openingHours: z.record(z.string(), z.string()).optional(),
      thumbnailUrl: str(),
      fid: str(),
    }),
  ),
})
export const SerperShoppingResponse = envelope({
  shopping: z.array(
    item({
      title: z.string(),
      source: str(),
      link: str(),
      price: str(),
      delivery: str(),
      imageUrl: str(),
      rating: num(),
      ratingCount: num(),
      offers: str(),
      productId: str(),
    }),
  ),
})
export const SerperScholarResponse = envelope({
  organic: z.array(item({ title: z.string(), link: str(), publicationInfo: str(), snippet: str(), year: num(), citedBy: num(), pdfUrl: str(), id: str() })),
})
export const SerperPatentsResponse = envelope({
  organic: z.array(
    item({
      title: z.string(),
      snippet: str(),
      link: z.string(),
      priorityDate: str(),
      filingDate: str(),
      grantDate: str(),
      publicationDate: str(),
      inventor: str(),
      assignee: str(),
      publicationNumber: z.string(),
      language: str(),
      thumbnailUrl: str(),
      pdfUrl: str(),
    }),
  ),
})
export const SerperAutocompleteResponse = envelope({ suggestions: z.array(z.object({ value: z.string() })) })

export const SERPER_RESPONSES = {
  search: SerperSearchResponse,
  images: SerperImagesResponse,
  news: SerperNewsResponse,
  places: SerperPlacesResponse,
  maps: SerperMapsResponse,
  videos: SerperVideosResponse,
  shopping: SerperShoppingResponse,
  scholar: SerperScholarResponse,
  patents: SerperPatentsResponse,
  autocomplete: SerperAutocompleteResponse,
} as const

export const SerperError = z.object({
  message: z.string().describe('for people'),
  statusCode: z.number().int().describe('the HTTP status, as Serper repeats it'),
  code: z.string().describe('Trawl’s error code'),
  request_id: z.string(),
})

const serperError = (description: string) => jsonAnswer(description, SerperError)

/**
 * The statuses these routes answer, with Serper's body; the 4XX/5XX ranges (Trawl's envelope)
 * cover only what is refused before a route is chosen (a malformed URL or request line).
 */
export const serperErrorResponses = {
  400: serperError(
    'Bad request: a field is missing, unknown, out of range or of the wrong type (also 413, 415); or, as Serper says it, "Not enough credits" (also the key’s monthly limit and the spend cap)',
  ),
  403: serperError('Missing, malformed, invalid or revoked API key (Serper answers 403 "Unauthorized.")'),
  404: serperError('No such route'),
  429: serperError('Too many requests per second for this key (Retry-After)'),
  500: serperError('Unexpected error; not billed'),
  503: serperError('The search engine could not be read, blocked us or timed out (Retry-After); not billed'),
  ...errorResponses,
}

/** The named shapes of the Serper answers, for #/components/schemas of the OpenAPI document. */
export const SERPER_COMPONENTS = {
  SerperSearchResponse,
  SerperImagesResponse,
  SerperNewsResponse,
  SerperVideosResponse,
  SerperPlacesResponse,
  SerperMapsResponse,
  SerperShoppingResponse,
  SerperScholarResponse,
  SerperPatentsResponse,
  SerperAutocompleteResponse,
  SerperError,
}
