import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { safeFetch } from './safe-fetch.ts'

/**
 * One page fetched through safeFetch from a throwaway server on loopback, at start: the first
 * request of a process compiles undici's HTTP parser (WebAssembly) and the fetch path, about
 * 13 ms here, which a crawl's start page and robots.txt (the requests every other fetch of the
 * crawl waits for) or a search's first upstream request would otherwise pay.
 */
export async function warmUpFetch(): Promise<void> {
  const page = Buffer.from(`<!doctype html><title>warm</title><p>${'warm up '.repeat(200)}</p>`)
  const server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page))
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  try {
    const { port } = server.address() as AddressInfo
    // The server is this process's own, on loopback: the only fetch that may skip the address check.
    await safeFetch(`http://127.0.0.1:${port}/`, { allowPrivateNetwork: true, timeoutMs: 5_000 })
  } finally {
    server.closeAllConnections()
    await new Promise<void>((resolve) => server.close(() => resolve()))
  }
}
