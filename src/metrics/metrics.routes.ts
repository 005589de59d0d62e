import type { FastifyInstance } from 'fastify'
import { z } from 'zod'
import type { Config } from '../config.ts'
import { parseInput } from '../http/parse-input.ts'
import { metrics, type QueueStat, registry } from './metrics.ts'

export interface MetricsRouteOptions {
  config: Pick<Config, 'metricsPublic'>
  /** Each job kind's queue, read from the database at each scrape (jobs/runner.ts queueStats). */
  queues(): Promise<QueueStat[]>
}

/** No parameters: anything in the query string is refused like on every other route. */
const NoParams = z.strictObject({})

/**
 * GET /metrics: this process's metrics in Prometheus text format. Operator-only by default
 * (Authorization: Bearer <TRAWL_ADMIN_TOKEN>; 404 without a token configured, like the operator
 * API); TRAWL_METRICS_PUBLIC=true opens it for a scraper on a private network. Not in the OpenAPI
 * document: it is for operators, like /healthz.
 */
export function metricsRoutes(app: FastifyInstance, opts: MetricsRouteOptions) {
  app.get('/metrics', { schema: { hide: true }, config: opts.config.metricsPublic ? {} : { auth: 'admin' } }, async (req, reply) => {
    parseInput(NoParams, req)
    // A database that does not answer leaves the queue gauges out; the rest of the scrape still helps.
    await opts.queues().then(
      (stats) => metrics.queues(stats),
      (err) => {
        metrics.queues([])
        req.log.warn({ err }, 'metrics: job queues not read')
      },
    )
    return reply.type(registry.contentType).send(await registry.metrics())
  })
}
