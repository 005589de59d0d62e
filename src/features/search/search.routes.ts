import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { errorResponses } from '../../http/error-schema.ts'
import { parseInput } from '../../http/parse-input.ts'
import { sendLookup } from './lookup.reply.ts'
import { validateOutputOptions } from './output/output.ts'
import { SearchResponse } from './search.response.ts'
import { SearchParams } from './search.schema.ts'
import { normaliseSearch, runSearch, type SearchDeps } from './search.service.ts'
import { explainParamElsewhere } from './verticals/param-homes.ts'

export function searchRoutes(app: FastifyInstance, deps: SearchDeps & { usdPerCredit: number }) {
  const handler = async (req: FastifyRequest, reply: FastifyReply) => {
    const params = parseInput(SearchParams, req, { ignore: ['api_key'], explainUnknown: explainParamElsewhere('/v1/search') })
    const output = { format: params.format ?? 'json', fields: params.fields }
    validateOutputOptions('search', output) // before anything is reserved, so a bad one costs nothing
    const request = normaliseSearch(params, req.auth)
    const outcome = await runSearch(deps, req.auth, request, { maxAge: params.max_age, includeContent: params.include_content }, req.id)
    return sendLookup(req, reply, 'search', outcome, output, deps.usdPerCredit)
  }
  const route = {
    config: { auth: 'key' as const, billed: true },
    schema: {
      summary: 'Web search',
      tags: ['search'],
      description: 'Google web results with feature blocks. GET takes the same parameters in the query string.',
    },
  }
  const response = { 200: SearchResponse, ...errorResponses }
  app.get('/v1/search', { ...route, schema: { ...route.schema, operationId: 'searchGet', querystring: SearchParams, response } }, handler)
  app.post('/v1/search', { ...route, schema: { ...route.schema, operationId: 'search', body: SearchParams, response } }, handler)
}
