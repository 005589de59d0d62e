import { once } from 'node:events'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { gzipSync } from 'node:zlib'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { safeFetch } from '../../net/safe-fetch.ts'
import { loadRobots } from '../robots/robots.load.ts'
import { collectSitemaps, type SitemapLimits } from './sitemap.collect.ts'
import { parseSitemap } from './sitemap.parse.ts'

/**
 * Whole-site sitemap scenarios. They were modelled on the behaviours covered by
 * ultimate-sitemap-parser's test suite (robots.txt discovery, indexes, gzip, plain text, RSS/Atom,
 * redirects, recursion, BOMs, truncation, hreflang…), with bodies written for this project: every
 * file below is constructed here, small, and under the project's licence.
 *
 * Each scenario is a small fake site on a loopback server. We find the start sitemaps as /v1/map
 * does (robots.txt Sitemap lines, else /sitemap.xml), walk them with collectSitemaps over
 * safeFetch, and compare the page URLs, their lastmod and the number of sitemaps read.
 */
const HOME = 'http://shop.trawl.test'

interface Route {
  status?: number
  headers?: Record<string, string>
  body?: string | Buffer
}
/** A fake site: path -> response. Anything else answers 404 text/html. */
type Site = Record<string, Route>

let server: Server
let origin = ''
let routes: Site = {}
/** Paths the server was asked for during the current walk, in arrival order. */
const requested: string[] = []

const toLocal = (url: string) => url.replace(HOME, origin)
const toRemote = (url: string) => url.replace(origin, HOME)

beforeAll(async () => {
  server = createServer((req, res) => {
    const path = req.url ?? '/'
    requested.push(path)
    const route = routes[path]
    if (!route) return res.writeHead(404, { 'content-type': 'text/html' }).end('<h1>Not here</h1>')
    const headers: Record<string, string> = {}
    for (const [k, v] of Object.entries(route.headers ?? {})) headers[k.toLowerCase()] = k.toLowerCase() === 'location' ? toLocal(v) : v
    res.writeHead(route.status ?? 200, headers).end(route.body ?? '')
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})
afterAll(() => {
  server.close()
})

/** As site.discovery's sitemap fetcher does, but every URL of HOME is sent to the loopback server. */
const fetchOpts = { allowPrivateNetwork: true, timeoutMs: 5000, maxBytes: 50 * 1024 * 1024, anyContentType: true } as const

async function fetchBody(url: string, opts: { signal: AbortSignal }) {
  const r = await safeFetch(toLocal(url), { ...fetchOpts, signal: opts.signal })
  return { body: r.body, contentType: r.headers['content-type'], url: toRemote(r.url) }
}

/** What /v1/map starts from: the sitemaps robots.txt names, or /sitemap.xml when it names none. */
async function startSitemaps(): Promise<string[]> {
  const robots = await loadRobots(origin, { allowPrivateNetwork: true, timeoutMs: 5000 })
  const named = robots.sitemaps.map(toRemote)
  return named.length ? named : [`${HOME}/sitemap.xml`]
}

/** /v1/map's limits (its maxUrls is at most 2 x 5,000). */
const MAP_LIMITS = { maxDepth: 3, maxSitemaps: 50, maxUrls: 10_000 }

async function walk(site: Site, over: Partial<SitemapLimits> = {}) {
  routes = site
  requested.length = 0
  const result = await collectSitemaps(await startSitemaps(), fetchBody, { ...MAP_LIMITS, deadline: Date.now() + 20_000, ...over })
  return {
    pages: Object.fromEntries(result.entries.map((e) => [e.url, e.lastmod])) as Record<string, string | undefined>,
    read: result.sitemapsRead,
    errors: result.errors,
    stopped: result.stopped,
    entries: result.entries,
    requested: [...requested],
  }
}

const timesRequested = (paths: string[], path: string) => paths.filter((p) => p === path).length

// ---- bodies -------------------------------------------------------------------------------------

const XML_DECL = '<?xml version="1.0" encoding="UTF-8"?>\n'
const SM_NS = 'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"'
const NEWS_NS = 'xmlns:news="http://www.google.com/schemas/sitemap-news/0.9"'

const urlset = (entries: string[], extraNs = '') => `${XML_DECL}<urlset ${SM_NS}${extraNs ? ` ${extraNs}` : ''}>\n${entries.join('')}</urlset>\n`
const url = (path: string, lastmod?: string) => `  <url>\n    <loc>${HOME}${path}</loc>\n${lastmod ? `    <lastmod>${lastmod}</lastmod>\n` : ''}  </url>\n`
const sitemapIndex = (...paths: string[]) =>
  `${XML_DECL}<sitemapindex ${SM_NS}>\n${paths.map((p) => `  <sitemap><loc>${HOME}${p}</loc></sitemap>\n`).join('')}</sitemapindex>\n`
/** A Google News entry: its publication date is the story's, not a lastmod. */
const newsUrl = (path: string, title: string) =>
  `  <url>\n    <loc>${HOME}${path}</loc>\n    <news:news>\n      <news:publication><news:name>Trawl Gazette</news:name><news:language>en</news:language></news:publication>\n` +
  `      <news:publication_date>2022-06-01T08:30:00Z</news:publication_date>\n      <news:title>${title}</news:title>\n    </news:news>\n  </url>\n`
const robotsTxt = (...lines: string[]) => ['User-agent: *', 'Disallow: /cart/', '', ...lines, ''].join('\n')

const HOME_PAGE: Route = {
  headers: { 'content-type': 'text/html; charset=utf-8' },
  body: `<!doctype html><html><head><title>Shop</title></head><body><a href="${HOME}/about.html">About</a></body></html>`,
}
const xmlRoute = (body: string | Buffer, contentType = 'application/xml'): Route => ({ headers: { 'content-type': contentType }, body })
const textRoute = (body: string): Route => ({ headers: { 'content-type': 'text/plain' }, body })
const redirect = (to: string, status = 301): Route => ({ status, headers: { location: `${HOME}${to}` } })

// ---- scenarios ----------------------------------------------------------------------------------

describe('sitemap scenarios', () => {
  test('sitemap from a string: urlset pages with lastmod as written', () => {
    const body = urlset([
      `  <url><loc>${HOME}/about.html</loc><lastmod>2021-03-04T10:20:30+01:00</lastmod><changefreq>monthly</changefreq><priority>0.8</priority></url>\n`,
      `  <url><loc>${HOME}/contact.html</loc><lastmod>2021-03-04</lastmod><changefreq>always</changefreq><priority>0.5</priority></url>\n`,
    ])
    expect(parseSitemap(Buffer.from(body))).toEqual({
      kind: 'urlset',
      urls: [
        { url: `${HOME}/about.html`, lastmod: '2021-03-04T10:20:30+01:00' },
        { url: `${HOME}/contact.html`, lastmod: '2021-03-04' },
      ],
      sitemaps: [],
    })
  })

  test('basic tree: robots.txt sitemaps, nested indexes, gzip both ways, plain text, RSS and Atom', async () => {
    const rss = `${XML_DECL}<rss version="2.0"><channel><title>Shop blog</title><link>${HOME}/blog/</link><description>News</description>
  <image><url>${HOME}/logo.png</url><title>Shop</title><link>${HOME}/</link></image>
  <item><title>Spring sale</title><link>${HOME}/blog/spring-sale.html</link><pubDate>Tue, 02 Mar 2021 09:00:00 +0000</pubDate></item>
  <item><title>Opening hours</title><guid isPermaLink="true">${HOME}/blog/hours.html</guid></item>
</channel></rss>\n`
    const atom10 = `${XML_DECL}<feed xmlns="http://www.w3.org/2005/Atom"><title>Shop updates</title><id>${HOME}/</id><link href="${HOME}/" /><updated>2021-03-05T08:00:00Z</updated>
  <entry><title>New range</title><id>urn:trawl:1</id><link rel="alternate" href="${HOME}/updates/new-range.html" /><updated>2021-03-05T08:00:00Z</updated></entry>
</feed>\n`
    const atom03 = `${XML_DECL}<feed version="0.3" xmlns="http://purl.org/atom/ns#"><title>Old updates</title><link rel="alternate" type="text/html" href="${HOME}/" /><modified>2004-01-01T00:00:00Z</modified>
  <entry><title>Moved</title><link rel="alternate" type="text/html" href="${HOME}/updates/moved.html" /><issued>2004-01-01T00:00:00Z</issued><modified>2004-01-02T00:00:00Z</modified></entry>
</feed>\n`
    const site: Site = {
      '/': HOME_PAGE,
      '/robots.txt': textRoute(
        robotsTxt(
          `Sitemap: ${HOME}/sitemap_pages.xml`,
          `Sitemap: ${HOME}/sitemap_news_index_1.xml`,
          `Sitemap: ${HOME}/sitemap.txt`,
          `Sitemap: ${HOME}/feed.rss`,
          `Sitemap: ${HOME}/feed_atom_1_0.xml`,
          `Sitemap: ${HOME}/feed_atom_0_3.xml`,
        ),
      ),
      '/sitemap_pages.xml': xmlRoute(urlset([url('/about.html', '2021-03-04T10:20:30+01:00'), url('/contact.html', '2021-03-04')])),
      '/sitemap_news_index_1.xml': xmlRoute(sitemapIndex('/sitemap_news_1.xml', '/sitemap_news_index_2.xml')),
      '/sitemap_news_1.xml': xmlRoute(urlset([newsUrl('/news/alpha.html', 'Alpha &amp; omega'), newsUrl('/news/beta.html', 'Beta &lt;b&gt;')], NEWS_NS)),
      '/sitemap_news_index_2.xml': xmlRoute(sitemapIndex('/sitemap_news_2.xml.gz', '/sitemap_news_3.xml.gz', '/sitemap_news_missing.xml')),
      // A gzip file as such: no Content-Encoding, the body itself is gzip.
      '/sitemap_news_2.xml.gz': xmlRoute(
        gzipSync(urlset([newsUrl('/news/beta.html', 'Beta again'), newsUrl('/news/gamma.html', 'Gamma')], NEWS_NS)),
        'application/x-gzip',
      ),
      // The transport is gzip (Content-Encoding): the fetcher undoes it.
      '/sitemap_news_3.xml.gz': {
        headers: { 'content-type': 'application/xml', 'content-encoding': 'gzip' },
        body: gzipSync(urlset([newsUrl('/news/delta.html', 'Delta'), newsUrl('/news/żółw.html', 'Żółw')], NEWS_NS)),
      },
      '/sitemap.txt': textRoute(`${HOME}/docs/start.html\n\n   ${HOME}/docs/faq.html   \r\nnot a URL\n${HOME}/about.html\n`),
      '/feed.rss': xmlRoute(rss, 'application/rss+xml'),
      '/feed_atom_1_0.xml': xmlRoute(atom10, 'application/atom+xml'),
      '/feed_atom_0_3.xml': xmlRoute(atom03, 'application/atom+xml'),
    }
    const got = await walk(site)
    expect(got.pages).toEqual({
      // robots.txt order first, then each index level in listing order; the first listing of a URL wins.
      [`${HOME}/about.html`]: '2021-03-04T10:20:30+01:00',
      [`${HOME}/contact.html`]: '2021-03-04',
      [`${HOME}/docs/start.html`]: undefined,
      [`${HOME}/docs/faq.html`]: undefined,
      [`${HOME}/blog/spring-sale.html`]: 'Tue, 02 Mar 2021 09:00:00 +0000',
      [`${HOME}/blog/hours.html`]: undefined,
      [`${HOME}/updates/new-range.html`]: '2021-03-05T08:00:00Z',
      [`${HOME}/updates/moved.html`]: '2004-01-02T00:00:00Z',
      [`${HOME}/news/alpha.html`]: undefined,
      [`${HOME}/news/beta.html`]: undefined,
      [`${HOME}/news/gamma.html`]: undefined,
      [`${HOME}/news/delta.html`]: undefined,
      [`${HOME}/news/%C5%BC%C3%B3%C5%82w.html`]: undefined,
    })
    expect(Object.keys(got.pages)).toEqual(got.entries.map((e) => e.url))
    expect(Object.keys(got.pages).slice(0, 2)).toEqual([`${HOME}/about.html`, `${HOME}/contact.html`])
    expect(got.entries.find((e) => e.url.endsWith('/gamma.html'))?.sitemap).toBe(`${HOME}/sitemap_news_2.xml.gz`)
    expect(got.entries.find((e) => e.url.endsWith('/delta.html'))?.sitemap).toBe(`${HOME}/sitemap_news_3.xml.gz`)
    // Every sitemap but the missing one: 6 named in robots.txt, 2 at level 1, 2 at level 2.
    expect(got.read).toBe(10)
    expect(got.errors).toEqual([`${HOME}/sitemap_news_missing.xml: page answered HTTP 404`])
    expect(got.stopped).toBeUndefined()
    // The home page is not a sitemap source, and nothing is fetched twice.
    expect(got.requested).not.toContain('/')
    expect(new Set(got.requested).size).toBe(got.requested.length)
  })

  test('301 redirect back to the root sitemap, or to the home page: no loop, not a sitemap', async () => {
    const back = await walk({
      '/': HOME_PAGE,
      '/robots.txt': textRoute(robotsTxt(`Sitemap: ${HOME}/sitemap.xml`)),
      '/sitemap.xml': xmlRoute(sitemapIndex('/sitemap_redir.xml', '/sitemap_posts.xml')),
      '/sitemap_redir.xml': redirect('/sitemap.xml'),
      '/sitemap_posts.xml': xmlRoute(urlset([url('/posts/1.html')])),
    })
    expect(back.pages).toEqual({ [`${HOME}/posts/1.html`]: undefined })
    expect(back.read).toBe(2)
    expect(back.errors).toEqual([`${HOME}/sitemap_redir.xml: redirects to ${HOME}/sitemap.xml, which is already read`])

    const home = await walk({
      '/': HOME_PAGE,
      '/robots.txt': textRoute(robotsTxt()),
      '/sitemap.xml': redirect('/'),
    })
    // The home page's links are /v1/map's start-page links, never sitemap entries.
    expect([home.pages, home.read]).toEqual([{}, 0])
    expect(home.errors).toEqual([`${HOME}/sitemap.xml: not a sitemap`])
    expect(home.requested).toEqual(['/robots.txt', '/sitemap.xml', '/'])
  })

  test('known-path redirects: a second name for the same sitemap is read once; unlisted paths are not probed', async () => {
    const listed = await walk({
      '/robots.txt': textRoute(robotsTxt(`Sitemap: ${HOME}/sitemap.xml`, `Sitemap: ${HOME}/sitemap-index.xml`)),
      '/sitemap.xml': xmlRoute(urlset([url('/about.html', '2021-03-04')])),
      '/sitemap-index.xml': redirect('/sitemap.xml'),
      // Not named in robots.txt: map reads only the sitemaps robots.txt names (or /sitemap.xml).
      '/sitemap_index.xml': xmlRoute(urlset([url('/unlisted.html')])),
    })
    expect(listed.pages).toEqual({ [`${HOME}/about.html`]: '2021-03-04' })
    expect(listed.read).toBe(1)
    expect(listed.errors).toEqual([`${HOME}/sitemap-index.xml: redirects to ${HOME}/sitemap.xml, which is already read`])
    expect(listed.requested).not.toContain('/sitemap_index.xml')

    // No Sitemap line: /sitemap.xml moved to /sitemap_index.xml, which lists itself and its old name.
    const moved = await walk({
      '/robots.txt': textRoute(robotsTxt()),
      '/sitemap.xml': redirect('/sitemap_index.xml', 302),
      '/sitemap_index.xml': xmlRoute(sitemapIndex('/sitemap.xml', '/sitemap_index.xml', '/sitemap_pages.xml')),
      '/sitemap_pages.xml': xmlRoute(urlset([url('/about.html')])),
    })
    expect(moved.pages).toEqual({ [`${HOME}/about.html`]: undefined })
    expect(moved.read).toBe(2)
    expect(moved.errors).toEqual([])
    expect(moved.requested).toEqual(['/robots.txt', '/sitemap.xml', '/sitemap_index.xml', '/sitemap_pages.xml'])
  })

  test('huge sitemap: 60,000 URLs in one gzip file, cut at the URL cap', async () => {
    const total = 60_000
    const entries = Array.from({ length: total }, (_, i) => `<url><loc>${HOME}/news/page_${i}.html</loc></url>\n`)
    const body = gzipSync(`${XML_DECL}<urlset ${SM_NS}>\n${entries.join('')}</urlset>\n`)
    const site: Site = {
      '/': HOME_PAGE,
      '/robots.txt': textRoute(robotsTxt(`Sitemap: ${HOME}/sitemap.xml.gz`)),
      '/sitemap.xml.gz': xmlRoute(body, 'application/x-gzip'),
    }
    // /v1/map's largest cap.
    const capped = await walk(site)
    expect(capped.entries.length).toBe(MAP_LIMITS.maxUrls)
    expect(capped.entries[0]!.url).toBe(`${HOME}/news/page_0.html`)
    expect(capped.entries.at(-1)!.url).toBe(`${HOME}/news/page_${MAP_LIMITS.maxUrls - 1}.html`)
    expect([capped.read, capped.stopped, capped.errors]).toEqual([1, 'max_urls', []])

    // With room for all of them, every URL is kept (the protocol's 50,000 per file is not enforced).
    const all = await walk(site, { maxUrls: 100_000 })
    expect(all.entries.length).toBe(total)
    expect(all.entries.at(-1)!.url).toBe(`${HOME}/news/page_${total - 1}.html`)
    expect([all.read, all.stopped, all.errors]).toEqual([1, undefined, []])
  })

  test('max recursion: an index listing itself, and a chain deeper than maxDepth', async () => {
    const self = await walk({
      '/robots.txt': textRoute(robotsTxt(`Sitemap: ${HOME}/sitemap.xml`)),
      '/sitemap.xml': xmlRoute(sitemapIndex('/sitemap.xml', '/sitemap.xml#again')),
    })
    expect([self.pages, self.read, self.errors]).toEqual([{}, 1, []])
    expect(timesRequested(self.requested, '/sitemap.xml')).toBe(1)

    const chain = await walk({
      '/robots.txt': textRoute(robotsTxt(`Sitemap: ${HOME}/sitemap.xml`)),
      '/sitemap.xml': xmlRoute(sitemapIndex('/level_1.xml')),
      '/level_1.xml': xmlRoute(sitemapIndex('/level_2.xml')),
      // Back to the top (a cycle), a urlset at the last level followed, and deeper still.
      '/level_2.xml': xmlRoute(sitemapIndex('/sitemap.xml', '/pages_3.xml', '/level_3.xml')),
      '/pages_3.xml': xmlRoute(urlset([url('/shallow.html')])),
      '/level_3.xml': xmlRoute(sitemapIndex('/level_4.xml')),
      '/level_4.xml': xmlRoute(sitemapIndex('/level_5.xml')),
      '/level_5.xml': xmlRoute(urlset([url('/deep.html')])),
    })
    expect(chain.pages).toEqual({ [`${HOME}/shallow.html`]: undefined })
    expect(chain.read).toBe(5)
    expect(chain.errors).toEqual([`${HOME}/level_4.xml: sitemap indexes nested deeper than ${MAP_LIMITS.maxDepth} levels are not followed`])
    expect(chain.requested).not.toContain('/level_4.xml')
    expect(timesRequested(chain.requested, '/sitemap.xml')).toBe(1)
  })

  test('UTF-8 BOM before the XML declaration, served without a content type', async () => {
    const body = Buffer.concat([
      Buffer.from([0xef, 0xbb, 0xbf]),
      Buffer.from(urlset([newsUrl('/news/first.html', 'Zürich &amp; Genève'), url('/über.html', '2023-07-01')], NEWS_NS)),
    ])
    const got = await walk({
      '/': HOME_PAGE,
      '/robots.txt': textRoute(robotsTxt(`Sitemap: ${HOME}/sitemap.xml`)),
      '/sitemap.xml': { body },
    })
    expect(got.pages).toEqual({ [`${HOME}/news/first.html`]: undefined, [`${HOME}/%C3%BCber.html`]: '2023-07-01' })
    expect([got.read, got.errors]).toEqual([1, []])
  })

  test('truncated sitemap missing </urlset>: the entries before the cut are kept', async () => {
    const complete = Array.from({ length: 50 }, (_, i) => url(`/page_${i}.html`)).join('')
    const body = `${XML_DECL}<urlset ${SM_NS}>\n${complete}  <url>\n    <loc>${HOME}/page_5`
    const got = await walk({
      '/robots.txt': textRoute(robotsTxt(`Sitemap: ${HOME}/sitemap.xml`)),
      '/sitemap.xml': xmlRoute(body),
    })
    // The 51st URL was cut mid-value: a wrong /page_5 is worse than none.
    expect(Object.keys(got.pages)).toEqual(Array.from({ length: 50 }, (_, i) => `${HOME}/page_${i}.html`))
    expect([got.read, got.errors]).toEqual([1, []])
  })

  test('no robots.txt (404): /sitemap.xml is tried, and nothing else', async () => {
    const none = await walk({ '/': HOME_PAGE })
    expect([none.pages, none.read]).toEqual([{}, 0])
    expect(none.errors).toEqual([`${HOME}/sitemap.xml: page answered HTTP 404`])
    expect(none.requested).toEqual(['/robots.txt', '/sitemap.xml'])

    const fallback = await walk({ '/': HOME_PAGE, '/sitemap.xml': xmlRoute(urlset([url('/about.html', '2020-01-01')])) })
    expect([fallback.pages, fallback.read, fallback.errors]).toEqual([{ [`${HOME}/about.html`]: '2020-01-01' }, 1, []])
  })

  test('robots.txt with odd spacing and case in its Sitemap lines', async () => {
    const robots = [
      'User-agent: *',
      'Disallow: /cart/',
      '',
      `   SiteMap    :    ${HOME}/sitemap_a.xml   `,
      `sitemap:${HOME}/sitemap_b.xml`,
      `\tSITEMAP\t:\t${HOME}/sitemap_c.xml   # the archive`,
      `Sitemap :  ${HOME}/sitemap_a.xml`,
      '',
    ].join('\r\n')
    const got = await walk({
      '/': HOME_PAGE,
      '/robots.txt': textRoute(robots),
      '/sitemap_a.xml': xmlRoute(urlset([newsUrl('/news/first.html', 'First')], NEWS_NS)),
      '/sitemap_b.xml': xmlRoute(urlset([url('/b.html')])),
      '/sitemap_c.xml': xmlRoute(urlset([url('/c.html')])),
    })
    expect(got.pages).toEqual({ [`${HOME}/news/first.html`]: undefined, [`${HOME}/b.html`]: undefined, [`${HOME}/c.html`]: undefined })
    expect([got.read, got.errors]).toEqual([3, []])
    expect(got.requested).not.toContain('/sitemap.xml')
  })

  test('empty RSS and Atom feeds are sitemaps with no pages; feed-level links are not pages', async () => {
    const got = await walk({
      '/': HOME_PAGE,
      '/robots.txt': textRoute(robotsTxt(`Sitemap: ${HOME}/feed.rss`, `Sitemap: ${HOME}/feed_atom_0_3.xml`, `Sitemap: ${HOME}/feed_atom_1_0.xml`)),
      '/feed.rss': xmlRoute(
        `${XML_DECL}<rss version="2.0"><channel><title>Quiet blog</title><link>${HOME}/blog/</link><description>Nothing yet</description>` +
          `<image><url>${HOME}/logo.png</url><title>Logo</title><link>${HOME}/</link></image></channel></rss>\n`,
        'application/rss+xml',
      ),
      '/feed_atom_0_3.xml': xmlRoute(
        `${XML_DECL}<feed version="0.3" xmlns="http://purl.org/atom/ns#"><title>Quiet</title><link rel="alternate" type="text/html" href="${HOME}/" />` +
          '<modified>2020-01-01T00:00:00Z</modified></feed>\n',
        'application/atom+xml',
      ),
      '/feed_atom_1_0.xml': xmlRoute(
        `${XML_DECL}<feed xmlns="http://www.w3.org/2005/Atom"><title>Quiet</title><id>${HOME}/</id><link href="${HOME}/" />` +
          '<updated>2020-01-01T00:00:00Z</updated></feed>\n',
        'application/atom+xml',
      ),
    })
    expect([got.pages, got.read, got.errors]).toEqual([{}, 3, []])
  })

  test('no sitemap at all: robots.txt names none and /sitemap.xml is missing', async () => {
    const got = await walk({ '/': HOME_PAGE, '/robots.txt': textRoute(robotsTxt()) })
    expect([got.pages, got.read, got.stopped]).toEqual([{}, 0, undefined])
    expect(got.errors).toEqual([`${HOME}/sitemap.xml: page answered HTTP 404`])
    expect(got.requested).toEqual(['/robots.txt', '/sitemap.xml'])
  })

  test('hreflang alternates (xhtml:link) in a urlset: the listed pages, alternates kept aside', async () => {
    const links = ['en', 'fr'].map((l) => `    <xhtml:link rel="alternate" hreflang="${l}" href="${HOME}/${l}/page" />\n`).join('')
    const xDefault = `    <xhtml:link rel="alternate" hreflang="x-default" href="${HOME}/page" />\n`
    const entry = (lang: string) =>
      `  <url>\n    <loc>${HOME}/${lang}/page</loc>\n    <lastmod>2022-02-02T02:02:02+02:00</lastmod>\n${links}${xDefault}    <priority>0.8</priority>\n  </url>\n`
    const body = urlset([entry('en'), entry('fr')], 'xmlns:xhtml="http://www.w3.org/1999/xhtml"')
    const got = await walk({
      '/robots.txt': textRoute(robotsTxt(`Sitemap: ${HOME}/sitemap.xml`)),
      '/sitemap.xml': xmlRoute(body, 'text/xml'),
    })
    expect(got.pages).toEqual({ [`${HOME}/en/page`]: '2022-02-02T02:02:02+02:00', [`${HOME}/fr/page`]: '2022-02-02T02:02:02+02:00' })
    expect([got.read, got.errors]).toEqual([1, []])
    expect(parseSitemap(Buffer.from(body)).urls[0]!.alternates).toEqual([`${HOME}/en/page`, `${HOME}/fr/page`, `${HOME}/page`])
  })
})
