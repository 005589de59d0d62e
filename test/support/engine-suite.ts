import type { IncomingMessage, ServerResponse } from 'node:http'
import { afterAll, beforeAll, beforeEach } from 'vitest'
import { type FakeUpstream, fakeUpstream } from './fake-upstream.ts'
import { startTrawl, type Trawl } from './start-trawl.ts'

type Handler = (req: IncomingMessage, res: ServerResponse) => void

export interface EngineSuite {
  trawl: Trawl
  upstream: FakeUpstream
  account: { id: string; key: string }
  get(path: string, query: string): Promise<Response>
  post(path: string, body: unknown): Promise<Response>
  /** The last engine request, with the engine host it was meant for. */
  lastUpstreamUrl(): URL
}

/**
 * The usual setup of an engine test file: a fake upstream answering with `handler` (restored
 * before each test), the real server pointed at it, and an enterprise account with `credits`.
 */
export function engineSuite(handler: Handler, opts: { credits?: number } = {}): EngineSuite {
  const suite = {} as EngineSuite
  beforeAll(async () => {
    suite.upstream = await fakeUpstream(handler)
    suite.trawl = await startTrawl({ TRAWL_UPSTREAM_HOSTS: `*=${suite.upstream.url}`, TRAWL_UPSTREAM_TIMEOUT_MS: '800' })
    suite.account = await suite.trawl.account({ plan: 'enterprise', rate_limit_rps: 1000, credits: opts.credits ?? 1000 })
  })
  afterAll(async () => {
    await suite.trawl.close()
    await suite.upstream.close()
  })
  beforeEach(() => {
    suite.upstream.handle(handler)
    suite.upstream.seen.length = 0
  })
  suite.get = (path, query) => fetch(`${suite.trawl.base}${path}?${query}`, { headers: { authorization: `Bearer ${suite.account.key}` } })
  suite.post = (path, body) =>
    fetch(`${suite.trawl.base}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${suite.account.key}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    })
  suite.lastUpstreamUrl = () => {
    const last = suite.upstream.seen.at(-1)!
    return new URL(last.url, `https://${last.host ?? 'www.google.com'}`)
  }
  return suite
}
