import type { FastifyInstance } from 'fastify'
import { setBillingHeaders } from '../../http/billing-headers.ts'
import { errorResponses } from '../../http/error-schema.ts'
import { parseInput } from '../../http/parse-input.ts'
import { type ReadingDeps, runExtract } from './extract.service.ts'
import { ExtractResponse, WebpageResponse } from './reading.response.ts'
import { ExtractParams, rejectSwappedUrlField, WebpageParams } from './reading.schema.ts'
import { runWebpage } from './webpage.service.ts'

/** POST /v1/extract and POST /v1/webpage (page reading is POST only: README.md "Decisions worth knowing"). */
export function readingRoutes(app: FastifyInstance, deps: ReadingDeps & { usdPerCredit: number }) {
  const config = { auth: 'key' as const, billed: true }

  app.post(
    '/v1/extract',
    {
      config,
      schema: {
        operationId: 'extract',
        summary: 'Read up to 20 pages',
        tags: ['reading'],
        description: 'Pages as Markdown, text or HTML, 5 at a time. 200 even when some or all fail; failures are listed in failed[] and cost nothing.',
        body: ExtractParams,
        response: { 200: ExtractResponse, ...errorResponses },
      },
    },
    async (req, reply) => {
      rejectSwappedUrlField(req.body, 'extract')
      const params = parseInput(ExtractParams, req)
      const outcome = await runExtract(deps, req.auth, params, req.id)
      setBillingHeaders(req, reply, outcome, deps.usdPerCredit)
      return reply.send(outcome.body)
    },
  )

  app.post(
    '/v1/webpage',
    {
      config,
      schema: {
        operationId: 'webpage',
        summary: 'Read one page',
        tags: ['reading'],
        description: 'One page (HTML or PDF) as Markdown, text or HTML. 1 credit; 0.5 from the cache with max_age.',
        body: WebpageParams,
        response: { 200: WebpageResponse, ...errorResponses },
      },
    },
    async (req, reply) => {
      rejectSwappedUrlField(req.body, 'webpage')
      const params = parseInput(WebpageParams, req)
      const outcome = await runWebpage(deps, req.auth, params, req.id)
      setBillingHeaders(req, reply, outcome, deps.usdPerCredit)
      return reply.send(outcome.body)
    },
  )
}
