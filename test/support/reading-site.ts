import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import { type AddressInfo, connect as netConnect, type Socket } from 'node:net'

import { readFixture } from './fixtures.ts'

/** The evaluation corpora (fixtures/corpora), read as real pages to serve. */
export const corpus = (rel: string) => readFixture(`corpora/${rel}`)
export const testPage = (name: string) => corpus(`readability-test-pages/test-pages/${name}/source.html`)

type Handler = (req: IncomingMessage, res: ServerResponse) => void

export interface LocalSite {
  url: string
  port: number
  /** Every request path the site answered, in arrival order. */
  seen: string[]
  /** Most requests that were in flight at once (see /hold). */
  maxInFlight: number
  close(): Promise<void>
}

const html =
  (body: Buffer | string, type = 'text/html; charset=utf-8', extra: Record<string, string> = {}): Handler =>
  (_req, res) => {
    res.writeHead(200, { 'content-type': type, ...extra }).end(body)
  }

/** A windows-1252 page: curly quotes (0x93/0x94) and é (0xe9) only decode right with the header's charset. */
const CP1252 = Buffer.concat([
  Buffer.from('<html><head><title>Caf\xe9 notes</title></head><body><article><h1>Caf\xe9 notes</h1><p>', 'latin1'),
  Buffer.from([0x93]),
  Buffer.from('Caf\xe9 au lait', 'latin1'),
  Buffer.from([0x94]),
  Buffer.from(
    ` is the house favourite. ${'The caf\xe9 serves it all day, every day, with fresh croissants and a smile. '.repeat(5)}</p></article></body></html>`,
    'latin1',
  ),
])

/** A Shift_JIS page declared only by <meta charset>. */
const SJIS = Buffer.concat([
  Buffer.from('<html><head><meta charset="Shift_JIS"><title>sjis</title></head><body><article><p>'),
  Buffer.from([0x93, 0xfa, 0x96, 0x7b, 0x8c, 0xea]), // 日本語
  Buffer.from(` ${'text '.repeat(80)}</p></article></body></html>`),
])

/**
 * A real HTTP server on 127.0.0.1 serving pages from the corpora and the awkward cases page reading
 * must survive: redirects, legacy charsets, a PDF, gzip, a 404, a page that never finishes, an
 * empty page and an image.
 */
export async function startLocalSite(): Promise<LocalSite> {
  const seen: string[] = []
  let inFlight = 0
  const site: LocalSite = { url: '', port: 0, seen, maxInFlight: 0, close: async () => {} }
  const routes: Record<string, Handler> = {
    '/article/ars': html(testPage('ars-1')),
    '/article/bbc': html(testPage('bbc-1')),
    '/article/images': html(testPage('keep-images')),
    '/article/wiki': html(testPage('wikipedia')),
    '/article/gzip': html(
      corpus('article-extraction-benchmark/html/08f793762792bd252c75fb57544cdf506ffcc04785136cb87503f02364b82b56.html.gz'),
      'text/html; charset=utf-8',
      { 'content-encoding': 'gzip' },
    ),
    '/redirect': (_req, res) => res.writeHead(302, { location: '/article/ars' }).end(),
    '/redirect-twice': (_req, res) => res.writeHead(301, { location: '/redirect' }).end(),
    '/cp1252': html(CP1252, 'text/html; charset=windows-1252'),
    '/sjis': html(SJIS, 'text/html'),
    '/doc.pdf': html(corpus('pdfs-pypdf/resources/crazyones.pdf'), 'application/pdf'),
    '/empty': html('<!DOCTYPE html><html><head><title></title></head><body><div></div></body></html>'),
    // A site's own "not found" page, with something to read on it.
    '/gone': (_req, res) =>
      res
        .writeHead(404, { 'content-type': 'text/html; charset=utf-8' })
        .end(
          '<!DOCTYPE html><html><head><title>Page not found</title></head><body><main><h1>Page not found</h1><p>The article you asked for was moved or deleted. Try the search box above, or start again from the front page, where the latest stories are listed.</p></main></body></html>',
        ),
    '/server-error': (_req, res) => res.writeHead(500, { 'content-type': 'text/plain' }).end('internal error'),
    '/image.png': html(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d]), 'image/png'),
    // Headers and a first chunk, then nothing: only a timeout ends it.
    '/slow': (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
      res.write('<html><body><p>still loading')
    },
    // Held for a moment so concurrent fetches overlap and the parallelism can be measured.
    '/hold': (_req, res) => {
      setTimeout(() => html(testPage('bbc-1'))(_req, res), 150)
    },
  }
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0]!
    seen.push(req.url ?? '/')
    inFlight++
    site.maxInFlight = Math.max(site.maxInFlight, inFlight)
    res.on('close', () => inFlight--)
    const route = routes[path]
    if (route) route(req, res)
    else res.writeHead(404, { 'content-type': 'text/html' }).end('<h1>Not found</h1>')
  })
  const port = await listen(server)
  site.url = `http://127.0.0.1:${port}`
  site.port = port
  site.close = () => closeServer(server)
  return site
}

export interface TunnelProxy {
  url: string
  /** CONNECT targets asked for, as host:port. */
  tunnels: string[]
  /** Paths the in-process stand-in for a public site answered. */
  publicSeen: string[]
  close(): Promise<void>
}

/**
 * An HTTP CONNECT proxy on 127.0.0.1 for the `country` exits. A tunnel to 127.0.0.1 is forwarded
 * there; a tunnel to any other address is answered in process by a stand-in "public site" whose
 * /hop redirects to `redirectTo`. Nothing ever leaves loopback: the proxy never dials a
 * non-loopback address.
 */
export async function startTunnelProxy(redirectTo: () => string): Promise<TunnelProxy> {
  const tunnels: string[] = []
  const publicSeen: string[] = []
  const publicSite = createServer((req, res) => {
    publicSeen.push(req.url ?? '/')
    if (req.url === '/hop') res.writeHead(302, { location: redirectTo() }).end()
    else res.writeHead(200, { 'content-type': 'text/html' }).end('<p>stand-in public page</p>')
  })
  const proxy = createServer((_req, res) => res.writeHead(405).end())
  const sockets = new Set<Socket>()
  proxy.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) => {
    const target = req.url ?? ''
    tunnels.push(target)
    sockets.add(client)
    client.on('close', () => sockets.delete(client))
    client.on('error', () => {})
    const m = /^127\.0\.0\.1:(\d+)$/.exec(target)
    if (m) {
      const up = netConnect(Number(m[1]), '127.0.0.1', () => {
        client.write('HTTP/1.1 200 Connection established\r\n\r\n')
        if (head.length) up.write(head)
        up.pipe(client).pipe(up)
      })
      up.on('error', () => client.destroy())
      sockets.add(up)
      up.on('close', () => sockets.delete(up))
      return
    }
    client.write('HTTP/1.1 200 Connection established\r\n\r\n')
    if (head.length) client.unshift(head)
    publicSite.emit('connection', client)
  })
  const port = await listen(proxy)
  return {
    url: `http://127.0.0.1:${port}`,
    tunnels,
    publicSeen,
    close: async () => {
      for (const s of sockets) s.destroy()
      publicSite.closeAllConnections()
      await closeServer(proxy)
    },
  }
}

async function listen(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return (server.address() as AddressInfo).port
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.closeAllConnections()
    server.close(() => resolve())
  })
}
