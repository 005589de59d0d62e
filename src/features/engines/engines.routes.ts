import type { FastifyInstance } from 'fastify'
import type { Services } from '../../deps.ts'
import { errorResponses } from '../../http/error-schema.ts'
import { parseInput } from '../../http/parse-input.ts'
import { CheckBody, checkEngines } from './engines.check.ts'
import { EnginesResponse } from './engines.response.ts'
import { engineStatuses } from './engines.service.ts'

export function engineRoutes(app: FastifyInstance, services: Pick<Services, 'engines' | 'upstream'>) {
  // Free and not rate limited, like GET /v1/account: callers poll it to pick an engine.
  app.get(
    '/v1/engines',
    {
      config: { auth: 'key-free' },
      schema: {
        operationId: 'listEngines',
        summary: 'Search providers: verticals, parameters, health and parser drift',
        tags: ['search'],
        description:
          'Each provider with what it offers and its rolling health per layout (web search, news, …): block, timeout and error rates, latency, and the share of pages that could not be read. `drifting` means the provider answers pages we can no longer read (its layout changed); `auto` and `consensus` skip blocked and drifting providers until a probe after the cool-down succeeds.',
        response: { 200: EnginesResponse, ...errorResponses },
      },
    },
    async () => {
      await services.engines.health.refresh()
      return { engines: engineStatuses(services.engines) }
    },
  )

  // The operator's live self-test (engines.check.ts): one query per provider, route and vertical.
  app.post(
    '/admin/v1/engines/check',
    { config: { auth: 'admin' }, schema: { summary: 'Check every engine route live', tags: ['operator'], hide: true } },
    async (req) => checkEngines(services.engines, parseInput(CheckBody, req), services.upstream.gateStats),
  )
}
