import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { sendBilledJson } from '../../http/billing-headers.ts'
import { errorResponses } from '../../http/error-schema.ts'
import { parseInput } from '../../http/parse-input.ts'
import { RankParams, RankResponse } from './rank.schema.ts'
import { normaliseRank, type RankDeps, runRank } from './rank.service.ts'

export function rankRoutes(app: FastifyInstance, deps: RankDeps & { usdPerCredit: number }) {
  const handler = async (req: FastifyRequest, reply: FastifyReply) => {
    const params = parseInput(RankParams, req, { ignore: ['api_key'] })
    const outcome = await runRank(deps, req.auth, normaliseRank(params, req.auth), { maxAge: params.max_age }, req.id)
    return sendBilledJson(req, reply, JSON.stringify(outcome.body), outcome, deps.usdPerCredit)
  }
  const route = {
    config: { auth: 'key' as const, billed: true },
    schema: {
      summary: 'Rank lookup',
      tags: ['search'],
      description:
        'Best organic position of a domain (subdomains match) in the top num results. 7 credits for the top 100. GET takes the same parameters in the query string.',
    },
  }
  const response = { 200: RankResponse, ...errorResponses }
  app.post('/v1/rank', { ...route, schema: { ...route.schema, operationId: 'rank', body: RankParams, response } }, handler)
  app.get('/v1/rank', { ...route, schema: { ...route.schema, operationId: 'rankGet', querystring: RankParams, response } }, handler)
}
