import type { IncomingMessage, ServerResponse } from 'node:http'

/**
 * A Google page past the last result, as both web-search routes read it (the feature-phone page
 * and the plain page): no result, the "did not match" line.
 */
export const GOOGLE_NO_MORE_RESULTS = '<html><body><div id="search"><div id="rso"></div><p>Your search did not match any documents.</p></div></body></html>'

/**
 * A fake Google that answers its first result page (no `start`, or `start=0`) with `body` and
 * every later page with GOOGLE_NO_MORE_RESULTS. Google answers 10 results a page, so a request
 * for more is several pages (src/engines/search-pages.ts); a saved page that already holds 95 results
 * stands for all of them, and the later pages cost the test nothing.
 */
export function googleFirstPageOnly(body: Buffer | string) {
  return (req: IncomingMessage, res: ServerResponse) => {
    const start = Number(new URL(req.url ?? '/', 'http://x').searchParams.get('start') ?? 0)
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(start > 0 ? GOOGLE_NO_MORE_RESULTS : body)
  }
}
