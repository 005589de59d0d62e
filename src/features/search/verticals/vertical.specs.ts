import type { z } from 'zod'
import { toMc } from '../../../billing/money.ts'
import { deliveredSearchPriceMc, PRICES, searchPriceMc } from '../../../billing/prices.ts'
import { resolveEngineName } from '../../../engines/choice.ts'
import type { VerticalRequest } from '../../../engines/engine.types.ts'
import type { AuthContext } from '../../../http/auth.ts'
import { countryFromLocation } from '../../../params/search.params.ts'
import * as schemas from './vertical.schemas.ts'

export type VerticalName = VerticalRequest['endpoint']

/** Everything about one vertical that is not engine knowledge: its parameters, defaults and price. */
export interface VerticalSpec {
  name: VerticalName
  summary: string
  description: string
  /** Strict: exactly the parameters this vertical takes (vertical.schemas.ts). */
  schema: z.ZodObject
  /** Fills defaults in a fixed order, so equal requests share one cache entry and `request` echoes them. */
  normalise(params: Record<string, unknown>, auth: AuthContext): VerticalRequest
  /** Reserved before the lookup. */
  priceMc(req: VerticalRequest): number
  /** What a page with `count` results costs (0 when empty). */
  deliveredMc(req: VerticalRequest, count: number): number
}

type Params = Record<string, unknown>

/** A parameter echoed in `request`: its name, or its name and the default filled in when absent. */
type Echoed = keyof VerticalRequest | [keyof VerticalRequest, unknown]

/**
 * The normalised request: `fields` in a fixed order, defaults filled in, optional ones left out when
 * not sent. Equal requests therefore share one cache entry, and `request` echoes them.
 */
function echo(endpoint: VerticalName, params: Params, fields: Echoed[]): VerticalRequest {
  const req: Params = { endpoint }
  for (const field of fields) {
    const [name, fallback] = Array.isArray(field) ? field : [field, undefined]
    const value = params[name] ?? fallback
    if (value !== undefined) req[name] = value
  }
  return req as unknown as VerticalRequest
}

const LOCALE: Echoed[] = [
  ['country', 'us'],
  ['language', 'en'],
]
const DEPTH: Echoed[] = [
  ['num', 10],
  ['page', 1],
]
const FILTERS: Echoed[] = ['time', 'tbs', 'include_domains', 'exclude_domains']

/** `engine` resolved (auto for fallback keys), and `country` taken from a trailing location name when not sent. */
const withEngineAndCountry = (params: Params, auth?: AuthContext): Params => ({
  ...params,
  ...(auth && { engine: resolveEngineName(params.engine as string | string[] | undefined, auth) }),
  country: params.country ?? (params.location ? countryFromLocation(params.location as string) : undefined),
})

/** 1 credit per page of 10 asked for, num=100 the 7-credit bundle; the depth delivered is what is billed. */
const byDepth = {
  priceMc: (req: VerticalRequest) => searchPriceMc(req.num ?? 10),
  deliveredMc: (req: VerticalRequest, count: number) => deliveredSearchPriceMc(req.num ?? 10, count),
}

/** A flat price per call, free when nothing came back. */
const flat = (credits: number) => ({
  priceMc: () => toMc(credits),
  deliveredMc: (_req: VerticalRequest, count: number) => (count > 0 ? toMc(credits) : 0),
})

export const VERTICAL_SPECS: Record<VerticalName, VerticalSpec> = {
  news: {
    name: 'news',
    summary: 'News',
    description: 'News articles for a query, newest coverage first as the engine orders it.',
    schema: schemas.NewsParams,
    normalise: (params, auth) => echo('news', withEngineAndCountry(params, auth), ['engine', 'q', ...LOCALE, ...DEPTH, 'location', 'uule', ...FILTERS]),
    ...byDepth,
  },
  images: {
    name: 'images',
    summary: 'Images',
    description: 'Image results: the image, its size when known, and the page it is on.',
    schema: schemas.ImagesParams,
    normalise: (params, auth) => echo('images', withEngineAndCountry(params, auth), ['engine', 'q', ...LOCALE, ...DEPTH, ...FILTERS, ['safe', 'off']]),
    ...byDepth,
  },
  videos: {
    name: 'videos',
    summary: 'Videos',
    description: 'Video results with duration, channel and source.',
    schema: schemas.VideosParams,
    normalise: (params, auth) => echo('videos', withEngineAndCountry(params, auth), ['engine', 'q', ...LOCALE, ...DEPTH, ...FILTERS]),
    ...byDepth,
  },
  maps: {
    name: 'maps',
    summary: 'Maps',
    description: 'Places on the map for a query, with coordinates, hours and the ids /v1/reviews takes.',
    schema: schemas.MapsParams,
    normalise: (params) => echo('maps', withEngineAndCountry(params), ['q', ...LOCALE, ['page', 1], 'location', 'uule', 'll']),
    ...flat(PRICES.page),
  },
  places: {
    name: 'places',
    summary: 'Places',
    description: 'Local results (the local pack) for a query, with the ids /v1/reviews takes.',
    schema: schemas.PlacesParams,
    normalise: (params) => echo('places', withEngineAndCountry(params), ['q', ...LOCALE, ['page', 1], 'location', 'uule']),
    ...flat(PRICES.page),
  },
  shopping: {
    name: 'shopping',
    summary: 'Shopping',
    description: 'Products with prices as displayed and as numbers; prices depend on country and location.',
    schema: schemas.ShoppingParams,
    normalise: (params) => echo('shopping', withEngineAndCountry(params), ['q', ...LOCALE, ['page', 1], 'location', 'uule']),
    ...flat(PRICES.page),
  },
  scholar: {
    name: 'scholar',
    summary: 'Scholar',
    description: 'Scholarly works with publication line, year, citation count and PDF link.',
    schema: schemas.ScholarParams,
    normalise: (params) => echo('scholar', params, ['q', ['language', 'en'], ...DEPTH]),
    ...byDepth,
  },
  patents: {
    name: 'patents',
    summary: 'Patents',
    description: 'Patents and applications with their dates, inventors, assignees and PDF.',
    schema: schemas.PatentsParams,
    normalise: (params) => echo('patents', params, ['q', ...DEPTH]),
    ...byDepth,
  },
  autocomplete: {
    name: 'autocomplete',
    summary: 'Autocomplete',
    description: 'Query suggestions as the user types. 0.5 credit.',
    schema: schemas.AutocompleteParams,
    normalise: (params) => echo('autocomplete', params, ['q', ...LOCALE]),
    ...flat(PRICES.autocomplete),
  },
  lens: {
    name: 'lens',
    summary: 'Lens',
    description: 'Visual matches for a public image URL. JSON only; 2 credits.',
    schema: schemas.LensParams,
    normalise: (params) => echo('lens', params, ['url', ...LOCALE]),
    ...flat(PRICES.lens),
  },
  reviews: {
    name: 'reviews',
    summary: 'Reviews',
    description: 'Reviews of one place (place_id, cid or fid from /v1/maps or /v1/places), paged with next_page_token up to the first 100.',
    schema: schemas.ReviewsParams,
    normalise: (params) => echo('reviews', params, ['place_id', 'cid', 'fid', ['sort', 'most_relevant'], ['num', 10], 'page_token', ...LOCALE]),
    priceMc: (req) => toMc(PRICES.reviewsPer10 * Math.ceil((req.num ?? 10) / 10)),
    deliveredMc: (_req, count) => toMc(PRICES.reviewsPer10 * Math.ceil(count / 10)),
  },
}
