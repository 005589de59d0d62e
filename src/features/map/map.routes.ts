import type { FastifyInstance } from 'fastify'
import { sendBilledJson } from '../../http/billing-headers.ts'
import { errorResponses } from '../../http/error-schema.ts'
import { parseInput } from '../../http/parse-input.ts'
import { MapResponse } from './map.response.ts'
import { MapParams } from './map.schema.ts'
import { type MapDeps, runMap } from './map.service.ts'

export function mapRoutes(app: FastifyInstance, deps: MapDeps & { usdPerCredit: number }) {
  app.post(
    '/v1/map',
    {
      config: { auth: 'key', billed: true },
      schema: {
        operationId: 'map',
        summary: 'List a site’s URLs',
        tags: ['crawl'],
        description: 'From its sitemaps and the start page’s links; 1 credit when URLs were found, free otherwise.',
        body: MapParams,
        response: { 200: MapResponse, ...errorResponses },
      },
    },
    async (req, reply) => {
      const outcome = await runMap(deps, req.auth, parseInput(MapParams, req), req.id)
      return sendBilledJson(req, reply, JSON.stringify(outcome.body), { ...outcome, cacheHit: false }, deps.usdPerCredit)
    },
  )
}
