import type { FastifyInstance } from 'fastify'
import type { Services } from '../../services.ts'
import { accountForKey } from './accounts.service.ts'

export function accountRoutes(app: FastifyInstance, services: Pick<Services, 'store'>) {
  // Free and not rate limited, but authenticated (SPEC Limits "Rate counting").
  app.get(
    '/v1/account',
    { config: { auth: 'key-free' }, schema: { summary: 'Balance, limits and this month’s usage for the calling key', tags: ['account'] } },
    async (req) => accountForKey(services.store, req.auth.accountId, req.auth.keyId),
  )
}
