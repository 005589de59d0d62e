import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { type CrawlSite, startCrawlSite } from './support/crawl-site.ts'
import { corpus } from './support/reading-site.ts'
import { startTrawl, type Trawl } from './support/start-trawl.ts'

/**
 * include_links / include_images of /v1/extract, /v1/webpage and /v1/crawl: every link of the page
 * (content first, then navigation, sidebars and footer), every picture of the page (lazy-loaded,
 * srcset and <picture> ones by their real address), never tracking pixels, emoji, data: URIs or
 * page furniture. Pages are served from 127.0.0.1 only.
 */

const PROSE =
  'The new crossing carries about forty thousand vehicles a day, engineers said, and it cuts the trip between the two districts from forty minutes to nine at rush hour. '

/** A news article as CMSes write them: banner, menus, lazy images, related teasers, ads, beacons. */
const NEWS_ARTICLE = `<!doctype html><html lang="en"><head><meta charset="utf-8">
<title>Harbour tunnel opens after six years of work | The Daily Example</title>
<meta property="og:image" content="/media/og/tunnel-1200.jpg"><link rel="stylesheet" href="/static/site.css">
<script>window.dataLayer = []; document.write('<a href="/from-script">x</a>')</script></head>
<body class="article-page">
<a class="skip-link" href="#main">Skip to content</a>
<header class="site-header" role="banner">
  <a href="/" class="brand"><img src="/static/logo.svg" alt="The Daily Example" width="180" height="40"></a>
  <nav aria-label="Sections"><ul>
    <li><a href="/news/">News</a></li><li><a href="/city/">City</a></li><li><a href="/opinion/">Opinion</a></li>
    <li><a href="https://shop.example-news.test/subscribe?ref=nav">Subscribe</a></li>
  </ul></nav>
</header>
<main id="main"><article>
  <header class="article-header">
    <h1>Harbour tunnel opens after six years of work</h1>
    <p class="byline">By <a href="/authors/jane-doe">Jane Doe</a> <img class="avatar" src="/media/authors/jane-64.jpg" width="32" height="32" alt=""></p>
    <figure class="hero"><picture>
      <source type="image/webp" srcset="/media/2024/tunnel-640.webp 640w, /media/2024/tunnel-1280.webp 1280w">
      <img src="/media/2024/tunnel-640.jpg" srcset="/media/2024/tunnel-640.jpg 640w, /media/2024/tunnel-1280.jpg 1280w" alt="The tunnel entrance on opening day" width="640" height="360">
    </picture><figcaption>Photo: City Press Office</figcaption></figure>
  </header>
  <div class="article-body">
    <p>${PROSE}The city published <a href="https://transport.example.gov/reports/harbour-tunnel.pdf">the engineering report</a> on Monday. ${PROSE}</p>
    <p>${PROSE}${PROSE}</p>
    <figure><img class="lazyload" src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" data-src="/media/2024/boring-machine.jpg" alt="The boring machine">
      <noscript><img src="/media/2024/boring-machine.jpg" alt="The boring machine"></noscript><figcaption>The machine, named Marta.</figcaption></figure>
    <p>${PROSE}Trains will follow in 2026 <img class="emoji" src="https://s.w.org/images/core/emoji/15.0.3/svg/1f687.svg" alt="🚇"> once the rails are laid. ${PROSE}</p>
    <figure><img src="/static/img/blank.gif" data-lazy-src="/media/2024/route-map.png" alt="Route map"></figure>
    <figure><img data-srcset="/media/2024/crowd-480.jpg 480w, /media/2024/crowd-960.jpg 960w" src="data:image/svg+xml,%3Csvg%3E%3C/svg%3E" alt="Crowds at the opening"></figure>
    <p>${PROSE}Read <a href="/city/tunnel-history">the tunnel's long history</a>, or the <a href="https://transport.example.gov/reports/harbour-tunnel.pdf">report</a> again. ${PROSE}</p>
    <img src="https://www.facebook.com/tr?id=123&amp;ev=PageView" width="1" height="1" alt="">
  </div>
  <aside class="related-stories"><h2>Related</h2><ul>
    <li><a href="/city/bridge-closure"><img src="/media/thumbs/bridge-300.jpg" width="300" height="200" alt="">Bridge closes for repairs</a></li>
    <li><a href="/city/ferry-timetable"><img src="/media/thumbs/ferry-300.jpg" width="300" height="200" alt="">New ferry timetable</a></li>
  </ul></aside>
</article></main>
<aside class="sidebar"><h2>Sources</h2><ul><li><a href="https://data.example.org/traffic-counts">Traffic counts (Open Data)</a></li></ul>
  <div class="ad-slot"><a href="https://ads.example.net/click?id=9"><img src="https://ads.example.net/banner-300x250.jpg" width="300" height="250" alt="Advertisement"></a></div></aside>
<footer class="site-footer">
  <a href="/about">About us</a> <a href="/privacy">Privacy</a> <a href="mailto:desk@example-news.test">Contact</a>
  <a href="https://twitter.com/dailyexample"><img src="/static/icons/twitter.svg" alt="Twitter" width="24" height="24"></a>
  <a href="javascript:void(0)" onclick="cookieSettings()">Cookie settings</a> <a href="#top">Back to top</a>
  <template><a href="/never-rendered">template</a></template>
</footer>
<noscript><img height="1" width="1" style="display:none" src="https://www.facebook.com/tr?id=123&amp;ev=PageView&amp;noscript=1"/></noscript>
<img src="https://sb.scorecardresearch.com/p?c1=2&amp;c2=123" alt="">
</body></html>`

/** A blog post whose outbound links all sit outside the text: in a "further reading" sidebar and the footer. */
const LINKS_OUTSIDE_TEXT = `<!doctype html><html><head><title>Notes on sourdough</title></head><body>
<div class="layout"><div class="content"><h1>Notes on sourdough</h1>
${[1, 2, 3].map((n) => `<p>Paragraph ${n}. ${PROSE}</p>`).join('\n')}</div>
<div class="further-reading"><h3>Further reading</h3><ul>
  <li><a href="https://www.kingarthurbaking.com/recipes/sourdough-starter">Sourdough starter</a></li>
  <li><a href="https://en.wikipedia.org/wiki/Sourdough">Sourdough on Wikipedia</a></li></ul></div></div>
<div class="foot">© 2024 — <a href="https://creativecommons.org/licenses/by/4.0/">CC BY 4.0</a></div></body></html>`

const SITE_ROUTES: Record<string, () => string | Buffer> = {
  '/news/harbour-tunnel': () => NEWS_ARTICLE,
  '/blog/sourdough': () => LINKS_OUTSIDE_TEXT,
  // Real pages: Ars Technica (the lead image sits outside the text the reader keeps), The Verge
  // (Next.js images: srcset on the <img>, the same again in <noscript>), Wikipedia (formula images
  // marked aria-hidden beside their MathML).
  '/corpus/ars': () => corpus('readability-test-pages/test-pages/ars-1/source.html'),
  '/corpus/verge': () => corpus('readability-test-pages/test-pages/theverge/source.html'),
  '/corpus/wiki-math': () => corpus('readability-test-pages/test-pages/wikipedia-3/source.html'),
}

let pages: Server
let pagesUrl = ''
let trawl: Trawl
let key: string

beforeAll(async () => {
  pages = createServer((req, res) => {
    const route = SITE_ROUTES[(req.url ?? '/').split('?')[0]!]
    if (route) res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(route())
    else res.writeHead(404, { 'content-type': 'text/plain' }).end('not found')
  })
  await new Promise<void>((resolve) => pages.listen(0, '127.0.0.1', resolve))
  pagesUrl = `http://127.0.0.1:${(pages.address() as AddressInfo).port}`
  trawl = await startTrawl({ TRAWL_ALLOW_PRIVATE_NETWORK: 'true', TRAWL_SCHEDULER_POLL_MS: '200' }, { workers: true })
  key = (await trawl.account({ plan: 'enterprise', rate_limit_rps: 1000, credits: 500 })).key
})
afterAll(async () => {
  await trawl?.close()
  pages?.closeAllConnections()
  await new Promise<void>((resolve) => (pages ? pages.close(() => resolve()) : resolve()))
})

const post = (path: string, body: unknown) =>
  fetch(`${trawl.base}${path}`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) })
const at = (path: string) => `${pagesUrl}${path}`

interface Link {
  url: string
  text: string
}

/** What every links/images list must be: absolute http(s), de-duplicated, no beacons or data: URIs. */
function expectClean(result: { url: string; links?: Link[]; images?: string[] }) {
  const links = result.links ?? []
  const images = result.images ?? []
  for (const l of links) {
    expect(Object.keys(l).sort()).toEqual(['text', 'url'])
    expect(l.url).toMatch(/^https?:\/\//)
    expect(l.url.replace(/#.*$/, '')).not.toBe(result.url.replace(/#.*$/, ''))
  }
  expect(new Set(links.map((l) => l.url)).size).toBe(links.length)
  for (const src of images) expect(src).toMatch(/^https?:\/\//)
  expect(new Set(images).size).toBe(images.length)
  expect(images.join(' ')).not.toMatch(/facebook\.com\/tr|scorecardresearch|s\.w\.org\/images\/core\/emoji|blank\.gif|^data:/)
}

describe('include_links and include_images on a news article', () => {
  const CONTENT_IMAGES = ['/media/2024/tunnel-640.jpg', '/media/2024/boring-machine.jpg', '/media/2024/route-map.png', '/media/2024/crowd-960.jpg']

  test.each(['markdown', 'text', 'html'])(
    '/v1/extract (%s): every link of the page, content first; every picture, lazy ones by their real address',
    async (format) => {
      const res = await post('/v1/extract', { urls: [at('/news/harbour-tunnel')], format, include_links: true, include_images: true })
      expect(res.status).toBe(200)
      const [page] = (await res.json()).results
      expectClean(page)

      // Images: the hero (<picture>: the <img>'s own src), a lazy image with a data: placeholder (and
      // its <noscript> twin), a placeholder file with data-lazy-src, a data-srcset (largest) only.
      // Not: the logo, the byline avatar, related teasers, the ad, the footer icon, beacons, emoji.
      expect([...page.images].sort()).toEqual(CONTENT_IMAGES.map(at).sort())
      const body = page.images.filter((u: string) => !u.includes('tunnel-640'))
      expect(body).toEqual([at('/media/2024/boring-machine.jpg'), at('/media/2024/route-map.png'), at('/media/2024/crowd-960.jpg')])

      // Links: the article's own first, in reading order, a repeated one once with its first text.
      const urls = page.links.map((l: Link) => l.url)
      expect(page.links.slice(0, 2)).toEqual([
        { url: 'https://transport.example.gov/reports/harbour-tunnel.pdf', text: 'the engineering report' },
        { url: at('/city/tunnel-history'), text: "the tunnel's long history" },
      ])
      // Then navigation, banner, byline, related list, sidebar and footer, in document order.
      const rest = [
        { url: at('/'), text: 'The Daily Example' }, // an image-only link is named by its alt text
        { url: at('/news/'), text: 'News' },
        { url: at('/city/'), text: 'City' },
        { url: at('/opinion/'), text: 'Opinion' },
        { url: 'https://shop.example-news.test/subscribe?ref=nav', text: 'Subscribe' },
        { url: at('/authors/jane-doe'), text: 'Jane Doe' },
        { url: at('/city/bridge-closure'), text: 'Bridge closes for repairs' },
        { url: at('/city/ferry-timetable'), text: 'New ferry timetable' },
        { url: 'https://data.example.org/traffic-counts', text: 'Traffic counts (Open Data)' },
        { url: 'https://ads.example.net/click?id=9', text: 'Advertisement' },
        { url: at('/about'), text: 'About us' },
        { url: at('/privacy'), text: 'Privacy' },
        { url: 'https://twitter.com/dailyexample', text: 'Twitter' },
      ]
      for (const link of rest) expect(page.links).toContainEqual(link)
      const order = rest.map((l) => urls.indexOf(l.url))
      expect(order).toEqual([...order].sort((a, b) => a - b))
      expect(Math.min(...order)).toBeGreaterThanOrEqual(2)
      expect(page.links).toHaveLength(2 + rest.length)
      // Never: mailto:, javascript:, the page itself (#main, #top), <template> and <script> contents.
      expect(urls.join(' ')).not.toMatch(/mailto:|javascript:|never-rendered|from-script/)
    },
  )

  test('/v1/webpage answers the same lists as /v1/extract', async () => {
    const res = await post('/v1/webpage', { url: at('/news/harbour-tunnel'), format: 'text', include_links: true, include_images: true })
    expect(res.status).toBe(200)
    const page = await res.json()
    const viaExtract = (await (await post('/v1/extract', { urls: [at('/news/harbour-tunnel')], include_links: true, include_images: true })).json()).results[0]
    expectClean(page)
    expect(page.links).toEqual(viaExtract.links)
    expect(page.images).toEqual(viaExtract.images)
    // Each option alone answers only its own list.
    const linksOnly = await (await post('/v1/webpage', { url: at('/news/harbour-tunnel'), include_links: true })).json()
    expect(linksOnly.links).toEqual(viaExtract.links)
    expect(linksOnly).not.toHaveProperty('images')
    const imagesOnly = await (await post('/v1/webpage', { url: at('/news/harbour-tunnel'), include_images: true })).json()
    expect(imagesOnly.images).toEqual(viaExtract.images)
    expect(imagesOnly).not.toHaveProperty('links')
  })

  test('the Markdown names the same image URLs and drops beacons and placeholders', async () => {
    const page = (await (await post('/v1/webpage', { url: at('/news/harbour-tunnel'), include_images: true })).json()) as { markdown: string; images: string[] }
    const inMarkdown = [...page.markdown.matchAll(/!\[[^\]]*\]\(([^)]+)\)/g)].map((m) => m[1]!)
    for (const src of inMarkdown) expect(page.images).toContain(src)
    expect(page.markdown).not.toMatch(/facebook\.com\/tr|blank\.gif|data:image/)
    expect(page.markdown).toContain('2026 🚇 once') // an emoji image reads as its character
  })

  test('a page whose outbound links all sit outside the text still lists them', async () => {
    const [page] = (await (await post('/v1/extract', { urls: [at('/blog/sourdough')], include_links: true })).json()).results
    expect(page.markdown).toContain('Paragraph 3.')
    expect(page.links).toEqual([
      { url: 'https://www.kingarthurbaking.com/recipes/sourdough-starter', text: 'Sourdough starter' },
      { url: 'https://en.wikipedia.org/wiki/Sourdough', text: 'Sourdough on Wikipedia' },
      { url: 'https://creativecommons.org/licenses/by/4.0/', text: 'CC BY 4.0' },
    ])
  })
})

describe('include_links and include_images on real pages', () => {
  test('Ars Technica: the lead image outside the kept text, content links first, then the site navigation', async () => {
    const [page] = (await (await post('/v1/extract', { urls: [at('/corpus/ars')], include_links: true, include_images: true })).json()).results
    expectClean(page)
    expect(page.images).toEqual(['https://cdn.arstechnica.net/wp-content/uploads/2015/04/server-crash-640x426.jpg'])
    expect(page.links[0]).toEqual({ url: 'http://blog.ammaraskar.com/minecraft-vulnerability-advisory', text: 'blog post published Thursday' })
    const urls = page.links.map((l: Link) => l.url)
    expect(urls.indexOf(at('/gaming/'))).toBeGreaterThan(urls.indexOf('http://wiki.vg/NBT'))
    expect(page.links).toContainEqual({ url: at('/gaming/'), text: 'Gaming & Culture' })
    expect(page.links).toContainEqual({ url: at('/contact-us/'), text: 'Contact Us' })
    expect(page.links.length).toBeGreaterThan(40)
  })

  test('The Verge: a Next.js image by its largest srcset candidate, once despite its <noscript> twin', async () => {
    const [page] = (await (await post('/v1/extract', { urls: [at('/corpus/verge')], include_images: true })).json()).results
    expectClean(page)
    const vision = page.images.filter((u: string) => u.includes('24709784/Apple_WWDC23_Vision_Pro_VisionOS_screen.png'))
    expect(vision).toEqual([
      'https://duet-cdn.vox-cdn.com/thumbor/0x0:2400x1350/2400x1350/filters:focal(1200x675:1201x676):format(webp)/cdn.vox-cdn.com/uploads/chorus_asset/file/24709784/Apple_WWDC23_Vision_Pro_VisionOS_screen.png',
    ])
  })

  test('Wikipedia: formula images hidden from screen readers are still the page’s images', async () => {
    const [page] = (await (await post('/v1/extract', { urls: [at('/corpus/wiki-math')], include_images: true })).json()).results
    expectClean(page)
    expect(page.images.filter((u: string) => u.startsWith('https://wikimedia.org/api/rest_v1/media/math/render/svg/')).length).toBeGreaterThanOrEqual(45)
  })
})

describe('/v1/crawl with include_links', () => {
  let site: CrawlSite
  beforeAll(async () => {
    site = await startCrawlSite()
  })
  afterAll(() => site.close())

  async function crawl(body: Record<string, unknown>) {
    const res = await post('/v1/crawl', body)
    expect(res.status).toBe(202)
    const { id } = await res.json()
    for (const until = Date.now() + 20_000; Date.now() < until; await new Promise((r) => setTimeout(r, 100))) {
      const task = await (await fetch(`${trawl.base}/v1/crawl/${id}`, { headers: { authorization: `Bearer ${key}` } })).json()
      if (['completed', 'failed', 'canceled'].includes(task.status)) return task
    }
    throw new Error(`crawl ${id} did not end`)
  }

  test.each(['markdown', 'text'])('format %s: every page carries all its links, navigation included', async (format) => {
    const task = await crawl({ url: `${site.url}/`, format, include_links: true, sitemap: 'skip', max_depth: 1, limit: 4 })
    expect(task.status).toBe('completed')
    const pages = task.result.pages as { url: string; links: Link[]; [k: string]: unknown }[]
    expect(pages).toHaveLength(4)
    for (const p of pages) {
      expect(typeof p[format]).toBe('string')
      expect(p.links.length).toBeGreaterThan(0)
      expectClean(p)
    }
    const home = pages.find((p) => p.url === `${site.url}/`)!
    // The reader reads the article's list of same-site links as navigation and keeps it out of the
    // text, so nothing comes "first": the menu, then the list, in document order; links as written
    // (with their own query and fragment), each once with its first text.
    expect(home.links.map((l) => l.url)).toEqual(
      ['/about', '/blog/', '/blog/post-1?utm_source=newsletter', '/blog/post-1#comments', '/old', '/private/secret', '/slow', '/doc.pdf']
        .map((path) => `${site.url}${path}`)
        .concat(['http://other.example/elsewhere', `${site.url}/docs/guide`]),
    )
    expect(home.links.slice(0, 2)).toEqual([
      { url: `${site.url}/about`, text: 'About' },
      { url: `${site.url}/blog/`, text: 'Blog' },
    ])
    const about = pages.find((p) => p.url === `${site.url}/about`)!
    // The menu's link to /about itself is left out; the list's link home repeats the menu's.
    expect(about.links).toEqual([
      { url: `${site.url}/`, text: 'Home' },
      { url: `${site.url}/blog/`, text: 'Blog' },
    ])
  })

  test('without include_links pages carry no links', async () => {
    const task = await crawl({ url: `${site.url}/`, format: 'text', sitemap: 'skip', max_depth: 0 })
    expect(task.result.pages[0]).not.toHaveProperty('links')
  })
})
