import type { Billing } from '../../billing/billed-lookup.ts'
import { searchPriceMc } from '../../billing/prices.ts'
import type { AppDeps } from '../../deps.ts'
import { planEngines, sentParams } from '../../engines/choice.ts'
import { ApiError } from '../../errors.ts'
import type { AuthContext } from '../../http/auth.ts'
import { parseWith } from '../../http/parse-input.ts'
import { pagePriceMc, parsePageUrl, proxyForCountry } from '../../reader/page-read.ts'
import { rejectSwappedUrlField, WebpageParams } from '../reading/reading.schema.ts'
import { runWebpage } from '../reading/webpage.service.ts'
import { JSON_CONTENT_TYPE, type OutputFormat, type OutputOptions, renderSearchResponse, validateOutputOptions } from '../search/output/output.ts'
import { SearchParams } from '../search/search.schema.ts'
import { normaliseSearch, runSearch } from '../search/search.service.ts'
import { explainParamElsewhere } from '../search/verticals/param-homes.ts'
import { runVertical } from '../search/verticals/vertical.service.ts'
import { VERTICAL_SPECS, type VerticalName } from '../search/verticals/vertical.specs.ts'

/** The endpoints a batch may target (docs/batches.md), in a fixed order. */
export const BATCH_ENDPOINTS = [
  'search',
  'images',
  'videos',
  'news',
  'maps',
  'places',
  'reviews',
  'shopping',
  'scholar',
  'patents',
  'autocomplete',
  'lens',
  'webpage',
] as const
export type BatchEndpoint = (typeof BATCH_ENDPOINTS)[number]

/** One batch entry after the realtime endpoint's own checks: what it holds, and how to run it. */
export interface PreparedEntry {
  /** The realtime price the endpoint would reserve for this request (a batch charges half of it). */
  realtimeHoldMc: number
  /** Runs the realtime lookup under `billing`; `result` is the JSON text of the body the realtime endpoint sends. */
  run(requestId: string, billing: Billing): Promise<{ result: string; usedMc: number }>
}

/**
 * Validates one entry exactly as the realtime endpoint validates its body (schema, output options,
 * engine choice, country exits, page URL) and binds it to its runner. Throws the same ApiError the
 * realtime endpoint would answer with. Called at POST (the caller's key) and again when the job
 * runs (the key as it is then), so both see one set of rules.
 */
export type PrepareEntry = (deps: AppDeps, auth: AuthContext, entry: Record<string, unknown>) => PreparedEntry

/** Realtime endpoints do not take webhook_url (docs/batches.md): in a batch it belongs beside `requests`. */
function explainFor(path: string) {
  const elsewhere = explainParamElsewhere(path)
  return (name: string) =>
    name === 'webhook_url' ? 'webhook_url is set once for the whole batch, beside endpoint and requests, not in each request' : elsewhere(name)
}

/** The realtime search routes ignore a body's api_key (credentials, not a parameter); so does a batch entry. */
const withoutKey = ({ api_key: _key, ...entry }: Record<string, unknown>) => entry

/** The body as the realtime route sends it: rendered JSON, or the Markdown text (stored as a JSON string). */
function rendered(vertical: Parameters<typeof renderSearchResponse>[0], body: Parameters<typeof renderSearchResponse>[1], output: OutputOptions) {
  const out = renderSearchResponse(vertical, body, output)
  return out.contentType === JSON_CONTENT_TYPE ? out.payload : JSON.stringify(out.payload)
}

const prepareSearch: PrepareEntry = (deps, auth, entry) => {
  const params = parseWith(SearchParams, withoutKey(entry), explainFor('/v1/search'))
  const output: OutputOptions = { format: params.format ?? 'json', fields: params.fields }
  validateOutputOptions('search', output)
  const request = normaliseSearch(params, auth)
  const planned = planEngines(deps.engines, request.engine, { vertical: 'search', params: sentParams(request) })
  // What runSearch reserves: the depth price (one per provider asked for consensus) and one page per include_content read.
  const contentCount = Math.min(params.include_content ?? 0, request.num)
  const realtimeHoldMc = searchPriceMc(request.num) * (request.engine === 'consensus' ? planned.length : 1) + contentCount * pagePriceMc(false)
  return {
    realtimeHoldMc,
    async run(requestId, billing) {
      const outcome = await runSearch(deps, auth, request, { maxAge: params.max_age, includeContent: params.include_content }, requestId, billing)
      return { result: rendered('search', outcome.body, output), usedMc: outcome.usedMc }
    },
  }
}

const prepareVertical =
  (name: VerticalName): PrepareEntry =>
  (deps, auth, entry) => {
    const spec = VERTICAL_SPECS[name]
    const params = parseWith(spec.schema, withoutKey(entry), explainFor(`/v1/${name}`)) as Record<string, unknown>
    const output: OutputOptions = { format: (params.format as OutputFormat | undefined) ?? 'json', fields: params.fields as string | undefined }
    validateOutputOptions(name, output)
    const request = spec.normalise(params, auth)
    // runVertical's own pre-flight: an engine that cannot serve it, or a reviews page_token of another place.
    for (const engine of planEngines(deps.engines, request.engine ?? deps.engines.primary, { vertical: request.endpoint, params: sentParams(request) })) {
      deps.engines.get(engine)?.validateVertical?.(request)
    }
    return {
      realtimeHoldMc: spec.priceMc(request),
      async run(requestId, billing) {
        const outcome = await runVertical(deps, auth, spec, request, { maxAge: params.max_age as number | undefined }, requestId, billing)
        return { result: rendered(name, outcome.body, output), usedMc: outcome.usedMc }
      },
    }
  }

const prepareWebpage: PrepareEntry = (deps, auth, entry) => {
  rejectSwappedUrlField(entry, 'webpage')
  const params = parseWith(WebpageParams, entry)
  // A batch job is charged at a fixed half price when queued: a model call has no such price.
  if (params.schema) throw new ApiError('invalid_request', 'schema is not taken in batch jobs: call POST /v1/webpage or /v1/extract')
  if (params.country) proxyForCountry(deps.config, params.country)
  // The realtime endpoint answers a malformed URL with a refunded 400; a batch refuses it before charging.
  parsePageUrl(params.url)
  return {
    realtimeHoldMc: pagePriceMc(false),
    async run(requestId, billing) {
      const outcome = await runWebpage(deps, auth, params, requestId, billing)
      return { result: JSON.stringify(outcome.body), usedMc: outcome.usedMc }
    },
  }
}

/** Every batch endpoint: its realtime path, and its realtime schema + normaliser + runner. */
export const BATCH_ENDPOINT_TABLE: Record<BatchEndpoint, { path: string; prepare: PrepareEntry }> = {
  search: { path: '/v1/search', prepare: prepareSearch },
  images: { path: '/v1/images', prepare: prepareVertical('images') },
  videos: { path: '/v1/videos', prepare: prepareVertical('videos') },
  news: { path: '/v1/news', prepare: prepareVertical('news') },
  maps: { path: '/v1/maps', prepare: prepareVertical('maps') },
  places: { path: '/v1/places', prepare: prepareVertical('places') },
  reviews: { path: '/v1/reviews', prepare: prepareVertical('reviews') },
  shopping: { path: '/v1/shopping', prepare: prepareVertical('shopping') },
  scholar: { path: '/v1/scholar', prepare: prepareVertical('scholar') },
  patents: { path: '/v1/patents', prepare: prepareVertical('patents') },
  autocomplete: { path: '/v1/autocomplete', prepare: prepareVertical('autocomplete') },
  lens: { path: '/v1/lens', prepare: prepareVertical('lens') },
  webpage: { path: '/v1/webpage', prepare: prepareWebpage },
}
