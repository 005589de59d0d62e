import { createHash } from 'node:crypto'
import { existsSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { loadConfig } from '../src/config.ts'
import { type AddressPolicy, allowAll, publicOnly } from '../src/net/address-policy.ts'
import { Renderer } from '../src/net/browser/renderer.ts'
import { RENDER_UNAVAILABLE_MESSAGE } from '../src/reader/render.read.ts'
import { CHROMIUM_PATH, skipWithoutChromium } from './support/browser.ts'
import { type SpaSite, startSpaSite } from './support/spa-site.ts'
import { startTrawl, type Trawl } from './support/start-trawl.ts'

/**
 * Pages that need JavaScript (docs/rendering.md), through the real server and a real Chromium:
 * a local single-page app read and crawled with render=auto, an ordinary article that must not
 * be rendered, and the guard: a page's scripts cannot make the browser reach loopback.
 */

let site: SpaSite
beforeAll(async () => {
  site = await startSpaSite()
})
afterAll(() => site?.close())

const call = (t: Trawl, key: string, method: string, path: string, body?: unknown) =>
  fetch(`${t.base}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  })

async function ended(t: Trawl, key: string, id: string, timeoutMs = 60_000) {
  const until = Date.now() + timeoutMs
  while (Date.now() < until) {
    const task = await (await call(t, key, 'GET', `/v1/crawl/${id}`)).json()
    if (['completed', 'failed', 'canceled'].includes(task.status)) return task
    await new Promise((r) => setTimeout(r, 200))
  }
  throw new Error(`crawl ${id} did not end in ${timeoutMs} ms`)
}

describe.skipIf(skipWithoutChromium)('render through the server', () => {
  let trawl: Trawl
  let key: string
  beforeAll(async () => {
    trawl = await startTrawl({ TRAWL_ALLOW_PRIVATE_NETWORK: 'true', TRAWL_BROWSER: CHROMIUM_PATH, TRAWL_SCHEDULER_POLL_MS: '200' }, { workers: true })
    key = (await trawl.account({ plan: 'enterprise', rate_limit_rps: 1000, credits: 100 })).key
  })
  afterAll(() => trawl?.close())

  test('webpage, render auto: the shell is drawn (article, client-side nav, lazy section) and billed like any page', async () => {
    const res = await call(trawl, key, 'POST', '/v1/webpage', { url: `${site.url}/guide/channels` })
    expect(res.status).toBe(200)
    const body = await res.json()
    expect(body.rendered).toBe(true)
    expect(body.meta.rendered).toBe(true)
    expect(body.meta.credits_used).toBe(1)
    expect(body.title).toBe('Reading the channels')
    expect(body.markdown).toContain('ripples that point inland')
    expect(body.markdown).toContain('loaded when scrolled into view')
  })

  test('webpage, render never: the empty shell, reported as empty and not billed', async () => {
    const body = await (await call(trawl, key, 'POST', '/v1/webpage', { url: `${site.url}/about`, render: 'never' })).json()
    expect(body.rendered).toBe(false)
    expect(body.meta.rendered).toBe(false)
    expect(body.meta.empty_page).toBe(true)
    expect(body.meta.credits_used).toBe(0)
    expect(body.markdown ?? '').not.toContain('notebooks')
  })

  test('an ordinary article is read statically under auto, and drawn under always', async () => {
    const auto = await (await call(trawl, key, 'POST', '/v1/webpage', { url: `${site.url}/article.html` })).json()
    expect(auto.meta.rendered).toBe(false)
    expect(auto.markdown).toContain('glasswort and sea lavender')
    const always = await (await call(trawl, key, 'POST', '/v1/webpage', { url: `${site.url}/article.html`, render: 'always' })).json()
    expect(always.meta.rendered).toBe(true)
    expect(always.markdown).toContain('glasswort and sea lavender')
  })

  test('extract: each result says whether it was rendered; meta counts them', async () => {
    const body = await (await call(trawl, key, 'POST', '/v1/extract', { urls: [`${site.url}/guide/fog`, `${site.url}/article.html`] })).json()
    expect(body.request.render).toBe('auto')
    const byPath = Object.fromEntries(body.results.map((r: { url: string; rendered: boolean }) => [new URL(r.url).pathname, r]))
    expect(byPath['/guide/fog'].rendered).toBe(true)
    expect(byPath['/guide/fog'].markdown).toContain('take a bearing on the shore')
    expect(byPath['/article.html'].rendered).toBe(false)
    expect(body.meta.rendered).toBe(1)
  })

  test('crawl, render auto: routes are discovered from the drawn links and every page says rendered', async () => {
    const created = await (await call(trawl, key, 'POST', '/v1/crawl', { url: `${site.url}/`, limit: 10, max_depth: 2, sitemap: 'skip' })).json()
    const task = await ended(trawl, key, created.id)
    expect(task.status).toBe('completed')
    const pages = task.result.pages as { url: string; rendered: boolean; markdown: string }[]
    expect(pages.map((p) => new URL(p.url).pathname).sort()).toEqual(['/', '/about', '/guide/channels', '/guide/fog'])
    expect(pages.every((p) => p.rendered)).toBe(true)
    expect(pages.find((p) => p.url.endsWith('/about'))!.markdown).toContain('twenty winters')
  })

  test('/healthz reports the renderer', async () => {
    const health = await (await fetch(`${trawl.base}/healthz`)).json()
    expect(health.renderer).toMatchObject({ state: 'running', executable: CHROMIUM_PATH, contexts: 2 })
    expect(health.renderer.pages_rendered).toBeGreaterThan(0)
  })

  test('bad render values are the usual 400', async () => {
    const res = await call(trawl, key, 'POST', '/v1/webpage', { url: `${site.url}/`, render: 'sometimes' })
    expect(res.status).toBe(400)
    expect((await res.json()).error.message).toBe('render must be auto, always or never')
  })
})

describe('configuration', () => {
  test('TRAWL_BROWSER: off disables, a path is taken as given, unset finds /usr/bin/chromium when installed; pool settings are checked', () => {
    expect(loadConfig({ TRAWL_BROWSER: 'off' }).browser.executablePath).toBeNull()
    expect(loadConfig({ TRAWL_BROWSER: '/opt/chromium/chrome' }).browser.executablePath).toBe('/opt/chromium/chrome')
    expect(loadConfig({}).browser).toEqual({
      executablePath: existsSync('/usr/bin/chromium') ? '/usr/bin/chromium' : null,
      contexts: 2,
      pageTimeoutMs: 20_000,
      recyclePages: 200,
      maxRssMb: 1024,
    })
    expect(() => loadConfig({ TRAWL_BROWSER_CONTEXTS: '0' })).toThrow(/TRAWL_BROWSER_CONTEXTS/)
    expect(() => loadConfig({ TRAWL_BROWSER_MAX_RSS_MB: '64' })).toThrow(/TRAWL_BROWSER_MAX_RSS_MB/)
  })
})

describe('render without a browser (TRAWL_BROWSER=off)', () => {
  let trawl: Trawl
  let key: string
  beforeAll(async () => {
    trawl = await startTrawl({ TRAWL_ALLOW_PRIVATE_NETWORK: 'true', TRAWL_BROWSER: 'off' })
    key = (await trawl.account({ plan: 'enterprise', rate_limit_rps: 1000, credits: 10 })).key
  })
  afterAll(() => trawl?.close())

  test('render=always is a 400 naming TRAWL_BROWSER, before anything is billed; auto reads statically', async () => {
    for (const [path, body] of [
      ['/v1/webpage', { url: `${site.url}/`, render: 'always' }],
      ['/v1/extract', { urls: [`${site.url}/`], render: 'always' }],
      ['/v1/crawl', { url: `${site.url}/`, render: 'always' }],
    ] as const) {
      const res = await call(trawl, key, 'POST', path, body)
      expect(res.status, path).toBe(400)
      expect((await res.json()).error).toMatchObject({ code: 'invalid_request', message: RENDER_UNAVAILABLE_MESSAGE })
    }
    const account = await (await call(trawl, key, 'GET', '/v1/account')).json()
    expect(account.balance).toBe(10)
    const auto = await (await call(trawl, key, 'POST', '/v1/webpage', { url: `${site.url}/` })).json()
    expect(auto.meta).toMatchObject({ rendered: false, empty_page: true })
    const health = await (await fetch(`${trawl.base}/healthz`)).json()
    expect(health.renderer.state).toBe('off')
  })
})

describe.skipIf(skipWithoutChromium)('the renderer pool', () => {
  test('the browser is recycled after recyclePages pages; pages keep coming out drawn; close leaves no browser', async () => {
    const renderer = new Renderer({ executablePath: CHROMIUM_PATH, contexts: 2, pageTimeoutMs: 20_000, recyclePages: 2, maxRssMb: 4096, policy: allowAll })
    try {
      const paths = ['/p/1', '/p/2', '/p/3', '/p/4', '/p/5']
      const drawn = await Promise.all(paths.map((p) => renderer.render(`${site.url}${p}`, { timeoutMs: 20_000 })))
      for (const [i, page] of drawn.entries()) expect(page.html).toContain(`Generated page ${i + 1}`)
      expect(renderer.status()).toMatchObject({ pages_rendered: 5, pages_in_flight: 0 })
      expect(renderer.status().browsers_launched).toBeGreaterThanOrEqual(3)
      expect(renderer.memory()?.processes ?? 0).toBeLessThan(20)
    } finally {
      await renderer.close()
    }
    expect(renderer.status().state).toBe('idle')
    expect(renderer.memory()).toBeNull()
  })
})

describe.skipIf(skipWithoutChromium)('when a page is read', () => {
  // The page asks for its data while it loads; the answer comes after `load` and draws a section
  // that is itself loaded lazily. The page is busy at `load`, so it gets a full quiet window before
  // the scroll (no short grace), and the lazy section inside the data is scrolled into view.
  // Chained by the network only, with no timer in the page, so a loaded machine cannot reorder it.
  const PAGE = `<!doctype html><html><head><title>Late data</title></head><body><main id="main"><h1>Late data</h1></main><script>
fetch('/data').then((r) => r.text()).then((text) => {
  const main = document.getElementById('main');
  const p = document.createElement('p'); p.textContent = text; main.appendChild(p);
  const spacer = document.createElement('div'); spacer.style.height = '3000px'; main.appendChild(spacer);
  const lazy = document.createElement('section'); main.appendChild(lazy);
  new IntersectionObserver((entries, o) => { if (!entries.some((e) => e.isIntersecting)) return; o.disconnect();
    fetch('/lazy').then((r) => r.text()).then((t) => { lazy.textContent = t; }); }).observe(lazy);
});
</script></body></html>`

  test('data asked for while the page loads is waited for, and the lazy section it draws is scrolled into view', async () => {
    const server: Server = createServer((req, res) => {
      if (req.url === '/data') return setTimeout(() => res.writeHead(200).end('the data drawn after load'), 300)
      if (req.url === '/lazy') return res.writeHead(200).end('the lazy section inside the late data')
      res.writeHead(200, { 'content-type': 'text/html' }).end(PAGE)
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const renderer = new Renderer({ executablePath: CHROMIUM_PATH, contexts: 1, pageTimeoutMs: 20_000, recyclePages: 50, maxRssMb: 4096, policy: allowAll })
    try {
      const { html } = await renderer.render(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`, { timeoutMs: 20_000 })
      expect(html).toContain('the data drawn after load')
      expect(html).toContain('the lazy section inside the late data')
    } finally {
      await renderer.close()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    }
  })
})

/** Counts every TCP connection that reaches it: the loopback service a page must not reach. */
async function startSecretServer(): Promise<{ port: number; connections: () => number; close(): Promise<void> }> {
  let connections = 0
  const sockets = new Set<Socket>()
  const server: Server = createServer((_req, res) => res.writeHead(200, { 'access-control-allow-origin': '*' }).end('secret'))
  // Accepts WebSocket handshakes too, so the control test can show a socket that did get through.
  server.on('upgrade', (req, socket) => {
    const accept = createHash('sha1').update(`${req.headers['sec-websocket-key']}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`).digest('base64')
    socket.write(`HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\n\r\n`)
  })
  server.on('connection', (s) => {
    connections++
    sockets.add(s)
    s.once('close', () => sockets.delete(s))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    port: (server.address() as AddressInfo).port,
    connections: () => connections,
    async close() {
      for (const s of sockets) s.destroy()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}

/** A page whose scripts try every way to loopback, then say they are done. */
function attackPage(secret: number) {
  const targets = [`127.0.0.1:${secret}`, `localhost:${secret}`, `[::1]:${secret}`, `0.0.0.0:${secret}`, `127.1:${secret}`]
  return `<!doctype html><html><head><title>Harmless page</title></head><body><div id="root"></div>
<iframe src="http://127.0.0.1:${secret}/frame"></iframe>
<script>
const targets = ${JSON.stringify(targets)};
const tries = [];
for (const t of targets) {
  // The secret server answers 'secret' with CORS allowed: only reaching it would read that.
  tries.push(fetch('http://' + t + '/secret').then((r) => r.text()).then((body) => (body === 'secret' ? 'reached ' + t : 'refused'), () => 'refused'));
  tries.push(new Promise((resolve) => {
    const ws = new WebSocket('ws://' + t + '/socket');
    ws.onopen = () => resolve('reached ws ' + t);
    ws.onerror = () => resolve('refused');
  }));
  navigator.sendBeacon('http://' + t + '/beacon', 'x');
}
tries.push(new Promise((resolve) => { const x = new XMLHttpRequest(); x.open('GET', 'http://127.0.0.1:${secret}/xhr'); x.onload = () => resolve(x.responseText === 'secret' ? 'reached xhr' : 'refused'); x.onerror = () => resolve('refused'); x.send(); }));
tries.push(typeof RTCPeerConnection === 'undefined' ? 'no webrtc' : 'webrtc present');
Promise.all(tries).then((results) => {
  const p = document.createElement('p');
  p.id = 'results';
  p.textContent = 'Results: ' + results.join(', ');
  document.getElementById('root').appendChild(p);
});
</script></body></html>`
}

describe.skipIf(skipWithoutChromium)('the guard: a page cannot make the browser reach loopback', () => {
  let secret: Awaited<ReturnType<typeof startSecretServer>>
  let page: Server
  let pagePort = 0
  let renderer: Renderer
  beforeAll(async () => {
    secret = await startSecretServer()
    page = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(attackPage(secret.port)))
    await new Promise<void>((resolve) => page.listen(0, '127.0.0.1', resolve))
    pagePort = (page.address() as AddressInfo).port
    // The server's rule without TRAWL_ALLOW_PRIVATE_NETWORK (publicOnly), plus exactly one
    // exception: the test page's own loopback port, as if it were a public site. Everything the
    // page's scripts ask for is judged by the unmodified rule.
    const policy: AddressPolicy = (t) => publicOnly(t) || ((t.address === '127.0.0.1' || t.address === '::ffff:127.0.0.1') && t.port === pagePort)
    renderer = new Renderer({ executablePath: CHROMIUM_PATH, contexts: 1, pageTimeoutMs: 20_000, recyclePages: 100, maxRssMb: 2048, policy })
  })
  afterAll(async () => {
    await renderer?.close()
    await new Promise<void>((resolve) => page?.close(() => resolve()))
    await secret?.close()
  })

  test('fetch, XHR, WebSocket, beacon and iframe to loopback in every spelling: zero connections reach it', async () => {
    const drawn = await renderer.render(`http://127.0.0.1:${pagePort}/`, { timeoutMs: 20_000 })
    const results = /Results: ([^<]*)/.exec(drawn.html)?.[1] ?? ''
    expect(results).not.toBe('')
    expect(results).not.toContain('reached')
    expect(results).toContain('no webrtc')
    expect(secret.connections()).toBe(0)
    // The attempts were made, and the proxy turned them down (not the browser's own rules alone).
    expect(renderer.status().connections_refused).toBeGreaterThan(0)
  })

  test('control: the same page under TRAWL_ALLOW_PRIVATE_NETWORK does reach the service (the attacks are real)', async () => {
    const open = new Renderer({ executablePath: CHROMIUM_PATH, contexts: 1, pageTimeoutMs: 20_000, recyclePages: 100, maxRssMb: 2048, policy: allowAll })
    try {
      const before = secret.connections()
      const drawn = await open.render(`http://127.0.0.1:${pagePort}/`, { timeoutMs: 20_000 })
      expect(drawn.html).toContain('reached 127.0.0.1')
      expect(drawn.html).toContain('reached ws 127.0.0.1')
      expect(secret.connections()).toBeGreaterThan(before)
    } finally {
      await open.close()
    }
  })

  test('the page itself on a refused address is invalid_request, as with the static fetch', async () => {
    const before = secret.connections()
    await expect(renderer.render(`http://127.0.0.1:${secret.port}/`, { timeoutMs: 10_000 })).rejects.toMatchObject({ code: 'invalid_request' })
    expect(secret.connections()).toBe(before)
  })
})
