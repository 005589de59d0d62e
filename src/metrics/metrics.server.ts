import { createHash, timingSafeEqual } from 'node:crypto'
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify'
import type { Config } from '../config.ts'
import { ApiError } from '../errors.ts'
import { registerErrorHandling } from '../http/error-handler.ts'
import '../http/fastify-types.ts'
import { type MetricsRouteOptions, metricsRoutes } from './metrics.routes.ts'

export interface MetricsServerOptions {
  config: Pick<Config, 'host' | 'adminToken' | 'metricsPublic'> & { metricsPort: number }
  queues: MetricsRouteOptions['queues']
  log: FastifyBaseLogger
}

const digest = (s: string) => createHash('sha256').update(s).digest()

/**
 * GET /metrics on a port of its own, for `trawl worker` (TRAWL_METRICS_PORT): a worker serves no
 * API, yet its webhook attempts, crawl and batch refunds and upstream attempts are counted in its
 * own process. Same route, same rules as on the API: the operator token unless TRAWL_METRICS_PUBLIC.
 */
export async function startMetricsServer(opts: MetricsServerOptions): Promise<FastifyInstance> {
  const { config } = opts
  const app = Fastify({ loggerInstance: opts.log, disableRequestLogging: true })
  app.setValidatorCompiler(() => (data) => ({ value: data }))
  registerErrorHandling(app)
  app.addHook('onRequest', async (req, reply) => {
    req.startedAt = performance.now()
    reply.header('x-request-id', req.id)
  })
  // The API's operator check (app.ts), for the one route here.
  app.addHook('preHandler', async (req) => {
    if (req.routeOptions.config?.auth !== 'admin') return
    if (!config.adminToken) throw new ApiError('not_found', `no route ${req.method} ${req.url.split('?')[0]}`)
    const token = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '')?.[1]
    if (!token || !timingSafeEqual(digest(token), digest(config.adminToken))) {
      throw new ApiError('unauthorized', 'metrics need Authorization: Bearer <TRAWL_ADMIN_TOKEN>')
    }
  })
  metricsRoutes(app, { config, queues: opts.queues })
  const url = await app.listen({ host: config.host, port: config.metricsPort })
  opts.log.info(`Trawl worker metrics on ${url}/metrics`)
  return app
}
