import type { IncomingMessage, ServerResponse } from 'node:http'
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest'
import { type FakeUpstream, fakeUpstream, fixture } from './support/fake-upstream.ts'
import { startTrawl, type Trawl } from './support/start-trawl.ts'

/**
 * Google web search through the HTTP API against a fake Google that answers as the live site does
 * since August 2026: the plain `/search` page is the JavaScript page (results need scripts) for a
 * client that runs none; `/wml/search` lists 10 results a page to a feature-phone User-Agent
 * (whatever `num` says; none when `lr` is set) and the JavaScript page to any other.
 */

// The JavaScript page, as clients that run no scripts print it: a <noscript> refresh to the
// enablejs endpoint, a retry link and Google's help links, no result (its check script left out).
const ENABLEJS_PAGE = `<!doctype html><html lang="en"><head><title>Google Search</title><script nonce="x">(function(){var z=1;})();</script></head><body>
<noscript><meta content="0;url=/httpservice/retry/enablejs?sei=q0qhab" http-equiv="refresh"></noscript>
<div>Please click <a href="/httpservice/retry/enablejs?sei=q0qhab">here</a> if you are not redirected within a few seconds.</div>
<div>If you're having trouble accessing Google Search, please <a href="/search?q=x&amp;emsg=SG_REL&amp;sei=q0qhab">click here</a>, or send <a href="https://support.google.com/websearch">feedback</a>.</div>
</body></html>`

/** One feature-phone page of 10 results from `start`, in the markup of fixtures/serp/google/web-wml. */
function wmlPage(q: string, start: number): string {
  const slug = q.replace(/\W+/g, '-')
  const results = Array.from({ length: 10 }, (_, i) => {
    const n = start + i + 1
    const target = `https://example.com/${slug}/${n}?from=wml&n=${n}`
    return `<div class="zMzFAb"><div><div class="egMi0 kCrYT"><a class="fuLhoc ZWRArf" href="/url?q=${encodeURIComponent(target)}&amp;sa=U&amp;ved=2ahUKE${n}&amp;usg=AOvVaw${n}"><span class="CVA68e qXLe6d fuLhoc ZWRArf">${q} result ${n}</span> <span class="qXLe6d dXDvrc"><span class="fYyStc">example.com › ${slug} › ${n}</span></span></a></div><div class="taTFJ"><div><div><span class="qXLe6d FrIlee"><span class="fYyStc">What result ${n} says about ${q}, long enough to be a snippet.</span></span></div></div></div></div></div>`
  })
  const related = `<div class="zMzFAb"><div><table class="HExoMb"><tr><td><a class="ZWRArf" href="/search?q=${encodeURIComponent(`${q} at ${start}`)}">${q} at ${start}</a></td></tr></table></div></div>`
  return `<?xml version="1.0" encoding="UTF-8"?>\n<html><head><title>${q} - Google Search</title></head><body><form action="/wml/search"><input name="q" value="${q}"/></form><div>${results.join('')}${related}</div></body></html>`
}

const WML_NO_RESULTS = `<?xml version="1.0" encoding="UTF-8"?>\n<html><body><form action="/wml/search"><input name="q"/></form><div>Your search did not match any documents.</div></body></html>`

type WmlMode = 'list' | 'captcha'
type WebMode = 'javascript' | 'javascript-redirect' | 'results'
let wmlMode: WmlMode = 'list'
let webMode: WebMode = 'javascript'
/** Queries whose /wml/search answers wait until this many of their pages are being asked at once. */
const holdUntil = new Map<string, number>()
const held = new Map<string, (() => void)[]>()
let mostAtOnce = 0

function google(req: IncomingMessage, res: ServerResponse) {
  const url = new URL(req.url ?? '/', 'https://www.google.com')
  const html = (body: string | Buffer, status = 200) => res.writeHead(status, { 'content-type': 'text/html; charset=utf-8' }).end(body)
  if (req.headers['x-forwarded-host'] !== 'www.google.com') return res.writeHead(404).end()
  if (url.pathname === '/search') {
    if (webMode === 'results') return html(fixture('serp/google/web-desktop/zlurad-coffee.html'))
    if (webMode === 'javascript-redirect') return res.writeHead(302, { location: '/httpservice/retry/enablejs?sei=q0qhab' }).end()
    return html(ENABLEJS_PAGE)
  }
  if (url.pathname !== '/wml/search') return res.writeHead(404).end()
  if (wmlMode === 'captcha') return res.writeHead(302, { location: `https://www.google.com/sorry/index?continue=${encodeURIComponent(url.href)}` }).end()
  if (!/Profile\/MIDP|^Nokia/.test(String(req.headers['user-agent']))) return html(ENABLEJS_PAGE)
  const q = url.searchParams.get('q') ?? ''
  const answer = () => {
    if (url.searchParams.get('lr')) return html(WML_NO_RESULTS)
    if (q === 'coffee' && !url.searchParams.has('start')) return html(fixture('serp/google/web-wml/constructed-coffee.html'))
    html(wmlPage(q, Number(url.searchParams.get('start') ?? 0)))
  }
  const wanted = holdUntil.get(q)
  if (!wanted) return answer()
  // Answer only once every page of the search is being asked at the same time: pages asked one
  // after another would never get there (the fallback timer then lets the test fail on its count).
  const waiting = [...(held.get(q) ?? []), answer]
  held.set(q, waiting)
  mostAtOnce = Math.max(mostAtOnce, waiting.length)
  const release = () => {
    for (const a of held.get(q) ?? []) a()
    held.delete(q)
  }
  if (waiting.length >= wanted) release()
  else setTimeout(release, 2000).unref()
}

let trawl: Trawl
let upstream: FakeUpstream
let key: string
beforeAll(async () => {
  upstream = await fakeUpstream(google)
  // A cool-down of 1 ms: a route blocked in one test is asked again in the next. No browser: the
  // `browser` route (google-browser-route.test.ts) is left out of these walks.
  trawl = await startTrawl({
    TRAWL_UPSTREAM_HOSTS: `*=${upstream.url}`,
    TRAWL_UPSTREAM_TIMEOUT_MS: '5000',
    TRAWL_ENGINE_COOLDOWN_MS: '1',
    TRAWL_BROWSER: 'off',
  })
  key = (await trawl.account({ plan: 'enterprise', rate_limit_rps: 1000, credits: 1000 })).key
})
afterAll(async () => {
  await trawl.close()
  await upstream.close()
})
beforeEach(() => {
  wmlMode = 'list'
  webMode = 'javascript'
  holdUntil.clear()
  mostAtOnce = 0
  upstream.seen.length = 0
})

const get = (path: string) => fetch(`${trawl.base}${path}`, { headers: { authorization: `Bearer ${key}` } })
const balance = async () => ((await (await get('/v1/account')).json()) as { balance: number }).balance
const asked = () => upstream.seen.map((s) => new URL(s.url, 'https://www.google.com'))
type Attempt = { engine: string; route?: string; outcome: string; reason?: string; status?: number }

describe('Google web search on today’s Google', () => {
  test('a search answers from the feature-phone route (wml); the plain page is not asked', async () => {
    const before = await balance()
    const res = await get('/v1/search?q=coffee&engine=google')
    expect(res.status).toBe(200)
    const body = await res.json()
    expect(body.results).toHaveLength(10)
    expect(body.results[0]).toMatchObject({
      position: 1,
      title: 'Coffee - Wikipedia',
      link: 'https://en.wikipedia.org/wiki/Coffee',
      displayed_link: 'en.wikipedia.org › wiki › Coffee',
    })
    expect(body.results[2].link).toBe('https://www.ncausa.org/About-Coffee?ref=google&lang=en')
    expect(body.related_searches.map((r: { query: string }) => r.query)).toContain('coffee & tea')
    expect(body.meta.parse_quality).toBe('ok')
    expect(body.meta.route).toEqual([expect.objectContaining({ engine: 'google', route: 'wml', host: 'www.google.com', outcome: 'ok', status: 200 })])
    expect(res.headers.get('x-credits-used')).toBe('1')
    expect(await balance()).toBe(before - 1)

    expect(asked().map((u) => u.pathname)).toEqual(['/wml/search'])
    const sent = asked()[0] as URL
    expect(Object.fromEntries(sent.searchParams)).toEqual({ q: 'coffee', sca_esv: '1', hl: 'en', gl: 'us', ie: 'utf8', oe: 'utf8' })
    const headers = upstream.seen[0]?.headers ?? {}
    expect(headers['user-agent']).toMatch(/^Nokia/)
    expect(headers.accept).toBe('*/*')
    expect(headers.cookie).toBe('CONSENT=YES+')
  })

  test('num=30 is three pages (start 0, 10, 20) asked at once, merged to 30 results, billed as 30 results always were', async () => {
    holdUntil.set('deep dive', 3)
    const before = await balance()
    const res = await get('/v1/search?q=deep+dive&num=30&engine=google')
    expect(res.status).toBe(200)
    const body = await res.json()
    expect(mostAtOnce).toBe(3)
    const pages = asked()
    expect(pages.map((u) => u.pathname)).toEqual(['/wml/search', '/wml/search', '/wml/search'])
    expect(pages.map((u) => u.searchParams.get('start') ?? '0').sort()).toEqual(['0', '10', '20'])
    for (const u of pages) {
      expect(u.searchParams.has('num')).toBe(false)
      expect(u.searchParams.has('lr')).toBe(false)
    }
    expect(body.results).toHaveLength(30)
    expect(body.results.map((r: { position: number }) => r.position)).toEqual(Array.from({ length: 30 }, (_, i) => i + 1))
    expect(body.results.map((r: { title: string }) => r.title)).toEqual(Array.from({ length: 30 }, (_, i) => `deep dive result ${i + 1}`))
    expect(body.results[0].link).toBe('https://example.com/deep-dive/1?from=wml&n=1')
    // Sections other than organic results come from the first page.
    expect(body.related_searches).toEqual([{ query: 'deep dive at 0' }])
    expect(body.meta.route.map((a: Attempt) => [a.route, a.outcome])).toEqual([
      ['wml', 'ok'],
      ['wml', 'ok'],
      ['wml', 'ok'],
    ])
    // One credit per 10 results (searchPriceMc / deliveredSearchPriceMc): 30 results are 3 credits.
    expect(res.headers.get('x-credits-used')).toBe('3')
    expect(body.meta.credits_used).toBe(3)
    expect(await balance()).toBe(before - 3)
  })

  test('page 3 asks the page at start=20 and numbers its results from 21', async () => {
    const res = await get('/v1/search?q=paging&page=3&engine=google')
    expect(res.status).toBe(200)
    const body = await res.json()
    expect(asked().map((u) => u.searchParams.get('start'))).toEqual(['20'])
    expect(body.results.map((r: { position: number; title: string }) => [r.position, r.title]).slice(0, 2)).toEqual([
      [21, 'paging result 21'],
      [22, 'paging result 22'],
    ])
  })

  test('a CAPTCHA on wml: the web route is asked within the same request, billed once', async () => {
    wmlMode = 'captcha'
    webMode = 'results'
    const before = await balance()
    const res = await get('/v1/search?q=coffee&engine=google')
    expect(res.status).toBe(200)
    const body = await res.json()
    expect(body.meta.engine).toBe('google')
    expect(body.meta.route.map((a: Attempt) => [a.route, a.outcome, a.reason])).toEqual([
      ['wml', 'blocked', 'CAPTCHA page'],
      ['web', 'ok', undefined],
    ])
    expect(body.results.length).toBeGreaterThan(0)
    expect(asked().map((u) => u.pathname)).toEqual(['/wml/search', '/search'])
    expect(res.headers.get('x-credits-used')).toBe('1')
    expect(await balance()).toBe(before - 1)
  })

  test.each(['javascript', 'javascript-redirect'] as const)(
    'both routes failing (wml: CAPTCHA, web: %s page) is a 503 naming each route’s reason, never "rate limiting", free',
    async (mode) => {
      wmlMode = 'captcha'
      webMode = mode
      const before = await balance()
      const res = await get('/v1/search?q=coffee&engine=google')
      expect(res.status).toBe(503)
      const { error } = await res.json()
      expect(error.code).toBe('upstream_blocked')
      expect(error.message).toBe('google refused the request: wml: CAPTCHA page; web: JavaScript page (results need scripts)')
      expect(error.message).not.toMatch(/rate limit/i)
      expect(await balance()).toBe(before)
    },
  )

  test('the feature-phone page is only for feature phones: a request that needs another route gets it', async () => {
    // device=mobile and ads are the plain page's: wml does not take them, so web is asked first.
    webMode = 'results'
    const body = await (await get('/v1/search?q=coffee&engine=google&device=mobile')).json()
    expect(body.meta.route.map((a: Attempt) => a.route)).toEqual(['web'])
    expect(asked().map((u) => u.pathname)).toEqual(['/search'])
    expect(upstream.seen[0]?.headers['user-agent']).toMatch(/Chrome\/.*Mobile/)
  })

  test('GET /v1/engines shows google’s routes in order, with their availability and health', async () => {
    // Traffic on both: wml answers, then wml refuses and web answers.
    await get('/v1/search?q=coffee&engine=google')
    wmlMode = 'captcha'
    webMode = 'results'
    await get('/v1/search?q=coffee&engine=google')
    const engines = await (await get('/v1/engines')).json()
    const routes = engines.engines.find((e: { name: string }) => e.name === 'google').routes
    expect(routes.map((r: { name: string; available: boolean }) => [r.name, r.available])).toEqual([
      ['wml', true],
      ['web', true],
      ['browser', false],
    ])
    expect(routes[2].unavailable_reason).toMatch(/browser/)
    const [wml, web] = routes
    expect(wml.health).toMatchObject({ layout: 'search@wml', state: 'blocked' })
    expect(wml.health.block_rate).toBeGreaterThan(0)
    // web's last call answered: not cooling down (degraded when earlier tests saw it refuse).
    expect(web.health).toMatchObject({ layout: 'search@web' })
    expect(['healthy', 'degraded']).toContain(web.health.state)
    expect(web.health.requests).toBeGreaterThan(0)
  })
})
