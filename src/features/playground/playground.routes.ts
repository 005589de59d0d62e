import type { FastifyCorsOptions } from '@fastify/cors'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { Billing } from '../../billing/billed-lookup.ts'
import type { Config } from '../../config.ts'
import type { AppDeps } from '../../deps.ts'
import { planEngines, sentParams } from '../../engines/choice.ts'
import { ApiError } from '../../errors.ts'
import type { AuthContext } from '../../http/auth.ts'
import { errorResponses } from '../../http/error-schema.ts'
import { parseInput } from '../../http/parse-input.ts'
import { sendLookup } from '../search/lookup.reply.ts'
import { SearchResponse } from '../search/search.response.ts'
import { normaliseSearch, runSearch, type SearchDeps } from '../search/search.service.ts'
import { clientKey, createPlaygroundLimiter, type PlaygroundLimiter } from './playground.limits.ts'
import { PlaygroundParams, refusedParameter } from './playground.schema.ts'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Per-route @fastify/cors options, merged over the app-wide ones by the plugin's hook. */
    cors?: FastifyCorsOptions | false
  }
}

const PATH = '/playground/search'

/** Nobody pays: no account, no reservation, no ledger row (billed-lookup.ts). */
const FREE: Billing = { mode: 'free' }

/** The playground has no caller. With FREE billing runSearch never reads it; no key means no fallback to auto. */
const NO_KEY: AuthContext = { keyId: '', accountId: '', userId: '', plan: 'playground', rps: 0, keyLimitMc: null, allowFallback: false }

/** Playground searches accept a cached answer up to an hour old (the /v1/search cache, shared). */
export const PLAYGROUND_MAX_AGE_S = 3600

/** The dashboard's origin (TRAWL_APP_URL) and TRAWL_SITE_URL's, when set. */
export function playgroundOrigins(config: Pick<Config, 'appUrl' | 'siteUrl'>): string[] {
  return [...new Set([config.appUrl, config.siteUrl].flatMap((url) => (url ? [new URL(url).origin] : [])))]
}

export interface PlaygroundOptions {
  /** Tests pass a limiter with shorter windows. */
  limiter?: PlaygroundLimiter
}

/**
 * GET|POST /playground/search: /v1/search without a key, for the dashboard's and the site's
 * pages only (other Origins, or none, are 403 forbidden), limited per client address (5 a minute,
 * 20 a day), never billed. docs/playground.md.
 */
export function playgroundRoutes(app: FastifyInstance, deps: SearchDeps & Pick<AppDeps, 'config' | 'redis' | 'usdPerCredit'>, opts: PlaygroundOptions = {}) {
  const origins = playgroundOrigins(deps.config)
  const limiter = opts.limiter ?? createPlaygroundLimiter(deps.redis)
  // The app-wide CORS answers `*`; here Access-Control-Allow-Origin is the allowed Origin itself
  // (with Vary: Origin), and a foreign Origin gets no CORS headers at all, so a browser on
  // another site cannot read even the 403. The preflight of a JSON POST is answered by the plugin.
  const allowed = (origin: string | undefined): origin is string => origin !== undefined && origins.includes(origin)
  const cors: FastifyCorsOptions = { origin: (origin, cb) => cb(null, allowed(origin) ? origin : false) }

  // An onRequest hook, so the refusal comes before the body is even parsed.
  const checkOrigin = async (req: FastifyRequest) => {
    if (!allowed(req.headers.origin)) {
      const why = req.headers.origin === undefined ? 'this request has no Origin header' : 'this Origin is not one of them'
      throw new ApiError('forbidden', `the keyless playground answers only pages on ${origins.join(' or ')} (${why}); elsewhere use /v1/search with an API key`)
    }
  }

  const handler = async (req: FastifyRequest, reply: FastifyReply) => {
    const params = parseInput(PlaygroundParams, req, { explainUnknown: refusedParameter })
    const request = normaliseSearch(params, NO_KEY)
    // An engine that cannot serve the request is a 400 that spends none of the client's searches.
    planEngines(deps.engines, request.engine, { vertical: 'search', params: sentParams(request) })
    await limiter.consume(clientKey(req.ip))
    const outcome = await runSearch(deps, NO_KEY, request, { maxAge: PLAYGROUND_MAX_AGE_S }, req.id, FREE)
    return sendLookup(req, reply, 'search', outcome, { format: params.format ?? 'json' }, deps.usdPerCredit)
  }

  const schema = {
    summary: 'Keyless search playground',
    tags: ['playground'],
    security: [],
    description:
      'Web search without an API key, for the dashboard and the site only: a request whose Origin is not one of theirs (or that has none) is 403 forbidden. ' +
      'Limited to 5 searches a minute and 20 a day per client address (429 rate_limited with Retry-After); never billed. ' +
      'The same body as /v1/search, for a subset of its parameters; a cached answer up to an hour old may be returned. GET takes the parameters in the query string.',
  }
  const response = { 200: SearchResponse, ...errorResponses }
  const config = { cors }
  app.get(PATH, { config, onRequest: checkOrigin, schema: { ...schema, operationId: 'playgroundSearchGet', querystring: PlaygroundParams, response } }, handler)
  app.post(PATH, { config, onRequest: checkOrigin, schema: { ...schema, operationId: 'playgroundSearch', body: PlaygroundParams, response } }, handler)
  // Preflights from an allowed Origin are answered (204) by the CORS hook before this route runs;
  // what reaches it is an OPTIONS from any other Origin.
  app.options(PATH, { config, onRequest: checkOrigin, schema: { hide: true } }, async (_req, reply) => reply.code(204).send())
}
