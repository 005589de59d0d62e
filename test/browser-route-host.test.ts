import type { IncomingMessage, ServerResponse } from 'node:http'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { CHROMIUM_PATH, skipWithoutChromium } from './support/browser.ts'
import { type FakeUpstream, fakeUpstream, fixture } from './support/fake-upstream.ts'
import { startTrawl, type Trawl } from './support/start-trawl.ts'

/**
 * The `browser` route under TRAWL_UPSTREAM_HOSTS carries the engine's host like the HTTP routes:
 * the browser's navigation to the mapped upstream, and the page's own requests to it, come with
 * `X-Forwarded-Host: www.google.com`. The fake upstream serves several hosts at one address, as a
 * private mirror or the recorded demo engines do: it answers Google's pages only when that header
 * names Google, and a 404 otherwise.
 *
 * Its /search is Google's JavaScript shell: a client that runs no scripts finds the enablejs
 * refresh in a <noscript> (the `wml` and `web` routes: blocked, "javascript"), and the page's script
 * fetches the results from the same upstream (a same-origin request, which must carry the header
 * too) and draws them.
 */

/** The saved desktop result page's body, its scripts left out. */
function resultsBody(): string {
  const saved = fixture('serp/google/web-desktop/zlurad-coffee.html').toString('utf8')
  return (saved.match(/<body[^>]*>([\s\S]*)<\/body>/i)?.[1] ?? saved).replace(/<script\b[\s\S]*?<\/script>/gi, '')
}

const SHELL =
  '<!doctype html><html><head><title>coffee - Google Search</title>' +
  '<noscript><meta content="0;url=/httpservice/retry/enablejs?sei=x" http-equiv="refresh"></noscript></head>' +
  '<body><div id="app"></div><script>' +
  "fetch('/async/results' + location.search).then((r) => (r.ok ? r.text() : Promise.reject(new Error(String(r.status))))).then((html) => {" +
  "document.querySelector('noscript')?.remove(); document.getElementById('app').outerHTML = html; })" +
  '</script></body></html>'

/** Every request the upstream got: its path and the X-Forwarded-Host it came with ('-' without). */
const seen: string[] = []

function answer(req: IncomingMessage, res: ServerResponse) {
  const host = req.headers['x-forwarded-host']
  const path = new URL(req.url ?? '/', 'http://upstream.invalid').pathname
  seen.push(`${path} ${host ?? '-'}`)
  if (host !== 'www.google.com') return res.writeHead(404, { 'content-type': 'text/plain' }).end(`no engine at ${host ?? 'this address'}`)
  const html = (body: string) => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(body)
  if (path === '/search' || path === '/wml/search') return html(SHELL)
  if (path === '/async/results') return html(resultsBody())
  // Where the <noscript> refresh leads a client that follows it.
  if (path === '/httpservice/retry/enablejs') return html('<!doctype html><html><body>Please enable JavaScript to continue using Google Search.</body></html>')
  res.writeHead(404).end()
}

let upstream: FakeUpstream
let trawl: Trawl
let key: string
beforeAll(async () => {
  upstream = await fakeUpstream(answer)
  // The fake is on loopback: the browser's guard lets it through only with private addresses allowed.
  trawl = await startTrawl({ TRAWL_UPSTREAM_HOSTS: `www.google.com=${upstream.url}`, TRAWL_ALLOW_PRIVATE_NETWORK: 'true', TRAWL_BROWSER: CHROMIUM_PATH })
  key = (await trawl.account({ plan: 'enterprise', rate_limit_rps: 1000, credits: 100 })).key
})
afterAll(async () => {
  await trawl?.close()
  await upstream?.close()
})

const search = (query: string) => fetch(`${trawl.base}/v1/search?${query}`, { headers: { authorization: `Bearer ${key}` } })

describe.skipIf(skipWithoutChromium)('the browser route and the engine host', () => {
  test("the browser's navigation and the page's requests to the mapped upstream carry X-Forwarded-Host: the upstream answers as Google", async () => {
    const res = await search('q=coffee&engine=google')
    const body = await res.json()
    expect(res.status, JSON.stringify(body)).toBe(200)
    expect(body.results.length).toBeGreaterThan(5)
    expect(body.meta.credits_used).toBe(1)
    expect(body.meta.route.map((a: { route: string; outcome: string }) => [a.route, a.outcome])).toEqual([
      ['wml', 'blocked'],
      ['web', 'blocked'],
      ['browser', 'ok'],
    ])
    // The results came from the page's own request, which only the browser makes, and nothing
    // reached the upstream without the engine's host.
    expect(seen.filter((s) => s.startsWith('/async/results'))).toEqual(['/async/results www.google.com'])
    expect(seen.filter((s) => !s.endsWith(' www.google.com'))).toEqual([])
  })
})
