import { createHmac, timingSafeEqual } from 'node:crypto'
import { once } from 'node:events'
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Webhook } from 'standardwebhooks'

export interface ReceivedWebhook {
  path: string
  headers: IncomingHttpHeaders
  body: string
  /** Local receive time, ms. */
  at: number
}

/** Answers the nth request (0-based); may delay, fail, redirect or drop the connection. */
export type WebhookAnswer = (n: number, res: ServerResponse, hit: ReceivedWebhook) => unknown

/** A loopback webhook receiver that records every request; `answer` decides each reply (default 200). */
export async function startReceiver(answer: WebhookAnswer = (_n, res) => res.writeHead(200).end('ok')) {
  const hits: ReceivedWebhook[] = []
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const hit = { path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() }
      hits.push(hit)
      void answer(hits.length - 1, res, hit)
    })
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    hits,
    close: () => {
      server.closeAllConnections()
      return new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}

/**
 * What a receiver following docs/sdk.md "Webhooks" does: recompute `v1=` hex HMAC over `timestamp.body` with
 * the secret and compare in constant time.
 */
export function verifyTrawlSignature(secret: string, hit: ReceivedWebhook): boolean {
  const timestamp = String(hit.headers['x-trawl-timestamp'] ?? '')
  const expected = Buffer.from(`v1=${createHmac('sha256', secret).update(`${timestamp}.${hit.body}`).digest('hex')}`)
  const given = Buffer.from(String(hit.headers['x-trawl-signature'] ?? ''))
  return given.length === expected.length && timingSafeEqual(given, expected)
}

/** What a receiver using the Standard Webhooks library does with the same secret string. */
export function verifyStandardSignature(secret: string, hit: ReceivedWebhook): boolean {
  try {
    new Webhook(secret).verify(hit.body, hit.headers as Record<string, string>)
    return true
  } catch {
    return false
  }
}

export async function waitFor<T>(check: () => Promise<T | undefined | null | false> | T | undefined | null | false, timeoutMs = 10_000): Promise<T> {
  const until = Date.now() + timeoutMs
  for (;;) {
    const value = await check()
    if (value) return value
    if (Date.now() > until) throw new Error('timed out waiting')
    await new Promise((r) => setTimeout(r, 20))
  }
}
