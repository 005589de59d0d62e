import type { FastifyInstance } from 'fastify'
import type { AppDeps } from '../../deps.ts'
import { sendQueued } from '../../http/billing-headers.ts'
import { errorResponses, jsonAnswer } from '../../http/error-schema.ts'
import { parseInput } from '../../http/parse-input.ts'
import { JobIdParams, jobIdOf } from '../../params/job.params.ts'
import { BatchCreated, BatchJob } from './batches.response.ts'
import { BatchParams } from './batches.schema.ts'
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
        response: { 202: jsonAnswer('Accepted: one entry per request, in order; check each for an error key', BatchCreated), ...errorResponses },
      },
    },
    async (req, reply) => {
      const { batches, chargedMc, balanceMc } = await createBatch(deps, req.auth, parseInput(BatchParams, req), req.id)
      return sendQueued(req, reply, chargedMc, balanceMc, deps.usdPerCredit, { batches })
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
        params: JobIdParams,
        response: { 200: BatchJob, ...errorResponses },
      },
    },
    async (req) => getBatchJob(deps.store, deps.config.baseUrl, req.auth.accountId, jobIdOf(req.params)),
  )
}
