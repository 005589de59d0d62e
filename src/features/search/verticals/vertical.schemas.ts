import ipaddr from 'ipaddr.js'
import { z } from 'zod'
import { isPublicAddress, stripBrackets } from '../../../net/address-policy.ts'
import * as p from '../../../params/search.params.ts'

/**
 * Request schemas of the verticals other than web search: exactly the parameters that apply to
 * each one, as the OpenAPI document lists them (strict objects, so anything else is an unknown-parameter 400 naming it).
 */

const qParam = p.q.describe('the query')
const countryParam = p.country.optional().describe('two-letter ISO code; default us')
const languageParam = p.language.optional().describe('language code, optional region (en, pt-BR); default en')
const locationParam = p.location.optional().describe('canonical location text, e.g. Austin,Texas,United States; a trailing country name also sets country')
const uuleParam = p.uule.optional().describe('engine-encoded location; instead of location')
const numParam = p.num.optional().describe('10, 20, 30, 50 or 100 results; 1 credit per 10, 100 costs 7; >10 needs page=1')
const pageParam = p.page.optional().describe('1 to 10; each page billed')
const timeParam = p.time.optional().describe('hour, day, week, month or year')
const tbsParam = p.tbs.optional().describe('raw engine filter, e.g. qdr:w or a cdr range')
const formatParam = p.format.optional().describe('json (default), compact or markdown')
const fieldsParam = p.fields.optional().describe('projection, e.g. results.title,results.link')
const maxAgeParam = p.maxAge.optional().describe('accept a cached result up to this many seconds old, at half price')
const engineParam = p.engine
  .optional()
  .describe('a provider offering this vertical (GET /v1/engines lists them), a comma-separated list or array of them, or auto')
const includeDomains = p.domainList('include_domains').optional().describe('up to 20 domains, path prefixes or TLDs (.gov) to keep')
const excludeDomains = p.domainList('exclude_domains').optional().describe('up to 20 domains, path prefixes or TLDs to drop')

interface DepthAndPlace {
  num?: number
  page?: number
  location?: string
  uule?: string
}

/** num > 10 is a depth bundle fetched from page 1; location and uule are two spellings of one thing. */
function depthAndPlaceRules(v: DepthAndPlace, ctx: z.RefinementCtx) {
  if ((v.num ?? 10) > 10 && (v.page ?? 1) !== 1) ctx.addIssue({ code: 'custom', path: ['num'], message: 'num > 10 (depth) requires page=1' })
  if (v.location && v.uule) ctx.addIssue({ code: 'custom', path: ['uule'], message: 'uule: send location or uule, not both' })
}

/** What news, images and videos share with web search: depth, paging, time, engine and domain filters. */
const depthSearchShape = {
  q: qParam,
  country: countryParam,
  language: languageParam,
  num: numParam,
  page: pageParam,
  time: timeParam,
  tbs: tbsParam,
  format: formatParam,
  fields: fieldsParam,
  max_age: maxAgeParam,
  engine: engineParam,
  include_domains: includeDomains,
  exclude_domains: excludeDomains,
}

export const NewsParams = z.strictObject({ ...depthSearchShape, location: locationParam, uule: uuleParam }).superRefine(depthAndPlaceRules)

export const ImagesParams = z.strictObject({ ...depthSearchShape, safe: p.safe.optional().describe('off (default) or active') }).superRefine(depthAndPlaceRules)

export const VideosParams = z.strictObject(depthSearchShape).superRefine(depthAndPlaceRules)

const placeSearchShape = {
  q: qParam,
  country: countryParam,
  language: languageParam,
  location: locationParam,
  uule: uuleParam,
  page: pageParam,
  format: formatParam,
  fields: fieldsParam,
  max_age: maxAgeParam,
}

export const MapsParams = z
  .strictObject({ ...placeSearchShape, ll: p.ll.optional().describe('map viewport @lat,lng,zoomz, e.g. @40.7455096,-74.0083012,14z') })
  .superRefine(depthAndPlaceRules)

export const PlacesParams = z.strictObject(placeSearchShape).superRefine(depthAndPlaceRules)

export const ShoppingParams = z.strictObject(placeSearchShape).superRefine(depthAndPlaceRules)

export const ScholarParams = z
  .strictObject({
    q: qParam,
    language: languageParam,
    num: numParam,
    page: pageParam,
    format: formatParam,
    fields: fieldsParam,
    max_age: maxAgeParam,
  })
  .superRefine(depthAndPlaceRules)

export const PatentsParams = z
  .strictObject({
    q: qParam,
    num: numParam,
    page: pageParam,
    format: formatParam,
    fields: fieldsParam,
  })
  .superRefine(depthAndPlaceRules)

export const AutocompleteParams = z.strictObject({
  q: qParam,
  country: countryParam,
  language: languageParam,
  format: z
    .enum(['json', 'compact'], { error: 'format must be json or compact (autocomplete has no Markdown form)' })
    .optional()
    .describe('json (default) or compact'),
})

/** Google fetches the image itself, so an address only this network can reach would just come back empty. */
function isPublicHost(url: string): boolean {
  const host = stripBrackets(new URL(url).hostname)
  if (host === 'localhost' || host.endsWith('.localhost') || host.endsWith('.local') || host.endsWith('.internal')) return false
  return ipaddr.isValid(host) ? isPublicAddress(host) : host.includes('.')
}

const LENS_URL_MESSAGE = 'url must be a public http(s) image URL'

export const LensParams = z.strictObject({
  url: z
    // abort: the checks below parse and encode the value, which throws on what is not a URL.
    .url({ protocol: /^https?$/, error: LENS_URL_MESSAGE, abort: true })
    // A lone UTF-16 surrogate passes the URL parser but makes encodeURIComponent throw.
    .refine((u) => !/\p{Cs}/u.test(u), { error: LENS_URL_MESSAGE, abort: true })
    // Chrome's own cap on a Lens image URL once encoded (LENS_MAX_URL_LENGTH).
    .refine((u) => encodeURIComponent(u).length <= 2000, 'url must be at most 2,000 characters once URL-encoded')
    .refine(isPublicHost, 'url must be a public http(s) image URL (not localhost or a private address)')
    .describe('public image URL'),
  country: countryParam,
  language: languageParam,
  fields: fieldsParam,
  max_age: maxAgeParam,
})

export const REVIEW_SORTS = ['most_relevant', 'newest', 'highest_rating', 'lowest_rating'] as const

export const ReviewsParams = z
  .strictObject({
    place_id: z
      .string()
      .regex(/^[A-Za-z0-9_-]{10,200}$/, 'place_id must be a place id such as ChIJN1t_tDeuEmsRUsoyG83frY4')
      .optional()
      .describe('place id (ChIJ…) from /v1/maps or /v1/places'),
    cid: z
      .string()
      .regex(/^\d{1,20}$/, 'cid must be the decimal customer id from /v1/maps or /v1/places')
      .optional()
      .describe('decimal customer id'),
    fid: z
      .string()
      .regex(/^0x[0-9a-fA-F]{1,16}:0x[0-9a-fA-F]{1,16}$/, 'fid must look like 0x89c259a61c75684f:0x79d31adb123348d2')
      .optional()
      .describe('feature id 0x…:0x…'),
    sort: z
      .enum(REVIEW_SORTS, { error: 'sort must be one of most_relevant, newest, highest_rating, lowest_rating' })
      .optional()
      .describe('default most_relevant'),
    page_token: z
      .string()
      .min(1, 'page_token must not be empty')
      .max(4096, 'page_token is too long')
      .optional()
      .describe('next_page_token of the previous page, unchanged'),
    num: p.intBetween('num', 1, 50).optional().describe('reviews per page, 1 to 50; 1 credit per 10'),
    country: countryParam,
    language: languageParam,
    format: formatParam,
    fields: fieldsParam,
    max_age: maxAgeParam,
  })
  .superRefine((v, ctx) => {
    if (!v.place_id && !v.cid && !v.fid) ctx.addIssue({ code: 'custom', path: ['place_id'], message: 'place_id, cid or fid is required' })
  })
