import type { FastifyInstance, FastifyRequest } from 'fastify'
import { ApiError } from '../../errors.ts'

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS'])

/**
 * CSRF protection for the dashboard API (docs/dashboard.md "Sessions and CSRF"), on top of the
 * SameSite=Strict session cookie. Every state-changing request under `apiPrefix` (login included)
 * must come from the dashboard's own origin:
 * - with an `Origin` header (browsers send it on every POST, PUT, PATCH and DELETE), it must be the
 *   app's origin (TRAWL_APP_URL) or the origin the request was addressed to (same-origin use behind
 *   any host name);
 * - without one, a `Sec-Fetch-Site` header other than same-origin/none is refused;
 * - with neither, the caller is not a browser (curl, scripts), which cannot be ridden by another
 *   site, and is let through; it still needs the session cookie.
 * This is the check Go's net/http CrossOriginProtection and Rails' origin check make; no token to
 * thread through forms, and nothing for the app to fetch first.
 */
export function registerCsrfGuard(app: FastifyInstance, apiPrefix: string, appOrigin: string) {
  app.addHook('onRequest', async (req) => {
    if (SAFE_METHODS.has(req.method)) return
    // The path the router matched, not the raw one: `/app/%61pi/...` is routed as `/app/api/...`.
    const path = req.routeOptions.url ?? decodedPath(req.url)
    if (path !== apiPrefix && !path.startsWith(`${apiPrefix}/`)) return
    refuseCrossOrigin(req, appOrigin)
  })
}

export function refuseCrossOrigin(req: FastifyRequest, appOrigin: string) {
  const origin = req.headers.origin
  if (origin !== undefined) {
    if (origin === appOrigin || origin === ownOrigin(req)) return
    throw new ApiError('forbidden', `cross-origin request refused: the dashboard API accepts changes only from ${appOrigin}`)
  }
  const site = req.headers['sec-fetch-site']
  if (site !== undefined && site !== 'same-origin' && site !== 'none') {
    throw new ApiError('forbidden', `cross-site request refused (Sec-Fetch-Site: ${site}): the dashboard API accepts changes only from ${appOrigin}`)
  }
}

/** The request's path percent-decoded (an undecodable one as sent: the router refuses it anyway). */
function decodedPath(url: string): string {
  const path = url.split('?')[0] ?? ''
  try {
    return decodeURIComponent(path)
  } catch {
    return path
  }
}

/** The origin this request was sent to, as the browser saw it. */
function ownOrigin(req: FastifyRequest): string | null {
  const host = req.headers.host
  return host ? `${req.protocol}://${host}` : null
}
