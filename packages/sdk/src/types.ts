/**
 * Friendly names over the generated types (types.gen.ts, from the server's OpenAPI document).
 * Nothing here restates a shape: every request and response type is looked up by operationId.
 */
import type { components, operations } from './types.gen.ts'

export type { components, operations, paths } from './types.gen.ts'

/** Every named schema of the interface: `Schemas['OrganicResult']`, `Schemas['CrawlTask']`, … */
export type Schemas = components['schemas']

type Json<T> = T extends { content: { 'application/json': infer J } } ? J : never
type Success<R> = 200 extends keyof R ? R[200] : 202 extends keyof R ? R[202] : never

/** The JSON body an operation takes (POST/PATCH), by operationId. */
export type RequestBody<Op extends keyof operations> = operations[Op] extends { requestBody?: { content: { 'application/json': infer B } } } ? B : never
/**
 * `P` with every property `Shape` lacks typed `never`: a generic parameter escapes TypeScript's
 * excess-property check (`search({ q, start: 10 })` compiled), this brings the check back.
 */
export type Exact<P, Shape> = P & { [K in Exclude<keyof P, keyof Shape>]: never }
/** The query-string parameters an operation takes, by operationId. */
export type QueryParams<Op extends keyof operations> = operations[Op] extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never
/** The JSON body of an operation's success answer (200, or 202 for queued work), by operationId. */
export type ResponseBody<Op extends keyof operations> = Json<Success<operations[Op]['responses']>>
/** Operations whose success answer may be Markdown (`format: 'markdown'`). */
export type HasMarkdown<Op extends keyof operations> = Success<operations[Op]['responses']> extends { content: { 'text/markdown': string } } ? true : false

/** The error codes the server answers with (the generated ErrorEnvelope enum). */
export type ApiErrorCode = Schemas['ErrorEnvelope']['error']['code']

/**
 * `format: 'compact'` and `fields=` answers: the same top-level keys with fewer item fields and
 * `meta` always kept; fields described as always present may be absent.
 */
export type Reduced<T> = { [K in keyof T]?: T[K] extends readonly (infer I)[] ? Partial<I>[] : T[K] } & { meta: T extends { meta: infer M } ? M : never }

type FormatOf<P> = P extends { format?: infer F } ? F : undefined
type HasFields<P> = P extends { fields: string } ? true : false

/**
 * What a search vertical answers for these parameters: Markdown text for `format: 'markdown'`, a
 * reduced object for `compact` or `fields`, the full JSON otherwise. When the format is only known
 * at run time (a variable typed as the union) the answer is the union.
 */
export type Shaped<Op extends keyof operations, P> =
  HasMarkdown<Op> extends true
    ? [FormatOf<P>] extends ['markdown']
      ? string
      : [FormatOf<P>] extends [undefined | 'json']
        ? HasFields<P> extends true
          ? Reduced<ResponseBody<Op>>
          : ResponseBody<Op>
        : [FormatOf<P>] extends [undefined | 'json' | 'compact']
          ? Reduced<ResponseBody<Op>> | ResponseBody<Op>
          : string | Reduced<ResponseBody<Op>> | ResponseBody<Op>
    : HasFields<P> extends true
      ? Reduced<ResponseBody<Op>>
      : ResponseBody<Op>

// The answers, by name.
export type AccountResponse = Schemas['AccountResponse']
export type EnginesResponse = Schemas['EnginesResponse']
export type SearchResponse = Schemas['SearchResponse']
export type NewsResponse = Schemas['NewsResponse']
export type ImagesResponse = Schemas['ImagesResponse']
export type VideosResponse = Schemas['VideosResponse']
export type MapsResponse = Schemas['MapsResponse']
export type PlacesResponse = Schemas['PlacesResponse']
export type ShoppingResponse = Schemas['ShoppingResponse']
export type ScholarResponse = Schemas['ScholarResponse']
export type PatentsResponse = Schemas['PatentsResponse']
export type AutocompleteResponse = Schemas['AutocompleteResponse']
export type LensResponse = Schemas['LensResponse']
export type ReviewsResponse = Schemas['ReviewsResponse']
export type RankResponse = Schemas['RankResponse']
export type ContextResponse = Schemas['ContextResponse']
export type ContextPassage = Schemas['ContextPassage']
export type CseResponse = Schemas['CseResponse']
export type ExtractResponse = Schemas['ExtractResponse']
export type WebpageResponse = Schemas['WebpageResponse']
export type MapResponse = Schemas['MapResponse']
export type CrawlTask = Schemas['CrawlTask']
export type ResearchTask = Schemas['ResearchTask']
export type ResearchStep = Schemas['ResearchStep']
export type BatchJob = Schemas['BatchJob']
export type BatchCreated = Schemas['BatchCreated']
export type Monitor = Schemas['Monitor']
export type MonitorList = Schemas['MonitorList']
export type MonitorDeleted = Schemas['MonitorDeleted']
export type MonitorRun = Schemas['MonitorRun']
export type MonitorRuns = Schemas['MonitorRuns']
export type ErrorEnvelope = Schemas['ErrorEnvelope']

// The requests, by name.
export type SearchParams = RequestBody<'search'>
export type NewsParams = RequestBody<'news'>
export type ImagesParams = RequestBody<'images'>
export type VideosParams = RequestBody<'videos'>
export type MapsParams = RequestBody<'maps'>
export type PlacesParams = RequestBody<'places'>
export type ShoppingParams = RequestBody<'shopping'>
export type ScholarParams = RequestBody<'scholar'>
export type PatentsParams = RequestBody<'patents'>
export type AutocompleteParams = RequestBody<'autocomplete'>
export type LensParams = RequestBody<'lens'>
export type ReviewsParams = RequestBody<'reviews'>
export type RankParams = RequestBody<'rank'>
export type ContextParams = RequestBody<'context'>
export type CustomSearchParams = QueryParams<'customSearch'>
export type ExtractParams = RequestBody<'extract'>
export type WebpageParams = RequestBody<'webpage'>
export type MapParams = RequestBody<'map'>
export type CrawlParams = RequestBody<'startCrawl'>
export type ResearchParams = RequestBody<'startResearch'>
export type CreateMonitorParams = RequestBody<'createMonitor'>
export type UpdateMonitorParams = RequestBody<'updateMonitor'>
export type MonitorRunsParams = QueryParams<'listMonitorRuns'>

/** The endpoints a batch can queue (the generated enum of POST /v1/batches `endpoint`). */
export type BatchEndpoint = RequestBody<'createBatch'>['endpoint']

/** Each batch endpoint's request: the realtime endpoint's body. */
export interface BatchRequests {
  search: SearchParams
  images: ImagesParams
  videos: VideosParams
  news: NewsParams
  maps: MapsParams
  places: PlacesParams
  reviews: ReviewsParams
  shopping: ShoppingParams
  scholar: ScholarParams
  patents: PatentsParams
  autocomplete: AutocompleteParams
  lens: LensParams
  webpage: WebpageParams
}

/** POST /v1/batches, with each request typed as the chosen endpoint's body. */
export type CreateBatchParams<E extends BatchEndpoint = BatchEndpoint> = Omit<RequestBody<'createBatch'>, 'endpoint' | 'requests'> & {
  endpoint: E
  requests: BatchRequests[E][]
}

/** One entry of `batches[]`: a queued job, or the error the realtime endpoint would have answered. */
export type BatchEntry = BatchCreated['batches'][number]

/** One server-sent event of GET /v1/research/{id}/events: a step as it ends, then the job as it ended. */
export type ResearchEvent = { event: 'step'; id: number; data: ResearchStep } | { event: ResearchTask['status']; data: ResearchTask }
