import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { AppDeps } from '../../../deps.ts'
import { ApiError, isApiError } from '../../../errors.ts'
import { sendBilledJson } from '../../../http/billing-headers.ts'
import { answerErrorsWith, toApiError } from '../../../http/error-handler.ts'
import { withoutPrototypes } from '../../../http/parse-input.ts'
import { mapLimit } from '../../../jobs/map-limit.ts'
import { serperEnvelope } from './serper.errors.ts'
import { SERPER_RESPONSES, serperErrorResponses } from './serper.response.ts'
import { MAX_QUERIES, queryParams, SERPER_ENDPOINTS, SerperBody, type SerperEndpoint } from './serper.schema.ts'
import { type PreparedQuery, prepareQuery, type SerperOutcome } from './serper.service.ts'

export const SERPER_PREFIX = '/compat/serper'
const TAG = 'compat-serper'
/** Queries of one array body run this many at a time. */
const PARALLEL_QUERIES = 5

const SUMMARIES: Record<SerperEndpoint, string> = {
  search: 'web search, like /v1/search',
  images: 'images, like /v1/images',
  news: 'news, like /v1/news',
  places: 'local results, like /v1/places',
  maps: 'maps, like /v1/maps',
  videos: 'videos, like /v1/videos',
  shopping: 'shopping, like /v1/shopping',
  scholar: 'scholarly works, like /v1/scholar',
  patents: 'patents, like /v1/patents',
  autocomplete: 'query suggestions, like /v1/autocomplete (0.5 credit)',
}

/**
 * Serper at <base>/compat/serper: POST /search, /images, … with Serper's body (or its fields in the
 * query string, as LangChain's Python wrapper sends them) and the key in X-API-KEY (Bearer works too).
 * Each query is billed like the Trawl endpoint of its vertical; a JSON array of queries is that many
 * calls, billed each, one request for the rate limit. Errors come back as `{message, statusCode}`.
 */
export function serperRoutes(app: FastifyInstance, deps: AppDeps) {
  void app.register(
    async (scope) => {
      answerErrorsWith(scope, serperEnvelope)
      // LangChain's GoogleSerperAPIWrapper POSTs its parameters in the query string with
      // Content-Type: application/json and no body: an empty JSON body is no body here.
      const json = scope.getDefaultJsonParser('error', 'error')
      scope.removeContentTypeParser('application/json')
      scope.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body, done) => {
        const text = typeof body === 'string' ? body : body.toString('utf8')
        if (text === '') return done(null, undefined)
        return json(req, text, (err, value) => done(err, err ? undefined : withoutPrototypes(value)))
      })

      for (const endpoint of SERPER_ENDPOINTS) {
        const config = { auth: 'key' as const, billed: true, keyFrom: { header: 'x-api-key', queryParam: 'apiKey' } }
        scope.post(
          `/${endpoint}`,
          {
            config,
            schema: {
              operationId: `serper${endpoint[0]!.toUpperCase()}${endpoint.slice(1)}`,
              summary: `Serper: ${SUMMARIES[endpoint]}`,
              description:
                'Serper’s request and answer. The key as X-API-KEY, Bearer or ?apiKey=. The fields may also come in the query string with an empty body (LangChain’s Python wrapper), or with GET; a JSON array runs up to 100 queries, each billed, the answer an array in the same order.',
              tags: [TAG],
              body: SerperBody,
              response: { 200: SERPER_RESPONSES[endpoint], ...serperErrorResponses },
            },
          },
          (req, reply) => handle(deps, endpoint, req, reply),
        )
        // Serper answers GET with the fields in the query string too (its playground's code samples).
        // Left out of the OpenAPI document: the POST above describes the same query and answer.
        scope.get(`/${endpoint}`, { config, schema: { hide: true } }, (req, reply) => handle(deps, endpoint, req, reply))
      }
    },
    { prefix: SERPER_PREFIX },
  )
}

async function handle(deps: AppDeps, endpoint: SerperEndpoint, req: FastifyRequest, reply: FastifyReply) {
  const body = req.method === 'GET' ? undefined : (req.body as unknown)
  const { apiKey: _key, ...query } = req.query as Record<string, string | string[]>
  const fromQuery = queryParams(query)
  let prepared: PreparedQuery[]
  let many = false
  // Every query is checked before the first one is billed.
  if (Array.isArray(body)) {
    many = true
    if (body.length === 0 || body.length > MAX_QUERIES) throw new ApiError('invalid_request', `body must hold 1 to ${MAX_QUERIES} queries`)
    prepared = body.map((query, i) => prepareQuery(deps, req.auth, endpoint, query, `${req.id}_${i}`, `queries[${i}]: `))
  } else if (body === undefined || body === null) {
    prepared = [prepareQuery(deps, req.auth, endpoint, fromQuery, req.id)]
  } else if (typeof body === 'object') {
    prepared = [prepareQuery(deps, req.auth, endpoint, { ...fromQuery, ...body }, req.id)]
  } else {
    throw new ApiError('invalid_request', 'body must be a JSON object, or an array of them')
  }

  let answer: unknown
  let outcomes: SerperOutcome[]
  if (!many) {
    const outcome = await prepared[0]!.run()
    outcomes = [outcome]
    answer = outcome.body
  } else {
    // A query that fails answers in its place in Serper's error shape; the call fails only when all did.
    const settled = await mapLimit(prepared, PARALLEL_QUERIES, (p) => p.run().catch((err: unknown) => ({ err })))
    const failures = settled.filter((s): s is { err: unknown } => 'err' in s)
    if (failures.length === settled.length) throw failures[0]!.err
    outcomes = settled.filter((s): s is SerperOutcome => !('err' in s))
    answer = settled.map((s) => ('err' in s ? serperEnvelope(isApiError(s.err) ? s.err : toApiError(s.err, req), req.id).body : s.body))
  }
  const balances = outcomes.map((o) => o.balanceMc).filter((b): b is number => b != null)
  const charges = {
    usedMc: outcomes.reduce((sum, o) => sum + o.usedMc, 0),
    balanceMc: balances.length > 0 ? Math.min(...balances) : null,
    cacheHit: outcomes.every((o) => o.cacheHit),
  }
  return sendBilledJson(req, reply, JSON.stringify(answer), charges, deps.usdPerCredit)
}
