import type { IncomingMessage, ServerResponse } from 'node:http'

/** One canned upstream answer, chosen by the engine host asked for and the request path. */
export interface SerpRoute {
  host: string
  path: string | RegExp
  /** Query parameters the request must carry (e.g. { tbm: 'isch' }), to tell verticals on one path apart. */
  query?: Record<string, string>
  body: Buffer | string
  status?: number
  type?: string
  /** A redirect target, sent as the Location header. */
  location?: string
}

/**
 * A fake-upstream handler that answers like several engine hosts at once: TRAWL_UPSTREAM_HOSTS
 * sends every host to one test server, and X-Forwarded-Host says which one was meant. Requests
 * nothing matches get a 404, so a wrong URL fails the test instead of passing on a default page.
 */
export function serpRouter(routes: SerpRoute[]) {
  return (req: IncomingMessage, res: ServerResponse) => {
    const host = String(req.headers['x-forwarded-host'] ?? '')
    const url = new URL(req.url ?? '/', 'http://x')
    const path = url.pathname
    const route = routes.find(
      (r) =>
        r.host === host &&
        (typeof r.path === 'string' ? r.path === path : r.path.test(path)) &&
        Object.entries(r.query ?? {}).every(([k, v]) => url.searchParams.get(k) === v),
    )
    if (!route) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end(`no fake answer for ${host}${path}`)
      return
    }
    const headers: Record<string, string> = { 'content-type': route.type ?? 'text/html; charset=utf-8' }
    if (route.location) headers.location = route.location
    res.writeHead(route.status ?? 200, headers).end(route.body)
  }
}
