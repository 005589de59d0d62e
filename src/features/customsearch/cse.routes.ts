import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { sendBilledJson } from '../../http/billing-headers.ts'
import { errorResponses } from '../../http/error-schema.ts'
import { parseInput } from '../../http/parse-input.ts'
import { CseResponse } from './cse.response.ts'
import { CseParams } from './cse.schema.ts'
import { type CseDeps, normaliseCse, runCse } from './cse.service.ts'
import { applyPartialFields, parsePartialFields } from './partial-response.ts'

/** GET /customsearch/v1: Google's Custom Search JSON API, answered from Trawl's own engines. */
export function cseRoutes(app: FastifyInstance, deps: CseDeps & { usdPerCredit: number }) {
  app.get(
    '/customsearch/v1',
    {
      config: { auth: 'key', billed: true, keyParam: true },
      schema: {
        operationId: 'customSearch',
        summary: 'Custom Search compatible',
        tags: ['compatible'],
        description:
          "Google's Custom Search JSON API request and response, for its clients and libraries: change only the root URL and the key. The key may come as ?key=. 1 credit per page. Errors use Trawl's own envelope.",
        querystring: CseParams,
        response: { 200: CseResponse, ...errorResponses },
      },
    },
    async (req: FastifyRequest, reply: FastifyReply) => {
      const params = parseInput(CseParams, req, { ignore: ['api_key', 'key'] })
      const selection = params.fields ? parsePartialFields(params.fields) : undefined // a bad selector costs nothing
      const outcome = await runCse(deps, req.auth, normaliseCse(params, req.auth), req.id)
      const body = selection ? applyPartialFields(outcome.body, selection) : outcome.body
      return sendBilledJson(req, reply, JSON.stringify(body, null, params.prettyPrint === false ? undefined : 2), outcome, deps.usdPerCredit)
    },
  )
}
