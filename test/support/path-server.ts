import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

export type PathHandler = (req: IncomingMessage, res: ServerResponse) => void

/** A site on 127.0.0.1 answering each path (query ignored) by its handler, 404 otherwise. */
export async function pathServer(routes: Record<string, PathHandler>): Promise<{ base: string; close(): Promise<void> }> {
  const site = createServer((req, res) => {
    const route = routes[(req.url ?? '/').split('?')[0] ?? '/']
    if (route) route(req, res)
    else res.writeHead(404, { 'content-type': 'text/plain' }).end('not found')
  })
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve))
  return {
    base: `http://127.0.0.1:${(site.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        site.closeAllConnections()
        site.close(() => resolve())
      }),
  }
}
