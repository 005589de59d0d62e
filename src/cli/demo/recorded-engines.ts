import { existsSync, readFileSync } from 'node:fs'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { gunzipSync } from 'node:zlib'
import type { VerticalName } from '../../features/search/verticals/vertical.specs.ts'
import { srcFile } from '../../paths.ts'

/**
 * The engines of `trawl demo`: a loopback HTTP server answering engine requests with result pages
 * recorded from the real engines (fixtures/serp/, sources in fixtures/serp/SOURCES.md), whatever
 * the query. TRAWL_UPSTREAM_HOSTS sends every engine host here; X-Forwarded-Host names the one meant.
 */

/** Web search, or one of the verticals (`/v1/<name>`). */
export type Endpoint = 'search' | VerticalName

/** One recorded page, chosen by engine host, path and (for verticals sharing a path) query parameters. */
export interface RecordedPage {
  /** The provider whose requests it answers (registry.ts), and the endpoints it answers them for. */
  engine: string
  serves: readonly Endpoint[]
  /** `*.example.org`: any host under example.org. */
  host: string
  path: string
  /** Parameters the request must carry with these values; null: must not carry at all. */
  query?: Record<string, string | null>
  /** Under fixtures/serp/, by its original name (large pages are kept as `<name>.gz`). */
  file: string
}

/**
 * Only real pages, as the engines served them (fixtures/serp/SOURCES.md): none of the `*.constructed.*`
 * files, which were written by hand for tests. First match wins: the verticals that share Google's
 * /search path come before its web page, which answers only a request naming no other vertical.
 */
export const RECORDED_PAGES: RecordedPage[] = [
  {
    engine: 'google',
    serves: ['images'],
    host: 'www.google.com',
    path: '/search',
    query: { tbm: 'isch' },
    file: 'google/images/aql-green-capital-energy-basic.html',
  },
  {
    engine: 'google',
    serves: ['videos'],
    host: 'www.google.com',
    path: '/search',
    query: { tbm: 'vid' },
    file: 'google/videos/aql-atalanta-bergamasca-calcio-basic.html',
  },
  // /v1/places asks the same Maps search endpoint as /v1/maps (google-places.request.ts).
  {
    engine: 'google',
    serves: ['maps', 'places'],
    host: 'www.google.com',
    path: '/search',
    query: { tbm: 'map' },
    file: 'google/maps/gosom-search-coffee.json',
  },
  {
    engine: 'google',
    serves: ['search'],
    host: 'www.google.com',
    path: '/search',
    query: { tbm: null, udm: null },
    file: 'google/web-desktop/zlurad-coffee.html',
  },
  // No feature-phone page was recorded: the no-JavaScript page, which its parser reads too, stands in.
  { engine: 'google', serves: ['search'], host: 'www.google.com', path: '/wml/search', file: 'google/web-nojs/zlurad-coffee-nojs.html' },
  { engine: 'bing', serves: ['search'], host: 'www.bing.com', path: '/search', file: 'bing/web/zlurad-coffee-nojs.html' },
  // The whole /images/search page stands in for the grid fragment (/images/async) Trawl asks for: it holds the same tiles.
  { engine: 'bing', serves: ['images'], host: 'www.bing.com', path: '/images/async', file: 'bing/images/aql-rpg-title-screen.html' },
  { engine: 'duckduckgo', serves: ['search'], host: 'html.duckduckgo.com', path: '/html/', file: 'duckduckgo/html/ddgcli-rust-programming-2026.body.html' },
  { engine: 'duckduckgo', serves: ['search'], host: 'lite.duckduckgo.com', path: '/lite/', file: 'duckduckgo/lite/ddgcli-rust-programming-2026.body.html' },
  { engine: 'brave', serves: ['search'], host: 'search.brave.com', path: '/search', file: 'brave/web/wsmcp-javascript-tutorial-2026.html' },
  { engine: 'mojeek', serves: ['search'], host: 'www.mojeek.com', path: '/search', file: 'mojeek/web/wsmcp-javascript-tutorial-2026.html' },
  // Startpage's search form code (`sc`) is read from its home page; the results page carries the same form, so it answers both.
  { engine: 'startpage', serves: ['search'], host: 'www.startpage.com', path: '/', file: 'startpage/web/wsmcp-javascript-tutorial-http-2026.html' },
  { engine: 'startpage', serves: ['search'], host: 'www.startpage.com', path: '/sp/search', file: 'startpage/web/wsmcp-javascript-tutorial-http-2026.html' },
  // A MediaWiki search answer (generator=search) as the Wikipedia app recorded it: titles and links, no snippets.
  // English, but it answers every language's host, as every page here answers whatever the query.
  {
    engine: 'wikipedia',
    serves: ['search'],
    host: '*.wikipedia.org',
    path: '/w/api.php',
    query: { action: 'query' },
    file: 'wikipedia/api/android-full-text-search-generator.json',
  },
]

/** Whether `url` is what `page` answers: its path, and each of its parameters present with that value or absent. */
const matches = (page: RecordedPage, host: string, url: URL) =>
  (page.host.startsWith('*.') ? host.endsWith(page.host.slice(1)) : page.host === host) &&
  page.path === url.pathname &&
  Object.entries(page.query ?? {}).every(([k, v]) => url.searchParams.get(k) === v)

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
    const found = bodies.find(({ page }) => matches(page, host, url))
    // The request body (DuckDuckGo's form) is not needed: the answer is the same page whatever was asked.
    req.resume()
    // The demo refuses what it has not recorded before an engine asks (demo.ts); anything else is a 404.
    if (!found) {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end(`trawl demo: no recorded page for ${host}${url.pathname}`)
      return
    }
    const type = found.page.file.endsWith('.json') ? 'application/json' : 'text/html; charset=utf-8'
    res.writeHead(200, { 'content-type': type }).end(found.body)
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
