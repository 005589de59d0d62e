import type { FastifyInstance } from 'fastify'
import { errorResponses } from '../../http/error-schema.ts'
import type { Services } from '../../services.ts'
import { AccountResponse } from './account.response.ts'
import { accountForKey } from './accounts.service.ts'

export function accountRoutes(app: FastifyInstance, services: Pick<Services, 'store'>) {
  // Free and not rate limited, but authenticated (SPEC Limits "Rate counting").
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
    async (req) => accountForKey(services.store, req.auth.accountId, req.auth.keyId),
  )
}
