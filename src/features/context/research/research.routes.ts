import { Readable } from 'node:stream'
import type { FastifyInstance } from 'fastify'
import { z } from 'zod'
import { toMc } from '../../../billing/money.ts'
import { sendQueued } from '../../../http/billing-headers.ts'
import { errorResponses, jsonAnswer } from '../../../http/error-schema.ts'
import { parseInput } from '../../../http/parse-input.ts'
import { JobIdParams, jobIdOf } from '../../../params/job.params.ts'
import { ResearchTask } from './research.response.ts'
import { ResearchParams } from './research.schema.ts'
import { assertResearchVisible, cancelResearch, getResearch, type ResearchDeps, researchEvents, startResearch } from './research.service.ts'

/** POST /v1/research (202 with the job), GET and DELETE /v1/research/{id}, GET /v1/research/{id}/events (docs/research.md). */
export function researchRoutes(app: FastifyInstance, deps: ResearchDeps & { usdPerCredit: number }) {
  const schema = { tags: ['search'], params: JobIdParams, response: { 200: ResearchTask, ...errorResponses } }

  app.post(
    '/v1/research',
    {
      config: { auth: 'key', billed: true },
      schema: {
        tags: ['search'],
        operationId: 'startResearch',
        summary: 'Start a research job',
        description:
          "The operator's model splits `input` into sub-queries, each is searched and read as POST /v1/context does, and the model writes a report citing the passages found (or data valid against `output_schema`). Returns 202 with the job; the worst case is debited now and the unused part refunded when it ends. 501 not_configured without a model.",
        body: ResearchParams,
        response: {
          202: jsonAnswer('Accepted: the research is queued; poll GET /v1/research/{id}, follow its events, or wait for research.completed', ResearchTask),
          ...errorResponses,
        },
      },
    },
    async (req, reply) => {
      const params = parseInput(ResearchParams, req)
      const { task, balanceMc } = await startResearch(deps, req.auth, params, req.id)
      return sendQueued(req, reply, toMc(task.credits_reserved), balanceMc, deps.usdPerCredit, task)
    },
  )
  app.get(
    '/v1/research/:id',
    {
      config: { auth: 'key' },
      schema: { ...schema, operationId: 'getResearch', summary: 'Research progress, and the result when it has ended (kept 24 hours)' },
    },
    async (req) => getResearch(deps.store, req.auth.accountId, jobIdOf(req.params)),
  )
  app.get(
    '/v1/research/:id/events',
    {
      config: { auth: 'key' },
      schema: {
        tags: ['search'],
        operationId: 'researchEvents',
        summary: 'Research steps as server-sent events',
        description:
          'text/event-stream: a `step` event per step as it ends (its number as the event id; Last-Event-ID resumes after it), then one event named after the final status (completed, failed or canceled) holding the whole job, then the end of the stream. A late client gets the steps so far first.',
        params: JobIdParams,
        response: { 200: { description: 'The event stream', content: { 'text/event-stream': { schema: z.string() } } }, ...errorResponses },
      },
    },
    async (req, reply) => {
      const id = jobIdOf(req.params)
      await assertResearchVisible(deps.store, req.auth.accountId, id)
      const after = Number.parseInt(String(req.headers['last-event-id'] ?? '0'), 10)
      // The client going away stops the polling at once, not at the next event.
      const gone = new AbortController()
      reply.raw.on('close', () => gone.abort())
      const events = researchEvents(deps.store, req.auth.accountId, id, Number.isFinite(after) ? after : 0, gone.signal)
      reply.header('cache-control', 'no-cache').header('x-accel-buffering', 'no').type('text/event-stream; charset=utf-8')
      // HEAD (Fastify answers it from this route) gets the headers only, not a stream held open.
      if (req.method === 'HEAD') return reply.send('')
      return reply.send(Readable.from(events, { objectMode: false }))
    },
  )
  app.delete(
    '/v1/research/:id',
    { config: { auth: 'key' }, schema: { ...schema, operationId: 'cancelResearch', summary: 'Cancel a research job' } },
    async (req) => cancelResearch(deps, req.auth.accountId, jobIdOf(req.params)),
  )
}
