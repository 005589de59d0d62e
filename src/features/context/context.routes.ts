import type { FastifyInstance } from 'fastify'
import { setBillingHeaders } from '../../http/billing-headers.ts'
import { errorResponses } from '../../http/error-schema.ts'
import { parseInput } from '../../http/parse-input.ts'
import type { SearchDeps } from '../search/search.service.ts'
import { ContextParams, ContextResponse } from './context.schema.ts'
import { bodyTokens, normaliseContext, runContext } from './context.service.ts'

/** POST /v1/context (docs/context.md). */
export function contextRoutes(app: FastifyInstance, deps: SearchDeps & { usdPerCredit: number }) {
  app.post(
    '/v1/context',
    {
      config: { auth: 'key' as const, billed: true },
      schema: {
        operationId: 'context',
        summary: 'Passages that answer a question',
        tags: ['search'],
        description:
          'Searches q, reads the top num results as Markdown and answers the passages that best match q, best first, within max_tokens. 1 credit for the search plus 1 per page read (each half from the cache with max_age); a page that cannot be read is listed in sources and costs nothing.',
        body: ContextParams,
        response: { 200: ContextResponse, ...errorResponses },
      },
    },
    async (req, reply) => {
      const params = parseInput(ContextParams, req)
      // Engine names and modes are checked here and the engine choice inside runSearch: both before anything is reserved.
      const outcome = await runContext(deps, req.auth, normaliseContext(params, req.auth), req.id)
      setBillingHeaders(req, reply, { ...outcome, tokens: await bodyTokens(outcome.body) }, deps.usdPerCredit)
      return reply.send(outcome.body)
    },
  )
}
