import type { FastifyInstance } from 'fastify'
import { toMc } from '../../billing/money.ts'
import { sendQueued } from '../../http/billing-headers.ts'
import { errorResponses, jsonAnswer } from '../../http/error-schema.ts'
import { parseInput } from '../../http/parse-input.ts'
import type { JobQueue } from '../../jobs/runner.ts'
import type { Renderer } from '../../net/browser/renderer.ts'
import { JobIdParams, jobIdOf } from '../../params/job.params.ts'
import { assertRenderable } from '../../reader/render.read.ts'
import { CrawlTask } from './crawl.response.ts'
import { CrawlParams } from './crawl.schema.ts'
import { cancelCrawl, getCrawlBody, startCrawl } from './crawl.service.ts'

/** POST /v1/crawl (202 with the task), GET and DELETE /v1/crawl/{id}. */
export function crawlRoutes(app: FastifyInstance, deps: JobQueue & { usdPerCredit: number; renderer?: Renderer }) {
  const schema = { tags: ['crawl'], params: JobIdParams, response: { 200: CrawlTask, ...errorResponses } }

  app.post(
    '/v1/crawl',
    {
      config: { auth: 'key', billed: true },
      schema: {
        tags: ['crawl'],
        operationId: 'startCrawl',
        response: { 202: jsonAnswer('Accepted: the crawl is queued; poll GET /v1/crawl/{id} or wait for crawl.completed', CrawlTask), ...errorResponses },
        summary: 'Start a crawl',
        description: 'Returns 202 with the task; `limit` credits are reserved and the unused part refunded.',
        body: CrawlParams,
      },
    },
    async (req, reply) => {
      const params = parseInput(CrawlParams, req)
      assertRenderable(deps.renderer, params.render)
      const { task, balanceMc } = await startCrawl(deps, req.auth, params, req.id)
      // The reservation is what this call debited; the crawl refunds the unread part when it ends.
      return sendQueued(req, reply, toMc(task.credits_reserved), balanceMc, deps.usdPerCredit, task)
    },
  )
  app.get(
    '/v1/crawl/:id',
    { config: { auth: 'key' }, schema: { ...schema, operationId: 'getCrawl', summary: 'Crawl progress, and the result when it has ended (kept 24 hours)' } },
    // Sent as text: the stored result goes out as stored, its pages streamed (crawl.service.ts `getCrawlBody`).
    async (req, reply) => reply.type('application/json; charset=utf-8').send(await getCrawlBody(deps.store, req.auth.accountId, jobIdOf(req.params))),
  )
  app.delete('/v1/crawl/:id', { config: { auth: 'key' }, schema: { ...schema, operationId: 'cancelCrawl', summary: 'Cancel a crawl' } }, async (req) =>
    cancelCrawl(deps, req.auth.accountId, jobIdOf(req.params)),
  )
}
