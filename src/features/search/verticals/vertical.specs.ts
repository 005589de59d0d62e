import type { z } from 'zod'
import type { AuthContext } from '../../../http/auth.ts'
import { toMc } from '../../credits/money.ts'
import { deliveredSearchPriceMc, PRICES, searchPriceMc } from '../../credits/prices.ts'
import { resolveEngineName } from '../engine-choice.ts'
import { countryFromLocation } from '../search.params.ts'
import type { VerticalRequest } from '../search.types.ts'
import * as schemas from './vertical.schemas.ts'

export type VerticalName = VerticalRequest['endpoint']

/** Everything about one vertical that is not engine knowledge: its parameters, defaults and price. */
export interface VerticalSpec {
  name: VerticalName
  summary: string
  description: string
  schema: z.ZodType<Record<string, unknown>> & { shape?: unknown }
  /** Fills defaults in SPEC's order, so equal requests share one cache entry and `request` echoes them. */
  normalise(params: Record<string, unknown>, auth: AuthContext): VerticalRequest
  /** Reserved before the lookup. */
  priceMc(req: VerticalRequest): number
  /** What a page with `count` results costs (0 when empty). */
  deliveredMc(req: VerticalRequest, count: number): number
}

type Params = Record<string, unknown>

/** Copies the optional parameters that were sent, in a fixed order. */
function pick(req: VerticalRequest, params: Params, names: (keyof VerticalRequest)[]) {
  for (const name of names) if (params[name] !== undefined) (req as unknown as Params)[name] = params[name]
  return req
}

const countryOf = (params: Params) =>
  (params.country as string | undefined) ?? (params.location ? countryFromLocation(params.location as string) : undefined) ?? 'us'

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

const webLike = (name: 'news' | 'images' | 'videos', params: Params, auth: AuthContext, extra: (keyof VerticalRequest)[]): VerticalRequest => {
  const req: VerticalRequest = {
    endpoint: name,
    engine: resolveEngineName(params.engine as string | string[] | undefined, auth),
    q: params.q as string,
    country: countryOf(params),
    language: (params.language as string | undefined) ?? 'en',
    num: (params.num as number | undefined) ?? 10,
    page: (params.page as number | undefined) ?? 1,
  }
  return pick(req, params, [...extra, 'time', 'tbs', 'include_domains', 'exclude_domains'])
}

const placeSearch = (name: 'maps' | 'places' | 'shopping', params: Params, extra: (keyof VerticalRequest)[] = []): VerticalRequest => {
  const req: VerticalRequest = {
    endpoint: name,
    q: params.q as string,
    country: countryOf(params),
    language: (params.language as string | undefined) ?? 'en',
    page: (params.page as number | undefined) ?? 1,
  }
  return pick(req, params, ['location', 'uule', ...extra])
}

export const VERTICAL_SPECS: Record<VerticalName, VerticalSpec> = {
  news: {
    name: 'news',
    summary: 'News',
    description: 'News articles for a query, newest coverage first as the engine orders it.',
    schema: schemas.NewsParams,
    normalise: (params, auth) => webLike('news', params, auth, ['location', 'uule']),
    ...byDepth,
  },
  images: {
    name: 'images',
    summary: 'Images',
    description: 'Image results: the image, its size when known, and the page it is on.',
    schema: schemas.ImagesParams,
    normalise: (params, auth) => ({ ...webLike('images', params, auth, []), safe: (params.safe as 'off' | 'active' | undefined) ?? 'off' }),
    ...byDepth,
  },
  videos: {
    name: 'videos',
    summary: 'Videos',
    description: 'Video results with duration, channel and source.',
    schema: schemas.VideosParams,
    normalise: (params, auth) => webLike('videos', params, auth, []),
    ...byDepth,
  },
  maps: {
    name: 'maps',
    summary: 'Maps',
    description: 'Places on the map for a query, with coordinates, hours and the ids /v1/reviews takes.',
    schema: schemas.MapsParams,
    normalise: (params) => placeSearch('maps', params, ['ll']),
    ...flat(PRICES.page),
  },
  places: {
    name: 'places',
    summary: 'Places',
    description: 'Local results (the local pack) for a query, with the ids /v1/reviews takes.',
    schema: schemas.PlacesParams,
    normalise: (params) => placeSearch('places', params),
    ...flat(PRICES.page),
  },
  shopping: {
    name: 'shopping',
    summary: 'Shopping',
    description: 'Products with prices as displayed and as numbers; prices depend on country and location.',
    schema: schemas.ShoppingParams,
    normalise: (params) => placeSearch('shopping', params),
    ...flat(PRICES.page),
  },
  scholar: {
    name: 'scholar',
    summary: 'Scholar',
    description: 'Scholarly works with publication line, year, citation count and PDF link.',
    schema: schemas.ScholarParams,
    normalise: (params) =>
      ({
        endpoint: 'scholar',
        q: params.q as string,
        language: (params.language as string | undefined) ?? 'en',
        num: (params.num as number | undefined) ?? 10,
        page: (params.page as number | undefined) ?? 1,
      }) satisfies VerticalRequest,
    ...byDepth,
  },
  patents: {
    name: 'patents',
    summary: 'Patents',
    description: 'Patents and applications with their dates, inventors, assignees and PDF.',
    schema: schemas.PatentsParams,
    normalise: (params) =>
      ({
        endpoint: 'patents',
        q: params.q as string,
        num: (params.num as number | undefined) ?? 10,
        page: (params.page as number | undefined) ?? 1,
      }) satisfies VerticalRequest,
    ...byDepth,
  },
  autocomplete: {
    name: 'autocomplete',
    summary: 'Autocomplete',
    description: 'Query suggestions as the user types. 0.5 credit.',
    schema: schemas.AutocompleteParams,
    normalise: (params) => ({
      endpoint: 'autocomplete',
      q: params.q as string,
      country: (params.country as string | undefined) ?? 'us',
      language: (params.language as string | undefined) ?? 'en',
    }),
    ...flat(PRICES.autocomplete),
  },
  lens: {
    name: 'lens',
    summary: 'Lens',
    description: 'Visual matches for a public image URL. JSON only; 2 credits.',
    schema: schemas.LensParams,
    normalise: (params) => ({
      endpoint: 'lens',
      url: params.url as string,
      country: (params.country as string | undefined) ?? 'us',
      language: (params.language as string | undefined) ?? 'en',
    }),
    ...flat(PRICES.lens),
  },
  reviews: {
    name: 'reviews',
    summary: 'Reviews',
    description: 'Reviews of one place (place_id, cid or fid from /v1/maps or /v1/places), paged with next_page_token up to the first 100.',
    schema: schemas.ReviewsParams,
    normalise: (params) => {
      const req: VerticalRequest = { endpoint: 'reviews' }
      pick(req, params, ['place_id', 'cid', 'fid'])
      req.sort = (params.sort as VerticalRequest['sort']) ?? 'most_relevant'
      req.num = (params.num as number | undefined) ?? 10
      pick(req, params, ['page_token'])
      req.country = (params.country as string | undefined) ?? 'us'
      req.language = (params.language as string | undefined) ?? 'en'
      return req
    },
    priceMc: (req) => toMc(PRICES.reviewsPer10 * Math.ceil((req.num ?? 10) / 10)),
    deliveredMc: (_req, count) => toMc(PRICES.reviewsPer10 * Math.ceil(count / 10)),
  },
}
