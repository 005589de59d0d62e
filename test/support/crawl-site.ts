import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { gzipSync } from 'node:zlib'
import { readFixture } from './fixtures.ts'

/**
 * A small site on 127.0.0.1 for map and crawl tests: robots.txt with a disallowed section and a
 * sitemap index naming sitemaps of every kind (XML, gzip, RSS, text), article pages, duplicates
 * by tracking parameters, fragments and trailing slashes, a redirect, a PDF, a slow page.
 */
export interface CrawlSite {
  url: string
  /** Paths requested, in order. */
  requests: string[]
  /** Override one path's answer (status and body), e.g. robots.txt answering 503. */
  set(path: string, answer: { status: number; body?: string; type?: string; delayMs?: number }): void
  /** Back to the page's normal answer. */
  reset(path: string): void
  close(): Promise<void>
}

const PDF = readFixture('corpora/pdfs-pypdf/resources/crazyones.pdf')

const paragraph = (topic: string, n: number) =>
  `<p>${topic} paragraph ${n}. This is a real article about ${topic} with enough words in it for a reader to keep it as content: it explains, argues, gives examples and draws a conclusion that a person would want to read from start to end, sentence after sentence.</p>`

export const article = (title: string, links: string[] = []) =>
  `<!doctype html><html><head><title>${title}</title></head><body>
<nav><a href="/">Home</a> <a href="/about">About</a> <a href="/blog/">Blog</a></nav>
<article><h1>${title}</h1>${[1, 2, 3].map((n) => paragraph(title, n)).join('')}
<ul>${links.map((l) => `<li><a href="${l}">${l}</a></li>`).join('')}</ul></article>
<footer>© Example</footer></body></html>`

export async function startCrawlSite(): Promise<CrawlSite> {
  const requests: string[] = []
  const overrides = new Map<string, { status: number; body?: string; type?: string; delayMs?: number }>()
  let base = ''
  const pages: Record<string, () => { status: number; body: string | Buffer; type: string; headers?: Record<string, string> }> = {
    '/robots.txt': () => ({ status: 200, type: 'text/plain', body: `User-agent: *\nDisallow: /private/\n\nSitemap: ${base}/sitemap_index.xml\n` }),
    '/sitemap_index.xml': () => ({
      status: 200,
      type: 'application/xml',
      body: `<?xml version="1.0" encoding="UTF-8"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
<sitemap><loc>${base}/sitemap-pages.xml</loc></sitemap><sitemap><loc>${base}/sitemap-news.xml.gz</loc></sitemap>
<sitemap><loc>${base}/feed.rss</loc></sitemap><sitemap><loc>${base}/sitemap.txt</loc></sitemap></sitemapindex>`,
    }),
    '/sitemap-pages.xml': () => ({
      status: 200,
      type: 'application/xml',
      body: `<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
<url><loc>${base}/</loc></url><url><loc>${base}/about</loc></url>
<url><loc>${base}/blog/post-1</loc><lastmod>2024-01-02</lastmod></url><url><loc>${base}/private/secret</loc></url></urlset>`,
    }),
    '/sitemap-news.xml.gz': () => ({
      status: 200,
      type: 'application/gzip',
      body: gzipSync(
        `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>${base}/news/a</loc></url><url><loc>${base}/news/b</loc></url></urlset>`,
      ),
    }),
    '/feed.rss': () => ({
      status: 200,
      type: 'application/rss+xml',
      body: `<?xml version="1.0"?><rss version="2.0"><channel><title>Blog</title><link>${base}/blog/</link>
<item><title>Post two</title><link>${base}/blog/post-2</link><pubDate>Tue, 02 Jan 2024 10:00:00 GMT</pubDate></item></channel></rss>`,
    }),
    '/sitemap.txt': () => ({ status: 200, type: 'text/plain', body: `${base}/docs/guide\n${base}/docs/api\n` }),
    '/': () => ({
      status: 200,
      type: 'text/html',
      body: article('Welcome home', [
        '/about',
        '/blog/',
        '/blog/post-1?utm_source=newsletter',
        '/blog/post-1#comments',
        '/old',
        '/private/secret',
        '/slow',
        '/doc.pdf',
        'http://other.example/elsewhere',
        '/docs/guide',
      ]),
    }),
    '/about': () => ({ status: 200, type: 'text/html', body: article('About the example site', ['/']) }),
    '/blog/': () => ({ status: 200, type: 'text/html', body: article('Blog index', ['/blog/post-1', '/blog/post-2']) }),
    '/blog/post-1': () => ({ status: 200, type: 'text/html', body: article('First post about gardening', ['/blog/']) }),
    '/blog/post-2': () => ({ status: 200, type: 'text/html', body: article('Second post about cooking', ['/blog/']) }),
    '/news/a': () => ({ status: 200, type: 'text/html', body: article('News item A') }),
    '/news/b': () => ({ status: 200, type: 'text/html', body: article('News item B') }),
    '/docs/guide': () => ({ status: 200, type: 'text/html', body: article('User guide', ['/docs/api']) }),
    '/docs/api': () => ({ status: 200, type: 'text/html', body: article('API reference') }),
    '/private/secret': () => ({ status: 200, type: 'text/html', body: article('Secret page') }),
    '/old': () => ({ status: 301, type: 'text/html', body: '', headers: { location: '/about' } }),
    '/doc.pdf': () => ({ status: 200, type: 'application/pdf', body: PDF }),
    '/slow': () => ({ status: 200, type: 'text/html', body: article('A slow page') }),
  }
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('#')[0]!
    requests.push(path)
    const bare = path.split('?')[0]!
    const override = overrides.get(bare)
    const answer = override
      ? { status: override.status, body: override.body ?? '', type: override.type ?? 'text/html' }
      : (pages[bare]?.() ?? { status: 404, body: 'not found', type: 'text/plain' })
    const delay = override?.delayMs ?? (bare === '/slow' ? 1500 : 0)
    setTimeout(() => {
      if (res.destroyed) return
      res.writeHead(answer.status, { 'content-type': answer.type, ...('headers' in answer ? answer.headers : {}) })
      res.end(answer.body)
    }, delay)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return {
    url: base,
    requests,
    set: (path, answer) => void overrides.set(path, answer),
    reset: (path) => void overrides.delete(path),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
