import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { z } from 'zod'
import { toMc } from '../../../billing/money.ts'
import type { AppDeps } from '../../../deps.ts'
import type { AuthContext } from '../../../http/auth.ts'
import { sendBilledJson } from '../../../http/billing-headers.ts'
import { answerErrorsWith } from '../../../http/error-handler.ts'
import { parseInput } from '../../../http/parse-input.ts'
import { JobIdParams, jobIdOf } from '../../../params/job.params.ts'
import { firecrawlEnvelope } from './firecrawl.errors.ts'
import {
  FirecrawlActiveCrawls,
  FirecrawlCancelled,
  FirecrawlJobErrors,
  FirecrawlJobStarted,
  FirecrawlJobStatus,
  FirecrawlMapResponse,
  FirecrawlScrapeResponse,
  FirecrawlSearchResponse,
  firecrawlErrorResponses,
} from './firecrawl.response.ts'
import { FirecrawlBatchBody, FirecrawlCrawlBody, FirecrawlMapBody, FirecrawlScrapeBody, FirecrawlSearchBody, JobPageQuery } from './firecrawl.schema.ts'
import {
  batchErrors,
  batchStatus,
  cancelFirecrawlCrawl,
  crawlErrors,
  firecrawlActiveCrawls,
  firecrawlCrawlStatus,
  map,
  type Paging,
  scrape,
  search,
  startBatchScrape,
  startFirecrawlCrawl,
} from './firecrawl.service.ts'
import { crawlStatusWebSocket } from './firecrawl.ws.ts'

export const FIRECRAWL_PREFIX = '/compat/firecrawl'
const TAG = 'compat-firecrawl'

/** Unknown body keys: Firecrawl's server refuses them too. */
const explainUnknown = (name: string) => `unknown parameter ${name}: not a Firecrawl v2 field Trawl takes (docs/compat-firecrawl.md lists them)`

/**
 * Firecrawl v2 at <base>/compat/firecrawl: point Firecrawl's SDKs (apiUrl), its MCP server
 * (FIRECRAWL_API_URL) and the frameworks' loaders at it with a Trawl key. Errors come back in
 * Firecrawl's shape; everything is billed like the Trawl endpoint doing the work.
 */
export function firecrawlRoutes(app: FastifyInstance, deps: AppDeps) {
  crawlStatusWebSocket(app, deps, (host) => `${publicBase(deps, 'http', host)}${FIRECRAWL_PREFIX}/v2/crawl`)
  void app.register(
    async (scope) => {
      answerErrorsWith(scope, firecrawlEnvelope)
      pageRoutes(scope, deps)
      crawlRoutes(scope, deps)
      batchScrapeRoutes(scope, deps)
    },
    { prefix: FIRECRAWL_PREFIX },
  )
}

const billed = { auth: 'key' as const, billed: true }
const free = { auth: 'key' as const }

/** The server as the client reached it: the configured base URL when the Host matches it, else the Host itself. */
function publicBase(deps: AppDeps, protocol: string, host: string | undefined) {
  const configured = new URL(deps.config.baseUrl)
  if (!host || host === configured.host) return deps.config.baseUrl
  return `${protocol}://${host}`
}

const selfOf = (deps: AppDeps, req: FastifyRequest, path: string) => `${publicBase(deps, req.protocol, req.headers.host)}${FIRECRAWL_PREFIX}${path}`

function sendJson(
  deps: AppDeps,
  req: FastifyRequest,
  reply: FastifyReply,
  body: unknown,
  billing?: { usedMc: number; balanceMc: number | null; cacheHit: boolean },
) {
  const payload = JSON.stringify(body)
  if (billing) return sendBilledJson(req, reply, payload, billing, deps.usdPerCredit)
  return reply.type('application/json; charset=utf-8').send(payload)
}

const body = <S extends z.ZodObject>(schema: S, req: FastifyRequest) => parseInput(schema, req, { explainUnknown })

const schema = (operationId: string, summary: string, description: string, extra: Record<string, unknown>, ok: z.ZodType) => ({
  operationId,
  summary,
  description,
  tags: [TAG],
  ...extra,
  response: { 200: ok, ...firecrawlErrorResponses },
})

const idOf = (req: FastifyRequest) => jobIdOf(req.params)

const paging = (deps: AppDeps, req: FastifyRequest, path: string) => ({
  ...parseInput(JobPageQuery, req, { ignore: ['api_key'] }),
  self: selfOf(deps, req, path),
})

/** /v2/scrape, /v2/search and /v2/map: answered now, billed like /v1/webpage, /v1/search and /v1/map. */
function pageRoutes(scope: FastifyInstance, deps: AppDeps) {
  answeredNow(scope, deps, '/v2/scrape', scrape, {
    operationId: 'firecrawlScrape',
    summary: 'Firecrawl: scrape one page',
    description:
      'Formats markdown, html (main content), rawHtml (the page as fetched), links and images. 1 credit like /v1/webpage; 0.5 from the cache with maxAge; free when the page has no readable content.',
    body: FirecrawlScrapeBody,
    ok: FirecrawlScrapeResponse,
  })
  answeredNow(scope, deps, '/v2/search', search, {
    operationId: 'firecrawlSearch',
    summary: 'Firecrawl: search',
    description:
      'Sources web, news and images, each billed like /v1/search, /v1/news or /v1/images at the depth holding `limit`; scrapeOptions reads the top web results (10 at most) as Markdown, +1 credit per page.',
    body: FirecrawlSearchBody,
    ok: FirecrawlSearchResponse,
  })
  answeredNow(scope, deps, '/v2/map', map, {
    operationId: 'firecrawlMap',
    summary: 'Firecrawl: list a site’s URLs',
    description: 'Like /v1/map: 1 credit when URLs were found, free otherwise; at most 5000 URLs.',
    body: FirecrawlMapBody,
    ok: FirecrawlMapResponse,
  })
}

/** A POST answered now with what `run` returns, with the billing headers of the Trawl call it made. */
function answeredNow<S extends z.ZodObject>(
  scope: FastifyInstance,
  deps: AppDeps,
  path: string,
  run: (
    deps: AppDeps,
    auth: AuthContext,
    input: z.infer<S>,
    requestId: string,
  ) => Promise<{ body: unknown; usedMc: number; balanceMc: number | null; cacheHit: boolean }>,
  doc: { operationId: string; summary: string; description: string; body: S; ok: z.ZodType },
) {
  scope.post(path, { config: billed, schema: schema(doc.operationId, doc.summary, doc.description, { body: doc.body }, doc.ok) }, async (req, reply) => {
    const outcome = await run(deps, req.auth, body(doc.body, req), req.id)
    return sendJson(deps, req, reply, outcome.body, outcome)
  })
}

/** /v2/crawl: a Trawl crawl, its status and pages, its cancel and its errors. */
function crawlRoutes(scope: FastifyInstance, deps: AppDeps) {
  scope.post(
    '/v2/crawl',
    {
      config: billed,
      schema: schema(
        'firecrawlStartCrawl',
        'Firecrawl: start a crawl',
        'Like POST /v1/crawl: `limit` credits (at most 1000) reserved, the unread part refunded when it ends. Answers 200 as Firecrawl does.',
        { body: FirecrawlCrawlBody },
        FirecrawlJobStarted,
      ),
    },
    async (req, reply) => {
      const { task, balanceMc, warning } = await startFirecrawlCrawl(deps, req.auth, body(FirecrawlCrawlBody, req), req.id)
      const started = { success: true, id: task.id, url: selfOf(deps, req, `/v2/crawl/${task.id}`), ...(warning && { warning }) }
      return sendJson(deps, req, reply, started, { usedMc: toMc(task.credits_reserved), balanceMc, cacheHit: false })
    },
  )

  // Before /v2/crawl/:id (find-my-way prefers the static path): the SDK's getActiveCrawls().
  scope.get(
    '/v2/crawl/active',
    {
      config: free,
      schema: schema('firecrawlActiveCrawls', 'Firecrawl: active crawls', "Free. The account's queued and running crawls.", {}, FirecrawlActiveCrawls),
    },
    async (req, reply) => sendJson(deps, req, reply, await firecrawlActiveCrawls(deps, req.auth)),
  )
  jobStatusRoute(scope, deps, '/v2/crawl', firecrawlCrawlStatus, {
    operationId: 'firecrawlGetCrawl',
    summary: 'Firecrawl: crawl status and pages',
    description:
      'Free. Status scraping, completed, failed or cancelled; pages as documents, 100 (and 10 MB) per answer, the rest behind `next`. The same path in ws(s):// is the status WebSocket of the SDK’s watcher (key as the subprotocol).',
  })
  scope.delete(
    '/v2/crawl/:id',
    {
      config: free,
      schema: schema('firecrawlCancelCrawl', 'Firecrawl: cancel a crawl', 'Like DELETE /v1/crawl/{id}.', { params: JobIdParams }, FirecrawlCancelled),
    },
    async (req, reply) => sendJson(deps, req, reply, await cancelFirecrawlCrawl(deps, req.auth, idOf(req))),
  )
  scope.get(
    '/v2/crawl/:id/errors',
    {
      config: free,
      schema: schema('firecrawlCrawlErrors', 'Firecrawl: pages a crawl could not read', 'Free.', { params: JobIdParams }, FirecrawlJobErrors),
    },
    async (req, reply) => sendJson(deps, req, reply, await crawlErrors(deps, req.auth, idOf(req))),
  )
}

/** /v2/batch/scrape: a /v1/batches batch of webpage jobs, its status and pages, and its errors. */
function batchScrapeRoutes(scope: FastifyInstance, deps: AppDeps) {
  scope.post(
    '/v2/batch/scrape',
    {
      config: billed,
      schema: schema(
        'firecrawlBatchScrape',
        'Firecrawl: scrape up to 100 pages later',
        'A /v1/batches batch of webpage jobs: half price (0.5 credit per page), failed pages refunded. One content format per page (markdown or html) with links and images.',
        { body: FirecrawlBatchBody },
        FirecrawlJobStarted,
      ),
    },
    async (req, reply) => {
      const started = await startBatchScrape(deps, req.auth, body(FirecrawlBatchBody, req), req.id)
      const answer = { success: true, id: started.batchId, url: selfOf(deps, req, `/v2/batch/scrape/${started.batchId}`), invalidURLs: started.invalidURLs }
      return sendJson(deps, req, reply, answer, { usedMc: started.chargedMc, balanceMc: started.balanceMc, cacheHit: false })
    },
  )
  jobStatusRoute(scope, deps, '/v2/batch/scrape', batchStatus, {
    operationId: 'firecrawlGetBatchScrape',
    summary: 'Firecrawl: batch scrape status and pages',
    description: 'Free. Pages as documents, 100 (and 10 MB) per answer, the rest behind `next`.',
  })
  scope.get(
    '/v2/batch/scrape/:id/errors',
    {
      config: free,
      schema: schema('firecrawlBatchScrapeErrors', 'Firecrawl: pages a batch scrape could not read', 'Free.', { params: JobIdParams }, FirecrawlJobErrors),
    },
    async (req, reply) => sendJson(deps, req, reply, await batchErrors(deps, req.auth, idOf(req))),
  )
}

/** GET <path>/:id: a job's status and a page of its documents, `next` linking to the rest. */
function jobStatusRoute(
  scope: FastifyInstance,
  deps: AppDeps,
  path: string,
  read: (deps: AppDeps, auth: AuthContext, id: string, paging: Paging) => Promise<unknown>,
  doc: { operationId: string; summary: string; description: string },
) {
  const routeSchema = schema(doc.operationId, doc.summary, doc.description, { params: JobIdParams, querystring: JobPageQuery }, FirecrawlJobStatus)
  scope.get(`${path}/:id`, { config: free, schema: routeSchema }, async (req, reply) => {
    const id = idOf(req)
    return sendJson(deps, req, reply, await read(deps, req.auth, id, paging(deps, req, `${path}/${id}`)))
  })
}
