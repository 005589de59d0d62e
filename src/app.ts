import { randomBytes } from 'node:crypto'
import cors from '@fastify/cors'
import swagger from '@fastify/swagger'
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyRequest } from 'fastify'
import type { DestinationStream } from 'pino'
import { readBalance } from './billing/credits.store.ts'
import { toCredits } from './billing/money.ts'
import { ApiError } from './errors.ts'
import { accountRoutes } from './features/accounts/account.routes.ts'
import { adminRoutes } from './features/accounts/admin.routes.ts'
import { batchRoutes } from './features/batches/batches.routes.ts'
import { firecrawlRoutes } from './features/compat/firecrawl/firecrawl.routes.ts'
import { searxngRoutes } from './features/compat/searxng/searxng.routes.ts'
import { serperRoutes } from './features/compat/serper/serper.routes.ts'
import { tavilyRoutes } from './features/compat/tavily/tavily.routes.ts'
import { contextRoutes } from './features/context/context.routes.ts'
import { researchRoutes } from './features/context/research/research.routes.ts'
import { crawlRoutes } from './features/crawl/crawl.routes.ts'
import { cseRoutes } from './features/customsearch/cse.routes.ts'
import { dashboardRoutes } from './features/dashboard/dashboard.routes.ts'
import { docsRoutes } from './features/docs/docs.routes.ts'
import { openApiOptions } from './features/docs/openapi.document.ts'
import { engineRoutes } from './features/engines/engines.routes.ts'
import { healthRoutes } from './features/health/health.routes.ts'
import { mapRoutes } from './features/map/map.routes.ts'
import { mcpRoutes } from './features/mcp/mcp.routes.ts'
import { monitorRoutes } from './features/monitors/monitors.routes.ts'
import { playgroundRoutes } from './features/playground/playground.routes.ts'
import { rankRoutes } from './features/rank/rank.routes.ts'
import { readingRoutes } from './features/reading/reading.routes.ts'
import { searchRoutes } from './features/search/search.routes.ts'
import { verticalRoutes } from './features/search/verticals/vertical.routes.ts'
import { keyFromRequest, UNKNOWN_KEY } from './http/auth.ts'
import { clientErrorHandler, frameworkErrors, registerErrorHandling } from './http/error-handler.ts'
import './http/fastify-types.ts'
import type { Services } from './deps.ts'
import { loggerOptions, RequestLines, requestLogger } from './http/logging.ts'
import { queueStats } from './jobs/runner.ts'
import { withLogFields } from './metrics/log-context.ts'
import { metricsRoutes } from './metrics/metrics.routes.ts'
import { metrics } from './metrics/metrics.ts'
import { safeEqual } from './security/secrets.ts'
import { appDeps, jobKinds } from './services.ts'
import { describeDatabase } from './store/database.ts'

/** Headers browsers may read on cross-origin responses: the billing headers, X-Request-Id and Retry-After. */
const EXPOSED_HEADERS = ['X-Credits-Used', 'X-Credits-Remaining', 'X-Cost-USD', 'X-Cache', 'X-Latency-Ms', 'X-Tokens-Estimate', 'X-Request-Id', 'Retry-After']

// Request ids: a random per-process prefix and a counter: unique across processes and restarts,
// without a call into the CSPRNG on every request (ids are not secrets).
const REQUEST_ID_PREFIX = `req_${randomBytes(8).toString('hex')}`
let requestCounter = 0
const newRequestId = () => `${REQUEST_ID_PREFIX}${(++requestCounter).toString(36).padStart(6, '0')}`

export interface BuildOptions {
  /** Where log lines go (default stdout); tests read the log through it. */
  logStream?: DestinationStream
  /** false leaves out the per-request metrics and log-scope hooks: bench/metrics.bench.ts's baseline. */
  instrument?: boolean
}

/** Builds the HTTP app with every feature's routes; never listens (main.ts and tests do). */
export async function buildApp(services: Services, opts: BuildOptions = {}): Promise<FastifyInstance> {
  const { config } = services
  const app = Fastify({
    logger: { ...loggerOptions(config.logLevel), ...(opts.logStream ? { stream: opts.logStream } : {}) },
    bodyLimit: config.bodyLimitBytes,
    genReqId: newRequestId,
    childLoggerFactory: requestLogger,
    logController: new RequestLines(),
    // Errors Fastify and Node answer on their own (bad percent-encoding, oversized headers) get the envelope too.
    frameworkErrors,
    clientErrorHandler: clientErrorHandler(newRequestId),
    routerOptions: { ignoreTrailingSlash: true },
    // Behind a reverse proxy the client's address is in X-Forwarded-For, believed only from TRAWL_TRUST_PROXY.
    trustProxy: config.trustProxy,
    // Fastify's own 503 has its own body; requests that arrive while closing get ours (below).
    return503OnClosing: false,
    // Slow clients: Node's limits on RECEIVING a request (not on answering it: an extract may work
    // for 90 s), checked every second instead of Node's default 30 s; a client too slow gets 408.
    requestTimeout: config.requestTimeoutMs,
    // requireHostHeader off: Node's own 400 for a missing Host has an empty body; ours (onRequest) has the envelope.
    http: { headersTimeout: config.headersTimeoutMs, connectionsCheckingInterval: 1000, requireHostHeader: false },
  })

  // Routes validate with parseInput() (strict zod, parameter-naming messages, GET/POST parity);
  // the schemas given to Fastify serve the OpenAPI document only.
  app.setValidatorCompiler(() => (data) => ({ value: data }))
  // Response schemas document; they never reshape or strip what a handler sends.
  app.setSerializerCompiler(() => (data) => JSON.stringify(data))
  // Bodies are JSON only: text/plain is a 415 like any other type, not a string body.
  app.removeContentTypeParser('text/plain')
  await app.register(cors, {
    origin: '*',
    credentials: false,
    // @fastify/cors allows only GET, HEAD, POST by default: browsers could not cancel a crawl or change a monitor.
    methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
    // An OPTIONS without Origin is no browser preflight: a 204 rather than the plugin's text/plain 400.
    strictPreflight: false,
    exposedHeaders: EXPOSED_HEADERS,
    maxAge: 86_400,
  })
  // OpenAPI 3.1.0, interface version 1.0.2 (docs/api-reference.md), built from the routes' zod schemas.
  await app.register(swagger, openApiOptions(config.baseUrl))
  registerErrorHandling(app, {
    creditsRemaining: async (accountId) => {
      const balanceMc = await readBalance(services.store.db, accountId)
      return balanceMc == null ? null : toCredits(balanceMc)
    },
  })

  // While shutting down, in-flight requests finish, answers close their connection so keep-alive
  // clients do not hold the drain open, and requests still arriving on open connections get 503.
  let closing = false
  app.addHook('preClose', async () => {
    closing = true
  })
  // The hooks every request runs take callbacks: an async hook costs a promise and a microtask each.
  app.addHook('onSend', (_req, reply, _payload, done) => {
    if (closing) reply.header('connection', 'close')
    done()
  })
  app.addHook('onRequest', (req, reply, done) => {
    req.startedAt = performance.now()
    reply.header('x-request-id', req.id)
    if (closing) return done(new ApiError('unavailable', 'the server is restarting; retry in a few seconds', { retryAfterSeconds: 5 }))
    if (!req.headers.host && req.raw.httpVersion === '1.1') return done(new ApiError('invalid_request', 'HTTP/1.1 requests must send a Host header'))
    done()
  })
  // Lines logged while serving a request name it, whichever logger writes them (services log with
  // the app's logger): entered once the body is read, since body stream callbacks would drop it.
  if (opts.instrument !== false) {
    app.addHook('preValidation', (req, _reply, done) => withLogFields({ reqId: req.id }, done, req.log))
    app.addHook('onResponse', (req, reply, done) => {
      metrics.request(req.method, req.routeOptions.url, reply.statusCode, req.startedAt ? (performance.now() - req.startedAt) / 1000 : 0)
      done()
    })
  }
  app.addHook('preHandler', authenticate(services))

  const deps = appDeps(services, app.log)
  healthRoutes(app, services)
  const kinds = jobKinds(services, app.log)
  metricsRoutes(app, { config, queues: () => queueStats(services.store, kinds) })
  accountRoutes(app, services)
  engineRoutes(app, services)
  adminRoutes(app, services)
  searchRoutes(app, deps)
  playgroundRoutes(app, deps)
  verticalRoutes(app, deps)
  rankRoutes(app, deps)
  cseRoutes(app, { ...deps, baseUrl: config.baseUrl })
  readingRoutes(app, deps)
  contextRoutes(app, deps)
  researchRoutes(app, deps)
  firecrawlRoutes(app, deps)
  serperRoutes(app, deps)
  tavilyRoutes(app, deps)
  searxngRoutes(app, deps)
  mapRoutes(app, deps)
  crawlRoutes(app, deps)
  batchRoutes(app, deps)
  monitorRoutes(app, deps)
  mcpRoutes(app, deps)
  await dashboardRoutes(app, deps)
  docsRoutes(app)
  return app
}

/**
 * A warning logged at most once a minute: a 401 for a well-formed key is most often an operator
 * command that wrote to another database (docs/cli.md), and a client retrying must not flood the log.
 */
function hintOncePerMinute(message: string) {
  let last = Number.NEGATIVE_INFINITY
  return (log: FastifyBaseLogger) => {
    const now = Date.now()
    if (now - last < 60_000) return
    last = now
    log.warn(message)
  }
}

/** The route's `auth` mode checked before its handler: an API key (and its rate), or the operator token. */
function authenticate(services: Services) {
  const { config } = services
  const unknownKeyHint = hintOncePerMinute(
    `an API key of the right form is not in this server's database (${describeDatabase(config.databaseUrl)}): ` +
      "keys made with `trawl accounts create` or `trawl keys create` land in the database of that command's TRAWL_DATABASE_URL; give it the server's",
  )
  return async (req: FastifyRequest) => {
    // Fastify builds req.routeOptions anew on each read.
    const route = req.routeOptions.config
    const mode = route?.auth
    if (mode === 'key' || mode === 'key-free') {
      req.auth = await services.keys.resolve(keyFromRequest(req, { allowKeyParam: route.keyParam, from: route.keyFrom })).catch((err) => {
        if (err instanceof ApiError && err.message === UNKNOWN_KEY) unknownKeyHint(req.log)
        throw err
      })
      if (mode === 'key') await services.limiter.consume(req.auth.keyId, req.auth.rps)
    } else if (mode === 'admin') {
      const token = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '')?.[1]
      // Without a configured token the operator API does not exist (TRAWL_ADMIN_TOKEN, README.md "Configuration").
      if (!config.adminToken) throw new ApiError('not_found', `no route ${req.method} ${req.url.split('?')[0]}`)
      if (!token || !safeEqual(token, config.adminToken)) throw new ApiError('unauthorized', 'operator API needs Authorization: Bearer <TRAWL_ADMIN_TOKEN>')
    }
  }
}
