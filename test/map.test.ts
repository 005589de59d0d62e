import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { errorOf, expectBooksBalanced } from './support/books.ts'
import { type CrawlSite, startCrawlSite } from './support/crawl-site.ts'
import { freePort } from './support/free-port.ts'
import { startTrawl, type Trawl } from './support/start-trawl.ts'

let site: CrawlSite
let trawl: Trawl
let key: string
beforeAll(async () => {
  site = await startCrawlSite()
  trawl = await startTrawl({ TRAWL_ALLOW_PRIVATE_NETWORK: 'true' })
  key = (await trawl.account({ plan: 'pro', credits: 100 })).key
})
afterAll(async () => {
  await trawl.close()
  await site.close()
})

const map = (body: Record<string, unknown>, k = key) =>
  fetch(`${trawl.base}/v1/map`, { method: 'POST', headers: { authorization: `Bearer ${k}`, 'content-type': 'application/json' }, body: JSON.stringify(body) })
const paths = (results: { url: string }[]) => results.map((r) => new URL(r.url).pathname).sort()

describe('POST /v1/map', () => {
  test('lists sitemap URLs (index, XML, gzip, RSS, text) and start-page links, cleaned and de-duplicated, for 1 credit', async () => {
    const res = await map({ url: `${site.url}/` })
    expect(res.status).toBe(200)
    expect(res.headers.get('x-credits-used')).toBe('1')
    const body = await res.json()
    expect(paths(body.results)).toEqual(
      [
        '/',
        '/about',
        '/blog/',
        '/blog/post-1',
        '/blog/post-2',
        '/doc.pdf',
        '/docs/api',
        '/docs/guide',
        '/news/a',
        '/news/b',
        '/old',
        '/private/secret',
        '/slow',
      ].sort(),
    )
    const post1 = body.results.find((r: { url: string }) => r.url.endsWith('/blog/post-1'))
    expect(post1).toMatchObject({ url: `${site.url}/blog/post-1`, lastmod: '2024-01-02', source: 'sitemap' })
    expect(body.results.find((r: { url: string }) => r.url.endsWith('/news/a')).source).toBe('sitemap')
    expect(body.results.find((r: { url: string }) => r.url.endsWith('/slow'))).toMatchObject({ source: 'page', title: '/slow' })
    expect(body.results.map((r: { url: string }) => r.url).join(' ')).not.toMatch(/utm_source|#comments|other\.example/)
    expect(body.meta).toMatchObject({ credits_used: 1, count: 13 })
    expect(body.request).toMatchObject({ url: `${site.url}/`, limit: 100, sitemap: 'include', include_subdomains: false })
  })

  test('sitemap=only reads sitemaps alone; sitemap=skip only the start page links', async () => {
    const only = await (await map({ url: site.url, sitemap: 'only' })).json()
    expect(only.results.every((r: { source: string }) => r.source === 'sitemap')).toBe(true)
    expect(paths(only.results)).not.toContain('/old')
    const skip = await (await map({ url: site.url, sitemap: 'skip' })).json()
    expect(skip.results.every((r: { source: string }) => r.source === 'page')).toBe(true)
    expect(paths(skip.results)).not.toContain('/news/a')
  })

  test('search keeps only relevant URLs, most relevant first; filters and limit apply', async () => {
    const searched = await (await map({ url: site.url, search: 'post' })).json()
    expect(paths(searched.results)).toEqual(['/blog/post-1', '/blog/post-2'])
    const filtered = await (await map({ url: site.url, include_paths: ['^/(blog|news)/'], exclude_paths: ['post-2'], limit: 2 })).json()
    expect(filtered.results).toHaveLength(2)
    for (const r of filtered.results) expect(new URL(r.url).pathname).toMatch(/^\/(blog|news)\/(?!post-2)/)
  })

  test('a site with nothing to list is free; bad input is a 400 that names the parameter', async () => {
    site.set('/robots.txt', { status: 404 })
    site.set('/', { status: 200, body: '<html><body>No links here</body></html>' })
    try {
      const res = await map({ url: `${site.url}/`, sitemap: 'skip', exclude_paths: ['.'] })
      expect(res.status).toBe(200)
      expect(res.headers.get('x-credits-used')).toBe('0')
      expect((await res.json()).results).toEqual([])
    } finally {
      site.reset('/robots.txt')
      site.reset('/')
    }
    expect(await errorOf(await map({ url: 'ftp://example.com' }))).toMatchObject({ status: 400, message: 'url must be an http(s) URL' })
    expect(await errorOf(await map({ url: site.url, limit: 5001 }))).toMatchObject({ status: 400, message: 'limit must be between 1 and 5,000' })
    expect(await errorOf(await map({ url: site.url, include_paths: ['('] }))).toMatchObject({
      status: 400,
      message: 'include_paths.0: include_paths entries must be valid regular expressions',
    })
  })

  test('ignore_query_parameters folds URLs differing only in query, keeping the first one found as found', async () => {
    site.set('/sitemap.txt', { status: 200, type: 'text/plain', body: `${site.url}/p?id=1\n${site.url}/p?id=2\n${site.url}/q\n` })
    try {
      const folded = await (await map({ url: `${site.url}/`, ignore_query_parameters: true, include_paths: ['^/[pq]$'] })).json()
      expect(folded.results).toEqual([
        { url: `${site.url}/p?id=1`, source: 'sitemap' },
        { url: `${site.url}/q`, source: 'sitemap' },
      ])
      const kept = await (await map({ url: `${site.url}/`, include_paths: ['^/p$'] })).json()
      expect(kept.results.map((r: { url: string }) => r.url)).toEqual([`${site.url}/p?id=1`, `${site.url}/p?id=2`])
    } finally {
      site.reset('/sitemap.txt')
    }
  })

  test('a site that answered but listed nothing is 200, empty and free: a start page that failed is not a found URL', async () => {
    const { id, key: k } = await trawl.account({ credits: 5 })
    // robots.txt may be cached from the tests above: its sitemap index goes missing too.
    site.set('/', { status: 404, body: 'not here' })
    site.set('/robots.txt', { status: 404 })
    site.set('/sitemap_index.xml', { status: 404 })
    try {
      for (const sitemap of ['skip', 'include']) {
        const res = await map({ url: `${site.url}/`, sitemap }, k)
        expect(res.status).toBe(200)
        expect(res.headers.get('x-credits-used')).toBe('0')
        const body = await res.json()
        expect(body.results).toEqual([])
        expect(body.meta).toMatchObject({ credits_used: 0, count: 0 })
      }
    } finally {
      for (const path of ['/', '/robots.txt', '/sitemap_index.xml']) site.reset(path)
    }
    expect(await expectBooksBalanced(trawl, id)).toBe(5)
  })

  test.each(['include', 'skip', 'only'])('sitemap=%s: a site that cannot be reached is 503 upstream_error with Retry-After, not billed', async (sitemap) => {
    const { id, key: k } = await trawl.account({ credits: 5 })
    const down = `http://127.0.0.1:${await freePort()}/`
    const res = await map({ url: down, sitemap }, k)
    const error = await errorOf(res)
    expect(error).toMatchObject({ status: 503, code: 'upstream_error' })
    expect(error.message).toMatch(/^site could not be reached: /)
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0)
    expect(res.headers.get('x-credits-used')).toBe('0')
    expect(await expectBooksBalanced(trawl, id)).toBe(5)
  })
})

test('without TRAWL_ALLOW_PRIVATE_NETWORK a map of a loopback site is refused and the site sees nothing', async () => {
  const guarded = await startTrawl()
  try {
    const { key: k } = await guarded.account({ credits: 10 })
    const before = site.requests.length
    const res = await fetch(`${guarded.base}/v1/map`, {
      method: 'POST',
      headers: { authorization: `Bearer ${k}`, 'content-type': 'application/json' },
      body: JSON.stringify({ url: site.url, sitemap: 'skip' }),
    })
    expect(res.status).toBe(400)
    expect(res.headers.get('x-credits-used')).toBe('0')
    expect(site.requests.length).toBe(before)
  } finally {
    await guarded.close()
  }
})
