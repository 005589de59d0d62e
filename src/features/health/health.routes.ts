import type { FastifyInstance } from 'fastify'
import type { Services } from '../../deps.ts'
import { engineSummary } from '../engines/engines.service.ts'

const withTimeout = <T>(p: Promise<T>, ms: number) =>
  Promise.race([p, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`no answer in ${ms} ms`)), ms).unref())])

export function healthRoutes(app: FastifyInstance, services: Pick<Services, 'store' | 'redis' | 'upstream' | 'engines' | 'renderer'>) {
  app.get('/livez', { schema: { hide: true } }, async () => ({ status: 'ok' }))

  /** Readiness: the database answers, and Redis too when configured. 503 names what is down. */
  app.get('/healthz', { schema: { hide: true } }, async (_req, reply) => {
    const checks: Record<string, string> = {}
    await withTimeout(services.store.ping(), 2000).then(
      () => (checks.database = 'ok'),
      (e: Error) => (checks.database = `down: ${e.message}`),
    )
    if (services.redis) {
      await withTimeout(services.redis.ping(), 2000).then(
        () => (checks.cache = 'ok'),
        (e: Error) => (checks.cache = `down: ${e.message}`),
      )
    } else {
      checks.cache = 'ok (database)'
    }
    const healthy = Object.values(checks).every((v) => v.startsWith('ok'))
    // Proxies cooling down degrade search but not readiness: reported, never a 503.
    const proxies = services.upstream.poolHealth()
    // Engines blocked or drifting degrade search, and `auto` routes around them: reported, never a
    // 503. The primary with no working route is `degraded` (still 200): searches fall to others.
    const primaryDown = services.engines.primaryDown()
    const body: Record<string, unknown> = { status: !healthy ? 'unavailable' : primaryDown ? 'degraded' : 'ok', checks }
    if (primaryDown) body.degraded = primaryDown
    body.engines = engineSummary(services.engines)
    // Rendering off or its browser failing degrades render=auto to static reads: reported, never a 503.
    body.renderer = services.renderer.status()
    if (proxies.length > 0) body.proxies = { healthy: proxies.filter((p) => p.healthy).length, total: proxies.length }
    return reply.code(healthy ? 200 : 503).send(body)
  })
}
