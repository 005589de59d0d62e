import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { type Billing, REALTIME } from '../../../billing/billed-lookup.ts'
import type { AppDeps } from '../../../deps.ts'
import { describeEngines } from '../../../engines/registry.ts'
import { ApiError } from '../../../errors.ts'
import { type AuthContext, keyFromRequest } from '../../../http/auth.ts'
import { sendBilledJson } from '../../../http/billing-headers.ts'
import { errorResponses } from '../../../http/error-schema.ts'
import { withoutPrototypes } from '../../../http/parse-input.ts'
import { clientKey, type PlaygroundLimiter } from '../../playground/playground.limits.ts'
import { createKeylessLimiter } from './searxng.keyless.ts'
import { SearxngResponse } from './searxng.response.ts'
import { SearxngParams } from './searxng.schema.ts'
import { readSearxng, searxngSearch } from './searxng.service.ts'

export const SEARXNG_PREFIX = '/compat/searxng'

/** Keyless searches: nobody pays, no account, no ledger row (billed-lookup.ts). */
const FREE: Billing = { mode: 'free' }
/** The caller of a keyless search: never read with FREE billing; no fallback means the primary engine. */
const NO_KEY: AuthContext = { keyId: '', accountId: '', userId: '', plan: 'searxng-keyless', rps: 0, keyLimitMc: null, allowFallback: false }
/** Keyless searches share the search cache for an hour, as the playground's do. */
const KEYLESS_MAX_AGE_S = 3600

export interface SearxngOptions {
  /** Tests pass a limiter with small windows. */
  keylessLimiter?: PlaygroundLimiter
}

/** Did the request bring a key in one of the places SearXNG clients can put one? */
function sendsKey(req: FastifyRequest): boolean {
  if (req.headers.authorization !== undefined) return true
  if (typeof (req.query as Record<string, unknown> | undefined)?.api_key === 'string') return true
  const body = req.body as Record<string, unknown> | null | undefined
  return body != null && typeof body === 'object' && typeof body.api_key === 'string'
}

/**
 * SearXNG's parameters as one map of text: the query string, and for POST the form or JSON body
 * over it (SearXNG merges them the same way). A parameter sent twice counts once, first value.
 */
function inputOf(req: FastifyRequest): Record<string, string> {
  // No prototype: a name the client did not send reads as undefined, even `constructor`.
  const input: Record<string, string> = Object.create(null)
  for (const [name, value] of Object.entries((req.query ?? {}) as Record<string, unknown>)) {
    const first = Array.isArray(value) ? value[0] : value
    if (typeof first === 'string') input[name] = first
  }
  if (req.method === 'GET' || req.body == null) return input
  if (typeof req.body !== 'object' || Array.isArray(req.body)) throw new ApiError('invalid_request', 'body must be a form or a JSON object')
  for (const [name, value] of Object.entries(req.body as Record<string, unknown>)) {
    if (value === null || value === undefined) continue
    if (typeof value === 'string') input[name] = value
    else if (typeof value === 'number' || typeof value === 'boolean') input[name] = String(value)
    else if (Array.isArray(value) && value.every((v) => typeof v === 'string')) input[name] = value.join(',')
    else throw new ApiError('invalid_request', `${name.slice(0, 64)} must be text`)
  }
  return input
}

/** In this scope only: form bodies, and a JSON content type with no body (LangChain's JS tool sends that). */
function bodyParsers(scope: FastifyInstance) {
  scope.removeContentTypeParser('application/json')
  scope.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => {
    const text = String(body)
    if (text.trim() === '') return done(null, {})
    try {
      done(null, withoutPrototypes(JSON.parse(text)))
    } catch {
      done(new ApiError('invalid_request', 'body is not valid JSON'), undefined)
    }
  })
  scope.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, body, done) => {
    const form: Record<string, string> = {}
    for (const [name, value] of new URLSearchParams(String(body))) if (!(name in form)) form[name] = value
    done(null, form)
  })
}

/**
 * SearXNG's search API at <base>/compat/searxng: GET or POST /search (and the instance root,
 * where LangChain's Python wrapper sends it) with format=json. Billed as /v1/search and the
 * news, images and videos verticals; with TRAWL_SEARXNG_KEYLESS=true a call without a key is
 * answered for nobody's account, limited per address. Errors keep Trawl's envelope and statuses
 * (SearXNG clients only look at the status). docs/compat-searxng.md.
 */
export function searxngRoutes(app: FastifyInstance, deps: AppDeps, opts: SearxngOptions = {}) {
  const keyless = deps.config.searxngKeyless
  const limiter = keyless ? (opts.keylessLimiter ?? createKeylessLimiter(deps.redis)) : null

  app.register(
    async (scope) => {
      bodyParsers(scope)
      if (keyless) {
        // A key, when one is sent, is checked and rate limited exactly as the app does it; without one the call is keyless.
        scope.addHook('preHandler', async (req) => {
          if (!sendsKey(req)) return
          req.auth = await deps.keys.resolve(keyFromRequest(req, { from: { bodyField: 'api_key' } }))
          await deps.limiter.consume(req.auth.keyId, req.auth.rps)
        })
      }

      const handler = async (req: FastifyRequest, reply: FastifyReply) => {
        const request = readSearxng(inputOf(req))
        const anonymous = keyless && !sendsKey(req)
        const outcome = await searxngSearch(
          deps,
          anonymous
            ? { auth: NO_KEY, billing: FREE, maxAge: KEYLESS_MAX_AGE_S, beforeLookup: () => limiter!.consume(clientKey(req.ip)) }
            : { auth: req.auth, billing: REALTIME },
          request,
          req.id,
        )
        return sendBilledJson(req, reply, JSON.stringify(outcome.body), outcome, deps.usdPerCredit)
      }

      const config = keyless ? { billed: true } : { auth: 'key' as const, billed: true, keyFrom: { bodyField: 'api_key' } }
      const description = [
        `SearXNG's search API (format=json) over Trawl's engines: categories general (web search), news, images and videos; engines named by their SearXNG names (${describeEngines({ primary: null, last: ',' })}), others listed in unresponsive_engines. Billed as /v1/search or the vertical (1 credit per page, free when empty or when every provider failed).`,
        'POST takes a form or JSON body and reads the query string too. The same answers at <base>/compat/searxng itself.',
        keyless
          ? 'This server answers without a key too (TRAWL_SEARXNG_KEYLESS): not billed, limited per client address; a key, when sent, is billed as usual.'
          : 'Key: Authorization: Bearer, or api_key (query string on GET, form or JSON field on POST).',
      ].join(' ')
      const common = {
        tags: ['compat-searxng'],
        description,
        response: { 200: SearxngResponse, ...errorResponses },
        ...(keyless && { security: [{}, { apiKey: [] as string[] }] as Record<string, string[]>[] }),
      }
      const get = { ...common, summary: 'SearXNG-compatible search', querystring: SearxngParams }
      const post = {
        ...common,
        summary: 'SearXNG-compatible search (form)',
        body: SearxngParams,
        consumes: ['application/x-www-form-urlencoded', 'application/json'],
      }

      scope.get('/search', { config, schema: { ...get, operationId: 'searxngSearchGet' } }, handler)
      scope.post('/search', { config, schema: { ...post, operationId: 'searxngSearch' } }, handler)
      // The instance root: LangChain's SearxSearchWrapper sends its query to the host it is given.
      scope.route({ method: 'GET', url: '/', prefixTrailingSlash: 'no-slash', config, schema: { ...get, hide: true }, handler })
      scope.route({ method: 'POST', url: '/', prefixTrailingSlash: 'no-slash', config, schema: { ...post, hide: true }, handler })
    },
    { prefix: SEARXNG_PREFIX },
  )
}
