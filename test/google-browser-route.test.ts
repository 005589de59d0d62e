import type { IncomingMessage, ServerResponse } from 'node:http'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { CHROMIUM_PATH, skipWithoutChromium } from './support/browser.ts'
import { type FakeUpstream, fakeUpstream, fixture } from './support/fake-upstream.ts'
import { startTrawl, type Trawl } from './support/start-trawl.ts'

/**
 * Google's `browser` route: a fake Google that answers every client running no scripts with the
 * JavaScript page, and draws its results only when the page's script runs. Every request, the
 * browser's included, carries X-Forwarded-Host (TRAWL_UPSTREAM_HOSTS).
 */
const ENABLE_JS =
  '<!doctype html><html><head><meta http-equiv="refresh" content="0;url=/httpservice/retry/enablejs?sei=x"></head><body><noscript>Please click <a href="/httpservice/retry/enablejs?sei=x">here</a>.</noscript></body></html>'

/** The saved desktop result page's body, its scripts left out. */
function resultsBody(): string {
  const saved = fixture('serp/google/web-desktop/zlurad-coffee.html').toString('utf8')
  return (saved.match(/<body[^>]*>([\s\S]*)<\/body>/i)?.[1] ?? saved).replace(/<script\b[\s\S]*?<\/script>/gi, '')
}

/**
 * Google's JavaScript shell: a client that runs no scripts finds the enablejs refresh in a
 * <noscript>; the page's script fetches the results (a same-origin request) and draws them.
 */
const SHELL =
  '<!doctype html><html><head><title>coffee - Google Search</title>' +
  '<noscript><meta content="0;url=/httpservice/retry/enablejs?sei=x" http-equiv="refresh"></noscript></head>' +
  '<body><div id="app"></div><script>' +
  "fetch('/async/results' + location.search).then((r) => r.text()).then((html) => {" +
  "document.querySelector('noscript')?.remove(); document.getElementById('app').outerHTML = html; })" +
  '</script></body></html>'

/** The searches whose results a browser drew (only a page running its script asks for them). */
const browserVisits: string[] = []
/** Requests that reached the mapped upstream without the engine's host (X-Forwarded-Host): none may. */
const withoutHost: string[] = []
function answer(req: IncomingMessage, res: ServerResponse) {
  const html = (body: string) => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(body)
  if (req.headers['x-forwarded-host'] !== 'www.google.com') {
    withoutHost.push(req.url ?? '')
    return res.writeHead(404).end()
  }
  const url = new URL(req.url ?? '/', 'http://upstream.invalid')
  if (url.pathname === '/search' || url.pathname === '/wml/search') return html(SHELL)
  if (url.pathname === '/httpservice/retry/enablejs') return html(ENABLE_JS)
  if (url.pathname === '/async/results') {
    browserVisits.push(`/search${url.search}`)
    return html(resultsBody())
  }
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

describe.skipIf(skipWithoutChromium)('the browser route', () => {
  test('when the page needs scripts, the browser draws it and the desktop parser reads it: one request, billed once', async () => {
    const res = await search('q=coffee&engine=google')
    expect(res.status).toBe(200)
    const body = await res.json()
    expect(body.results.length).toBeGreaterThan(5)
    expect(body.meta.credits_used).toBe(1)
    const routes = body.meta.route.map((a: { route: string; outcome: string }) => [a.route, a.outcome])
    expect(routes).toEqual([
      ['wml', 'blocked'],
      ['web', 'blocked'],
      ['browser', 'ok'],
    ])
    expect(body.meta.route[0].reason).toMatch(/javascript/i)
    expect(browserVisits).toHaveLength(1)
    expect(browserVisits[0]).toMatch(/^\/search\?q=coffee&/)
    // The browser's navigation and the page's own request carried the engine's host, as the HTTP routes do.
    expect(withoutHost).toEqual([])
  })

  test('a request the browser route does not take (device=mobile) is not drawn; the 503 says why per route', async () => {
    browserVisits.length = 0
    const res = await search('q=espresso&engine=google&device=mobile')
    expect(res.status).toBe(503)
    const body = await res.json()
    expect(body.error.message).toMatch(/^google refused the request: .*web: .*javascript/i)
    expect(browserVisits).toHaveLength(0)
  })
})
