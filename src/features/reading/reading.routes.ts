import type { FastifyInstance } from 'fastify'
import type { z } from 'zod'
import type { AuthContext } from '../../http/auth.ts'
import { setBillingHeaders } from '../../http/billing-headers.ts'
import { errorResponses } from '../../http/error-schema.ts'
import { parseInput } from '../../http/parse-input.ts'
import { type ReadingDeps, type ReadingOutcome, runExtract } from './extract.service.ts'
import { ExtractResponse, WebpageResponse } from './reading.response.ts'
import { ExtractParams, rejectSwappedUrlField, WebpageParams } from './reading.schema.ts'
import { runWebpage } from './webpage.service.ts'

/** POST /v1/extract and POST /v1/webpage (page reading is POST only: README.md "Decisions worth knowing"). */
export function readingRoutes(app: FastifyInstance, deps: ReadingDeps & { usdPerCredit: number }) {
  /** One reading endpoint: the body parsed (a url field sent to the other one is named), one call, the billed reply. */
  const readingRoute = <S extends z.ZodObject>(
    endpoint: 'extract' | 'webpage',
    doc: { summary: string; description: string },
    params: S,
    response: z.ZodType,
    run: (deps: ReadingDeps, auth: AuthContext, params: z.infer<S>, requestId: string) => Promise<ReadingOutcome<unknown>>,
  ) =>
    app.post(
      `/v1/${endpoint}`,
      {
        config: { auth: 'key', billed: true },
        schema: { operationId: endpoint, ...doc, tags: ['reading'], body: params, response: { 200: response, ...errorResponses } },
      },
      async (req, reply) => {
        rejectSwappedUrlField(req.body, endpoint)
        const outcome = await run(deps, req.auth, parseInput(params, req), req.id)
        setBillingHeaders(req, reply, outcome, deps.usdPerCredit)
        return reply.send(outcome.body)
      },
    )

  readingRoute(
    'extract',
    {
      summary: 'Read up to 20 pages',
      description: 'Pages as Markdown, text or HTML, 5 at a time. 200 even when some or all fail; failures are listed in failed[] and cost nothing.',
    },
    ExtractParams,
    ExtractResponse,
    runExtract,
  )
  readingRoute(
    'webpage',
    { summary: 'Read one page', description: 'One page (HTML or PDF) as Markdown, text or HTML. 1 credit; 0.5 from the cache with max_age.' },
    WebpageParams,
    WebpageResponse,
    runWebpage,
  )
}
