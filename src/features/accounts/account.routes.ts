import type { FastifyInstance } from 'fastify'
import { z } from 'zod'
import type { Services } from '../../deps.ts'
import { errorResponses } from '../../http/error-schema.ts'
import { parseInput } from '../../http/parse-input.ts'
import { AccountResponse } from './account.response.ts'
import { accountForKey } from './accounts.service.ts'

/** GET /v1/account takes no parameters; an unknown one is a 400 like on every endpoint (api_key is the credential). */
const NoParams = z.strictObject({})

export function accountRoutes(app: FastifyInstance, services: Pick<Services, 'store'>) {
  // Free and not rate limited, but authenticated.
  app.get(
    '/v1/account',
    {
      config: { auth: 'key-free' },
      schema: {
        operationId: 'getAccount',
        summary: 'Balance, limits and this month’s usage for the calling key',
        tags: ['account'],
        response: { 200: AccountResponse, ...errorResponses },
      },
    },
    async (req) => {
      parseInput(NoParams, req, { ignore: ['api_key'] })
      return accountForKey(services.store, req.auth.accountId, req.auth.keyId)
    },
  )
}
