import type { FastifyInstance, FastifyRequest } from 'fastify'
import { z } from 'zod'
import type { Services } from '../../deps.ts'
import { parseInput } from '../../http/parse-input.ts'
import { SESSION_COOKIE, sessionUser } from './sessions.service.ts'
import { getWebhookSettings, rotateWebhookSecret, setWebhookUrl } from './webhook-settings.service.ts'

const webhookUrl = z
  .url({ protocol: /^https?$/, error: 'url must be an http(s) URL or null' })
  .max(2048, 'url must be at most 2048 characters')
  // zod runs this even when the URL check failed; an unparsable value is already reported there.
  .refine((u) => !URL.canParse(u) || (!new URL(u).username && !new URL(u).password), 'url must not contain credentials')
const PutWebhookBody = z.strictObject({ url: webhookUrl.nullable() })

/** Webhook settings in the dashboard API (docs/dashboard.md); session cookie auth like the key routes. */
export function webhookSettingsRoutes(app: FastifyInstance, services: Pick<Services, 'store' | 'config'>) {
  // The same {app}/api prefix as dashboard-api.routes.ts (the session cookie is scoped to it).
  const prefix = new URL(services.config.appUrl).pathname.replace(/\/$/, '') + '/api'
  const opts = { schema: { hide: true } }
  const user = (req: FastifyRequest) => sessionUser(services.store, req.cookies[SESSION_COOKIE], `${prefix}/v1/login`)

  app.get(`${prefix}/v1/webhook`, opts, async (req) => getWebhookSettings(services.store, await user(req)))
  app.put(`${prefix}/v1/webhook`, opts, async (req) => setWebhookUrl(services.store, await user(req), parseInput(PutWebhookBody, req).url))
  app.post(`${prefix}/v1/webhook/secret/rotate`, opts, async (req) => rotateWebhookSecret(services.store, await user(req)))
}
