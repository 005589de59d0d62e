import { existsSync, readFileSync } from 'node:fs'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { gunzipSync } from 'node:zlib'
import { srcFile } from '../../paths.ts'

/**
 * The engines of `trawl demo`: a loopback HTTP server answering engine requests with result pages
 * recorded from the real engines (fixtures/serp/, sources in fixtures/serp/SOURCES.md), whatever
 * the query. TRAWL_UPSTREAM_HOSTS sends every engine host here; X-Forwarded-Host names the one meant.
 */

/** One recorded page, chosen by engine host, path and (for verticals sharing a path) query parameters. */
export interface RecordedPage {
  host: string
  path: string
  query?: Record<string, string>
  /** Under fixtures/serp/, by its original name (large pages are kept as `<name>.gz`). */
  file: string
}

/** First match wins: the verticals that share Google's /search path come before its web page. */
export const RECORDED_PAGES: RecordedPage[] = [
  { host: 'www.google.com', path: '/search', query: { tbm: 'isch' }, file: 'google/images/aql-green-capital-energy-basic.html' },
  { host: 'www.google.com', path: '/search', query: { tbm: 'vid' }, file: 'google/videos/aql-atalanta-bergamasca-calcio-basic.html' },
  { host: 'www.google.com', path: '/search', file: 'google/web-desktop/zlurad-coffee.html' },
  // No feature-phone page was recorded: the no-JavaScript page, which its parser reads too, stands in.
  { host: 'www.google.com', path: '/wml/search', file: 'google/web-nojs/zlurad-coffee-nojs.html' },
  { host: 'www.bing.com', path: '/search', file: 'bing/web/zlurad-coffee-nojs.html' },
  { host: 'html.duckduckgo.com', path: '/html/', file: 'duckduckgo/html/ddgcli-rust-programming-2026.body.html' },
  { host: 'lite.duckduckgo.com', path: '/lite/', file: 'duckduckgo/lite/ddgcli-rust-programming-2026.body.html' },
  { host: 'search.brave.com', path: '/search', file: 'brave/web/wsmcp-javascript-tutorial-2026.html' },
  { host: 'www.mojeek.com', path: '/search', file: 'mojeek/web/wsmcp-javascript-tutorial-2026.html' },
]

function readRecorded(file: string): Buffer {
  const plain = srcFile(`../fixtures/serp/${file}`)
  return existsSync(plain) ? readFileSync(plain) : gunzipSync(readFileSync(srcFile(`../fixtures/serp/${file}.gz`)))
}

export interface RecordedEngines {
  /** Base URL for TRAWL_UPSTREAM_HOSTS (`*=<url>`). */
  url: string
  close(): Promise<void>
}

/** Starts the server on 127.0.0.1 at a free port; the pages are read once, here. */
export async function startRecordedEngines(pages: RecordedPage[] = RECORDED_PAGES): Promise<RecordedEngines> {
  const bodies = pages.map((page) => ({ page, body: readRecorded(page.file) }))
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const host = String(req.headers['x-forwarded-host'] ?? '')
    const url = new URL(req.url ?? '/', 'http://recorded.invalid')
    const found = bodies.find(
      ({ page }) => page.host === host && page.path === url.pathname && Object.entries(page.query ?? {}).every(([k, v]) => url.searchParams.get(k) === v),
    )
    // The request body (DuckDuckGo's form) is not needed: the answer is the same page whatever was asked.
    req.resume()
    if (!found) {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end(`trawl demo: no recorded page for ${host}${url.pathname}`)
      return
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(found.body)
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', resolve)
  })
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
