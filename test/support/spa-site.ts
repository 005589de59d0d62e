import { createServer, type Server } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'

/**
 * A single-page application on 127.0.0.1, for the rendering tests and bench:render: every page
 * path answers the same shell (`<div id="root"></div>` and a bundle), and /app.js draws the page:
 * the article for the path, a navigation of client-side routes (history.pushState links), and a
 * section fetched from /api/section only when it scrolls into view. /article.html is an ordinary
 * server-drawn article (must not be rendered under auto); /p/<n> are generated pages for the bench.
 */

export interface SpaSite {
  url: string
  port: number
  /** Request paths in arrival order. */
  seen: string[]
  close(): Promise<void>
}

const SHELL = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Atlas of Tides</title>
  <script src="/app.js" defer></script>
</head>
<body>
  <noscript>You need to enable JavaScript to run this app.</noscript>
  <div id="root"></div>
</body>
</html>`

export const ROUTES: Record<string, { title: string; body: string[] }> = {
  '/': {
    title: 'Atlas of Tides',
    body: [
      'The Atlas of Tides is a field guide to the coastlines of the North Sea, written for walkers who cross the mudflats at low water.',
      'Each chapter follows one stretch of coast: where the channels run, how fast the flood returns, and which sandbanks stay dry longest.',
      'Tide tables are printed every year, but the shape of the flats changes with every storm, so the guide teaches reading the ground itself.',
    ],
  },
  '/about': {
    title: 'About the Atlas',
    body: [
      'The atlas began as notebooks kept by three mudflat guides over twenty winters on the Wadden coast.',
      'They recorded where walkers went wrong: a channel that deepened after a gale, a gully that filled from behind, a fog that rolled in at noon.',
      'The notebooks became this guide so that what the guides learnt the hard way is written down before the next storm changes it again.',
    ],
  },
  '/guide/channels': {
    title: 'Reading the channels',
    body: [
      'A tidal channel fills from the sea end first, but on the flats the water arrives from the side, through gullies that look dry an hour before.',
      'Watch the ripples on the sand: ripples that point inland mean the flood has already turned, even if the main channel still runs out.',
      'Never cross a channel deeper than your knees on a rising tide; the current doubles in strength in the last half hour before high water.',
    ],
  },
  '/guide/fog': {
    title: 'Walking in fog',
    body: [
      'Fog on the flats hides every landmark within minutes, and sound carries strangely over wet sand, so the shore seems to be on every side.',
      'Carry a compass and take a bearing on the shore before you set out; walk on the bearing, not on what you think you hear.',
      'When the fog comes in on a rising tide, turn back at once: the flood will reach the low ground between you and the shore first.',
    ],
  },
}

const NAV = ['/', '/about', '/guide/channels', '/guide/fog']

/** The bundle: a tiny router and renderer, in plain script so it runs in any Chromium. */
const APP = `(() => {
  const routes = ${JSON.stringify(ROUTES)};
  const nav = ${JSON.stringify(NAV)};
  function pageFor(path) {
    if (routes[path]) return routes[path];
    const m = /^\\/p\\/(\\d+)$/.exec(path);
    if (m) {
      const n = Number(m[1]);
      const body = [];
      for (let i = 0; i < 4; i++) body.push('Page ' + n + ', paragraph ' + (i + 1) + ': the flood tide reaches sandbank ' + ((n * 7 + i) % 97) + ' after ' + (20 + ((n + i) % 40)) + ' minutes, so walkers heading for the island must leave the dyke before the ebb has fully run out and keep to the marked route across the channel.');
      return { title: 'Generated page ' + n, body: body };
    }
    return { title: 'Not found', body: ['There is no page at this address in the atlas.'] };
  }
  function draw() {
    const page = pageFor(location.pathname);
    document.title = page.title;
    const root = document.getElementById('root');
    root.innerHTML = '';
    const header = document.createElement('nav');
    for (const href of nav) {
      const a = document.createElement('a');
      a.href = href;
      a.textContent = routes[href].title;
      a.addEventListener('click', (e) => { e.preventDefault(); history.pushState({}, '', href); draw(); });
      header.appendChild(a);
    }
    root.appendChild(header);
    const article = document.createElement('article');
    const h1 = document.createElement('h1');
    h1.textContent = page.title;
    article.appendChild(h1);
    for (const text of page.body) {
      const p = document.createElement('p');
      p.textContent = text;
      article.appendChild(p);
    }
    root.appendChild(article);
    // The lazily loaded section: fetched only once its placeholder is scrolled into view.
    const spacer = document.createElement('div');
    spacer.style.height = '3000px';
    article.appendChild(spacer);
    const lazy = document.createElement('section');
    lazy.id = 'lazy';
    article.appendChild(lazy);
    new IntersectionObserver((entries, observer) => {
      if (!entries.some((e) => e.isIntersecting)) return;
      observer.disconnect();
      fetch('/api/section?path=' + encodeURIComponent(location.pathname)).then((r) => r.json()).then((s) => {
        const h2 = document.createElement('h2');
        h2.textContent = s.heading;
        const p = document.createElement('p');
        p.textContent = s.text;
        lazy.appendChild(h2);
        lazy.appendChild(p);
      });
    }).observe(lazy);
  }
  window.addEventListener('popstate', draw);
  draw();
})();`

const ARTICLE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Salt marsh plants</title>
<script>window.dataLayer = window.dataLayer || [];</script><script src="/analytics.js" async></script></head>
<body><header><a href="/">Home</a></header><article><h1>Salt marsh plants</h1>
${Array.from({ length: 8 }, (_, i) => `<p>Salt marsh plant note ${i + 1}: glasswort and sea lavender grow where the marsh floods at spring tides, and each zone of the marsh has its own plants, set by how long the ground stays under salt water on each tide. Sea aster flowers late in the summer along the creeks.</p>`).join('\n')}
</article><noscript>Please enable JavaScript to view the comments.</noscript></body></html>`

export async function startSpaSite(): Promise<SpaSite> {
  const seen: string[] = []
  const sockets = new Set<Socket>()
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost')
    seen.push(url.pathname)
    if (url.pathname === '/app.js') return res.writeHead(200, { 'content-type': 'text/javascript' }).end(APP)
    if (url.pathname === '/analytics.js') return res.writeHead(200, { 'content-type': 'text/javascript' }).end('/* analytics */')
    if (url.pathname === '/api/section') {
      const path = url.searchParams.get('path') ?? '/'
      return res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          heading: 'Lazy section',
          text: `Tide notes for ${path}, loaded when scrolled into view: spring tides run highest two days after the full moon.`,
        }),
      )
    }
    if (url.pathname === '/article.html') return res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(ARTICLE)
    if (url.pathname in ROUTES || /^\/p\/\d+$/.test(url.pathname)) return res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(SHELL)
    res.writeHead(404, { 'content-type': 'text/plain' }).end('not found')
  })
  server.on('connection', (s) => {
    sockets.add(s)
    s.once('close', () => sockets.delete(s))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    seen,
    async close() {
      for (const s of sockets) s.destroy()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}
