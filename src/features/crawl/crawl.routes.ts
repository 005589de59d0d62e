import type { FastifyInstance } from 'fastify'
import { toMc } from '../../billing/money.ts'
import { setBillingHeaders } from '../../http/billing-headers.ts'
import { errorResponses } from '../../http/error-schema.ts'
import { parseInput, parseWith } from '../../http/parse-input.ts'
import type { JobQueue } from '../../jobs/runner.ts'
import type { Renderer } from '../../net/browser/renderer.ts'
import { assertRenderable } from '../../reader/render.read.ts'
import { CrawlTask } from './crawl.response.ts'
import { CrawlIdParams, CrawlParams } from './crawl.schema.ts'
import { cancelCrawl, getCrawlBody, startCrawl } from './crawl.service.ts'

/** POST /v1/crawl (202 with the task), GET and DELETE /v1/crawl/{id}. */
export function crawlRoutes(app: FastifyInstance, deps: JobQueue & { usdPerCredit: number; renderer?: Renderer }) {
  const schema = { tags: ['crawl'], params: CrawlIdParams, response: { 200: CrawlTask, ...errorResponses } }
  const idOf = (params: unknown) => parseWith(CrawlIdParams, params).id

  app.post(
    '/v1/crawl',
    {
      config: { auth: 'key', billed: true },
      schema: {
        tags: ['crawl'],
        operationId: 'startCrawl',
        response: {
          202: {
            description: 'Accepted: the crawl is queued; poll GET /v1/crawl/{id} or wait for crawl.completed',
            content: { 'application/json': { schema: CrawlTask } },
          },
          ...errorResponses,
        },
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
      setBillingHeaders(req, reply, { usedMc: toMc(task.credits_reserved), balanceMc, cacheHit: false, tokens: 0 }, deps.usdPerCredit)
      return reply.code(202).send(task)
    },
  )
  app.get(
    '/v1/crawl/:id',
    { config: { auth: 'key' }, schema: { ...schema, operationId: 'getCrawl', summary: 'Crawl progress, and the result when it has ended (kept 24 hours)' } },
    // Sent as text: the stored result goes out as stored, its pages streamed (crawl.service.ts `getCrawlBody`).
    async (req, reply) => reply.type('application/json; charset=utf-8').send(await getCrawlBody(deps.store, req.auth.accountId, idOf(req.params))),
  )
  app.delete('/v1/crawl/:id', { config: { auth: 'key' }, schema: { ...schema, operationId: 'cancelCrawl', summary: 'Cancel a crawl' } }, async (req) =>
    cancelCrawl(deps, req.auth.accountId, idOf(req.params)),
  )
}
