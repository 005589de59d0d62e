import type { FastifyInstance } from 'fastify'
import type { AppDeps } from '../../deps.ts'
import { setBillingHeaders } from '../../http/billing-headers.ts'
import { errorResponses } from '../../http/error-schema.ts'
import { parseInput, parseWith } from '../../http/parse-input.ts'
import { BatchCreated, BatchJob } from './batches.response.ts'
import { BatchIdParams, BatchParams } from './batches.schema.ts'
import { createBatch, getBatchJob } from './batches.service.ts'

/** POST /v1/batches (202, one entry per request) and GET /v1/batches/{id} (free). */
export function batchRoutes(app: FastifyInstance, deps: AppDeps) {
  app.post(
    '/v1/batches',
    {
      // One request for the rate limit, however many entries it holds.
      config: { auth: 'key', billed: true },
      schema: {
        tags: ['batches'],
        operationId: 'createBatch',
        summary: 'Queue up to 100 requests of one endpoint at half price',
        description:
          'Returns 202 with `batches[]`, one entry per request in order: a queued job, or `{error}` for a request the realtime endpoint would refuse. Only queued jobs are charged (0.5 x the realtime price); a failed job is refunded. Results are polled with GET /v1/batches/{id} or sent as signed batch.completed webhooks.',
        body: BatchParams,
        response: {
          202: {
            description: 'Accepted: one entry per request, in order; check each for an error key',
            content: { 'application/json': { schema: BatchCreated } },
          },
          ...errorResponses,
        },
      },
    },
    async (req, reply) => {
      const { batches, chargedMc, balanceMc } = await createBatch(deps, req.auth, parseInput(BatchParams, req), req.id)
      setBillingHeaders(req, reply, { usedMc: chargedMc, balanceMc, cacheHit: false, tokens: 0 }, deps.usdPerCredit)
      return reply.code(202).send({ batches })
    },
  )
  app.get(
    '/v1/batches/:id',
    {
      // Authenticated but free of the rate limit.
      config: { auth: 'key-free' },
      schema: {
        tags: ['batches'],
        operationId: 'getBatch',
        summary: 'A batch job: status, and its result when done (kept 24 hours)',
        description: 'Free. 404 not_found when the job does not exist, belongs to another account, or its result expired.',
        params: BatchIdParams,
        response: { 200: BatchJob, ...errorResponses },
      },
    },
    async (req) => getBatchJob(deps.store, deps.config.baseUrl, req.auth.accountId, parseWith(BatchIdParams, req.params).id),
  )
}
