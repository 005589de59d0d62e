import { gzipSync } from 'node:zlib'
import { describe, expect, test } from 'vitest'
import { collectSitemaps, type SitemapFetcher, type SitemapLimits } from './sitemap.collect.ts'

const S = 'https://example.com'
const index = (...locs: string[]) => `<sitemapindex>${locs.map((l) => `<sitemap><loc>${S}${l}</loc></sitemap>`).join('')}</sitemapindex>`
const urlset = (...locs: string[]) => `<urlset>${locs.map((l) => `<url><loc>${S}${l}</loc><lastmod>2024-01-01</lastmod></url>`).join('')}</urlset>`

/** A site held in memory: path -> body (a string, a Buffer, or a redirect / failure). */
function site(files: Record<string, string | Buffer | { redirect: string } | { fail: string } | { slowMs: number }>) {
  const fetched: string[] = []
  const fetchBody: SitemapFetcher = async (url, { signal }) => {
    fetched.push(url.slice(S.length))
    const file = files[url.slice(S.length)]
    if (file === undefined) throw new Error('page answered HTTP 404')
    if (typeof file === 'string' || Buffer.isBuffer(file)) return { body: Buffer.from(file) }
    if ('fail' in file) throw new Error(file.fail)
    if ('slowMs' in file) {
      await new Promise((resolve) => setTimeout(resolve, file.slowMs))
      if (signal.aborted) throw new Error('aborted')
      return { body: Buffer.from(urlset('/slow')) }
    }
    const target = files[file.redirect]
    return { body: Buffer.from(target as string), url: `${S}${file.redirect}` }
  }
  return { fetchBody, fetched }
}

const limits = (over: Partial<SitemapLimits> = {}): SitemapLimits => ({ maxDepth: 3, maxSitemaps: 50, maxUrls: 1000, deadline: Date.now() + 5000, ...over })

describe('collectSitemaps', () => {
  test('follows indexes breadth first and records which sitemap listed each URL', async () => {
    const { fetchBody, fetched } = site({
      '/sitemap.xml': index('/a.xml', '/nested.xml'),
      '/nested.xml': index('/b.xml.gz'),
      '/a.xml': urlset('/1', '/2'),
      '/b.xml.gz': gzipSync(urlset('/3', '/1')),
    })
    const r = await collectSitemaps([`${S}/sitemap.xml`], fetchBody, limits())
    expect(fetched).toEqual(['/sitemap.xml', '/a.xml', '/nested.xml', '/b.xml.gz'])
    expect(r).toEqual({
      entries: [
        { url: `${S}/1`, lastmod: '2024-01-01', sitemap: `${S}/a.xml` },
        { url: `${S}/2`, lastmod: '2024-01-01', sitemap: `${S}/a.xml` },
        { url: `${S}/3`, lastmod: '2024-01-01', sitemap: `${S}/b.xml.gz` },
      ],
      sitemapsRead: 4,
      errors: [],
    })
  })

  test('never fetches a sitemap twice: self-reference, cycles, duplicate starts, redirects back', async () => {
    const { fetchBody, fetched } = site({
      '/sitemap.xml': index('/sitemap.xml', '/child.xml', '/child.xml#x', '/back.xml'),
      '/child.xml': index('/sitemap.xml', '/child.xml'),
      '/back.xml': { redirect: '/sitemap.xml' },
    })
    const r = await collectSitemaps([`${S}/sitemap.xml`, `${S}/sitemap.xml`], fetchBody, limits())
    expect(fetched).toEqual(['/sitemap.xml', '/child.xml', '/back.xml'])
    expect(r.sitemapsRead).toBe(2)
    expect(r.errors).toEqual([`${S}/back.xml: redirects to ${S}/sitemap.xml, which is already read`])
  })

  test('index nesting is bounded by maxDepth', async () => {
    const { fetchBody, fetched } = site({
      '/0.xml': index('/1.xml'),
      '/1.xml': index('/2.xml'),
      '/2.xml': index('/3.xml'),
      '/3.xml': urlset('/deep'),
    })
    const r = await collectSitemaps([`${S}/0.xml`], fetchBody, limits({ maxDepth: 2 }))
    expect(fetched).toEqual(['/0.xml', '/1.xml', '/2.xml'])
    expect(r.entries).toEqual([])
    expect(r.errors).toEqual([`${S}/3.xml: sitemap indexes nested deeper than 2 levels are not followed`])
  })

  test('stops at maxUrls', async () => {
    const { fetchBody, fetched } = site({ '/i.xml': index('/a.xml', '/b.xml'), '/a.xml': urlset('/1', '/2', '/3'), '/b.xml': urlset('/4') })
    const r = await collectSitemaps([`${S}/i.xml`], fetchBody, limits({ maxUrls: 2, concurrency: 1 }))
    expect(r.entries.map((e) => e.url)).toEqual([`${S}/1`, `${S}/2`])
    expect(r.stopped).toBe('max_urls')
    expect(fetched).toEqual(['/i.xml', '/a.xml', '/b.xml'])
  })

  test('stops at maxSitemaps, counting failed fetches', async () => {
    const { fetchBody, fetched } = site({ '/i.xml': index('/missing.xml', '/a.xml', '/b.xml'), '/a.xml': urlset('/1'), '/b.xml': urlset('/2') })
    const r = await collectSitemaps([`${S}/i.xml`], fetchBody, limits({ maxSitemaps: 3 }))
    expect(fetched).toEqual(['/i.xml', '/missing.xml', '/a.xml'])
    expect(r.entries.map((e) => e.url)).toEqual([`${S}/1`])
    expect(r.stopped).toBe('max_sitemaps')
    expect(r.errors).toEqual(['1 sitemap(s) not read: at most 3 per call', `${S}/missing.xml: page answered HTTP 404`])
  })

  test('the deadline abandons a fetch that is still running and keeps what was read', async () => {
    const { fetchBody } = site({ '/i.xml': index('/a.xml', '/slow.xml'), '/a.xml': urlset('/1'), '/slow.xml': { slowMs: 2000 } })
    const started = Date.now()
    const r = await collectSitemaps([`${S}/i.xml`], fetchBody, limits({ deadline: Date.now() + 300 }))
    expect(Date.now() - started).toBeLessThan(1500)
    expect(r.entries.map((e) => e.url)).toEqual([`${S}/1`])
    expect(r.stopped).toBe('deadline')
    expect(r.errors).toEqual([`${S}/slow.xml: deadline reached`])
  })

  test('a deadline already past fetches nothing', async () => {
    const { fetchBody, fetched } = site({ '/i.xml': urlset('/1') })
    const r = await collectSitemaps([`${S}/i.xml`], fetchBody, limits({ deadline: Date.now() - 1 }))
    expect([fetched, r.entries, r.stopped]).toEqual([[], [], 'deadline'])
  })

  test('failures, nulls and bad gzip are recorded and the walk goes on', async () => {
    const files = { '/i.xml': index('/boom.xml', '/bad.gz', '/null.xml', '/ok.xml'), '/boom.xml': { fail: 'socket hang up' }, '/ok.xml': urlset('/1') }
    const { fetchBody } = site({ ...files, '/bad.gz': Buffer.from([0x1f, 0x8b, 0x08, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0xff]) })
    const withNull: SitemapFetcher = (url, opts) => (url.endsWith('/null.xml') ? Promise.resolve(null) : fetchBody(url, opts))
    const r = await collectSitemaps([`${S}/i.xml`], withNull, limits())
    expect(r.entries.map((e) => e.url)).toEqual([`${S}/1`])
    expect(r.errors).toEqual([
      `${S}/boom.xml: socket hang up`,
      `${S}/bad.gz: sitemap looks gzip-compressed but does not inflate`,
      `${S}/null.xml: not available`,
    ])
    expect(r.stopped).toBeUndefined()
  })

  test('output order follows the listing, not fetch timing', async () => {
    const order: string[] = []
    const fetchBody: SitemapFetcher = async (url) => {
      const path = url.slice(S.length)
      if (path === '/i.xml') return { body: Buffer.from(index('/a.xml', '/b.xml', '/c.xml')) }
      await new Promise((resolve) => setTimeout(resolve, path === '/a.xml' ? 60 : 5))
      order.push(path)
      return { body: Buffer.from(urlset(path.replace('.xml', ''))) }
    }
    const r = await collectSitemaps([`${S}/i.xml`], fetchBody, limits())
    expect(order[0]).not.toBe('/a.xml')
    expect(r.entries.map((e) => e.url)).toEqual([`${S}/a`, `${S}/b`, `${S}/c`])
  })
})
