import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

import { readFixture } from './fixtures.ts'

/** A saved page under fixtures/ (e.g. `serp/google/web-desktop/x.html`). */
export const fixture = readFixture

export interface SeenRequest {
  host: string | undefined
  url: string
  headers: IncomingMessage['headers']
}

export interface FakeUpstream {
  url: string
  seen: SeenRequest[]
  /** Replace how the next requests are answered. */
  handle(fn: (req: IncomingMessage, res: ServerResponse) => void): void
  close(): Promise<void>
}

/** A real HTTP server on 127.0.0.1 that answers like an engine, from saved pages. */
export async function fakeUpstream(initial: (req: IncomingMessage, res: ServerResponse) => void): Promise<FakeUpstream> {
  let handler = initial
  const seen: SeenRequest[] = []
  const server: Server = createServer((req, res) => {
    seen.push({ host: req.headers['x-forwarded-host'] as string | undefined, url: req.url ?? '', headers: req.headers })
    handler(req, res)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    handle: (fn) => {
      handler = fn
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

export const htmlPage =
  (body: Buffer | string, status = 200) =>
  (_req: IncomingMessage, res: ServerResponse) => {
    res.writeHead(status, { 'content-type': 'text/html; charset=utf-8' }).end(body)
  }
