import type { AuthContext } from './auth.ts'
import type { CreditsRemaining } from './error-reply.ts'

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the key check on routes with `config.auth === 'key'`. */
    auth: AuthContext
    /** performance.now() when the request arrived; X-Latency-Ms is measured from it. */
    startedAt: number
  }
  interface FastifyInstance {
    /** The methods of the routes whose path matches (error-handler.ts): 405 rather than 404 for a known path. */
    routeMethods?: (path: string) => string[]
    /** The caller's balance for X-Credits-Remaining on failed billed calls (error-reply.ts); null on the metrics server. */
    creditsRemaining: CreditsRemaining | null
  }
  interface FastifyContextConfig {
    /** 'key': API key + rate limit; 'key-free': API key, not rate limited (GET /v1/account); 'admin': operator token. */
    auth?: 'key' | 'key-free' | 'admin'
    /** Billed endpoints send X-Credits-Used: 0 and friends on failures too. */
    billed?: boolean
    /** /customsearch/v1 also takes the key as ?key=. */
    keyParam?: boolean
  }
}
