import { gzipSync } from 'node:zlib'
import { describe, expect, test } from 'vitest'
import { readFixture } from '../../../test/support/fixtures.ts'
import { parseSitemap } from './sitemap.parse.ts'
import { MAX_SITEMAP_BYTES } from './sitemap-body.decode.ts'

const misc = (rel: string) => readFixture(`corpora/sitemaps-misc/${rel}`)
const xml = (s: string) => Buffer.from(s, 'utf8')
const urlset = (inner: string) => xml(`<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${inner}</urlset>`)

describe('sitemaps-misc corpus (advertools, trafilatura)', () => {
  // Counts from facts-dev.json (regex baseline) and the upstream tests' own expectations.
  test.each([
    ['trafilatura/sitemap.xml', 'urlset', 84, 0],
    ['trafilatura/sitemap2.xml', 'index', 0, 2],
    ['trafilatura/feed2.rss', 'rss', 1, 0],
    ['trafilatura/feed.json', 'unknown', 0, 0],
    ['advertools/regular_sitemap.xml', 'urlset', 5, 0],
    ['advertools/image_sitemap.xml', 'urlset', 2, 0],
    ['advertools/video_sitemap.xml', 'urlset', 6, 0],
    ['advertools/robots.txt', 'unknown', 0, 0],
  ])('%s: %s with %i URLs and %i sitemaps', (file, kind, urls, sitemaps) => {
    const r = parseSitemap(misc(file), { url: `https://www.sitemaps.org/${file}` })
    expect([r.kind, r.urls.length, r.sitemaps.length]).toEqual([kind, urls, sitemaps])
  })

  test('the same files gzip-compressed, whatever they are called or labelled', () => {
    for (const file of ['trafilatura/sitemap.xml', 'advertools/regular_sitemap.xml']) {
      const plain = parseSitemap(misc(file))
      expect(parseSitemap(gzipSync(misc(file)), { url: 'https://x.test/sitemap', contentType: 'text/xml' })).toEqual(plain)
      expect(parseSitemap(gzipSync(gzipSync(misc(file))))).toEqual(plain)
      // A `.xml.gz` name on plain XML (advertools' holdout has one) is not gzip.
      expect(parseSitemap(misc(file), { url: 'https://x.test/sitemap.xml.gz', contentType: 'application/x-gzip' })).toEqual(plain)
    }
  })

  test('index entries, CDATA and lastmod as written', () => {
    expect(parseSitemap(misc('trafilatura/sitemap2.xml')).sitemaps).toEqual([
      'http://www.example.com/sitemap1.xml.gz',
      'http://www.example.com/sitemap2.xml.gz',
    ])
    const rss = parseSitemap(misc('trafilatura/feed2.rss'))
    expect(rss.urls).toEqual([{ url: 'http://www.example.com/blog/post/1', lastmod: 'Sun, 06 Sep 2009 16:20:00 +0000' }])
    const regular = parseSitemap(misc('advertools/regular_sitemap.xml'))
    expect(regular.urls[0]).toEqual({ url: 'http://www.example.com/', lastmod: '2005-01-01' })
    expect(regular.urls[1]!.url).toBe('http://www.example.com/catalog?item=12&desc=vacation_hawaii')
  })
})

describe('XML sitemaps', () => {
  test('namespaces, entities, CDATA, whitespace, BOM, case', () => {
    const body = Buffer.concat([
      Buffer.from([0xef, 0xbb, 0xbf]),
      xml(`<?xml version="1.0"?>
<sm:urlset xmlns:sm="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:image="http://www.google.com/schemas/sitemap-image/1.1">
  <sm:url>
    <sm:loc>
      https://example.com/a?x=1&amp;y=2
    </sm:loc>
    <sm:lastmod> 2024-01-02T03:04:05+01:00 </sm:lastmod>
    <image:image><image:loc>https://cdn.example.com/img.png</image:loc></image:image>
  </sm:url>
  <URL><LOC><![CDATA[https://example.com/b?x=1&y=2]]></LOC><LastMod></LastMod></URL>
  <url><loc>mailto:someone@example.com</loc></url>
  <url><lastmod>2020</lastmod></url>
</sm:urlset>`),
    ])
    expect(parseSitemap(body)).toEqual({
      kind: 'urlset',
      urls: [{ url: 'https://example.com/a?x=1&y=2', lastmod: '2024-01-02T03:04:05+01:00' }, { url: 'https://example.com/b?x=1&y=2' }],
      sitemaps: [],
    })
  })

  test('relative locations resolve against the sitemap URL', () => {
    const r = parseSitemap(urlset('<url><loc>/about</loc></url>'), { url: 'https://example.com/sitemaps/s.xml' })
    expect(r.urls).toEqual([{ url: 'https://example.com/about' }])
  })

  test('a file cut short keeps every complete entry and drops the cut one', () => {
    const full = urlset('<url><loc>https://example.com/1</loc></url><url><loc>https://example.com/2</loc><lastmod>2020-01-01</lastmod></url>')
    const noClose = full.subarray(0, full.length - '</urlset>'.length)
    expect(parseSitemap(noClose).urls.map((u) => u.url)).toEqual(['https://example.com/1', 'https://example.com/2'])
    const midLoc = xml('<urlset><url><loc>https://example.com/1</loc></url><url><loc>https://example.com/trunc')
    expect(parseSitemap(midLoc).urls.map((u) => u.url)).toEqual(['https://example.com/1'])
    const gz = gzipSync(full)
    expect(parseSitemap(gz.subarray(0, gz.length - 12)).urls.length).toBeGreaterThanOrEqual(1)
  })

  test('malformed markup does not stop the parse', () => {
    const r = parseSitemap(xml('<urlset><url><loc>https://example.com/1</url><url><loc>https://example.com/2</loc></url><junk<<>></urlset>'))
    expect(r.urls.map((u) => u.url)).toEqual(['https://example.com/1', 'https://example.com/2'])
  })

  test('a sitemap index', () => {
    const r = parseSitemap(
      xml(`<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
        <sitemap><loc> https://example.com/s1.xml </loc><lastmod>2024-01-01</lastmod></sitemap>
        <sitemap><loc>https://example.com/s2.xml.gz</loc></sitemap></sitemapindex>`),
    )
    expect(r).toEqual({ kind: 'index', urls: [], sitemaps: ['https://example.com/s1.xml', 'https://example.com/s2.xml.gz'] })
  })

  test('hreflang alternates are kept on the entry; mobile media alternates are not', () => {
    const r = parseSitemap(
      urlset(`<url xmlns:xhtml="http://www.w3.org/1999/xhtml"><loc>https://example.com/en</loc>
        <xhtml:link rel="alternate" hreflang="de" href="https://example.com/de"/>
        <xhtml:link rel="alternate" media="only screen and (max-width: 640px)" href="https://m.example.com/en"/></url>`),
    )
    expect(r.urls).toEqual([{ url: 'https://example.com/en', alternates: ['https://example.com/de'] }])
  })

  test('declared encodings and UTF-16', () => {
    const latin1 = Buffer.from('<?xml version="1.0" encoding="ISO-8859-1"?><urlset><url><loc>https://example.com/caf\xe9</loc></url></urlset>', 'latin1')
    expect(parseSitemap(latin1).urls[0]!.url).toBe('https://example.com/caf%C3%A9')
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('<urlset><url><loc>https://example.com/ü</loc></url></urlset>', 'utf16le')])
    expect(parseSitemap(utf16).urls[0]!.url).toBe('https://example.com/%C3%BC')
  })

  test('an HTML page at a sitemap address yields nothing', () => {
    const r = parseSitemap(xml('<!doctype html><html><body><a href="https://example.com/x">x</a><url><loc>https://example.com/y</loc></url></body></html>'))
    expect(r).toEqual({ kind: 'unknown', urls: [], sitemaps: [] })
  })

  test('element names that are Object.prototype keys are just unknown elements', () => {
    const r = parseSitemap(xml('<urlset><url><loc>https://example.com/1</loc><constructor>x</constructor><__proto__>y</__proto__></url></urlset>'))
    expect(r).toEqual({ kind: 'urlset', urls: [{ url: 'https://example.com/1' }], sitemaps: [] })
    expect(parseSitemap(xml('<constructor><toString/></constructor>')).kind).toBe('unknown')
  })

  test('a urlset that lost its root element still reads', () => {
    expect(parseSitemap(xml('<url><loc>https://example.com/1</loc></url><url><loc>https://example.com/2</loc></url>'))).toMatchObject({
      kind: 'urlset',
      urls: [{ url: 'https://example.com/1' }, { url: 'https://example.com/2' }],
    })
  })

  test('a gzip bomb is refused, not inflated', () => {
    const bomb = gzipSync(Buffer.alloc(MAX_SITEMAP_BYTES + 1024, 0x20))
    expect(() => parseSitemap(bomb)).toThrow(/expands past/)
  })
})

describe('feeds', () => {
  test('RSS 2.0: item links (not the channel link), pubDate, permalink guid, atom:link', () => {
    const r = parseSitemap(
      xml(`<rss version="2.0" xmlns:atom="http://www.w3.org/2005/Atom"><channel><link>https://example.com/</link>
        <image><url>https://example.com/logo.png</url></image>
        <item><link>https://example.com/p/1</link><pubDate>Tue, 02 Jan 2024 10:00:00 GMT</pubDate></item>
        <item><guid isPermaLink="true">https://example.com/p/2</guid></item>
        <item><guid isPermaLink="false">tag:example.com,2024:3</guid></item>
        <item><guid isPermaLink="false">https://example.com/not-a-permalink</guid></item>
        <item><atom:link href="https://example.com/p/4"/></item>
      </channel></rss>`),
    )
    expect(r).toEqual({
      kind: 'rss',
      urls: [
        { url: 'https://example.com/p/1', lastmod: 'Tue, 02 Jan 2024 10:00:00 GMT' },
        { url: 'https://example.com/p/2' },
        { url: 'https://example.com/p/4' },
      ],
      sitemaps: [],
    })
  })

  test('RSS 1.0 (RDF) with dc:date', () => {
    const r = parseSitemap(
      xml(`<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns="http://purl.org/rss/1.0/" xmlns:dc="http://purl.org/dc/elements/1.1/">
        <channel rdf:about="https://example.com/"><link>https://example.com/</link></channel>
        <item rdf:about="https://example.com/a"><link>https://example.com/a</link><dc:date>2024-01-01</dc:date></item></rdf:RDF>`),
    )
    expect(r).toEqual({ kind: 'rss', urls: [{ url: 'https://example.com/a', lastmod: '2024-01-01' }], sitemaps: [] })
  })

  test('Atom 1.0 and 0.3: alternate links, updated or modified; feed-level and self links ignored', () => {
    const atom = parseSitemap(
      xml(`<feed xmlns="http://www.w3.org/2005/Atom"><link rel="self" href="https://example.com/feed"/><link href="https://example.com/"/>
        <entry><link rel="edit" href="https://example.com/edit/1"/><link rel="alternate" type="text/html" href="https://example.com/e/1"/>
          <published>2023-12-31T00:00:00Z</published><updated>2024-01-01T00:00:00Z</updated></entry>
        <entry><link href="/e/2"/></entry></feed>`),
      { url: 'https://example.com/feed' },
    )
    expect(atom).toEqual({
      kind: 'atom',
      urls: [{ url: 'https://example.com/e/1', lastmod: '2024-01-01T00:00:00Z' }, { url: 'https://example.com/e/2' }],
      sitemaps: [],
    })
    const atom03 = parseSitemap(
      xml(
        '<feed version="0.3" xmlns="http://purl.org/atom/ns#"><entry><link rel="alternate" type="text/html" href="https://example.com/x"/><modified>2009-12-17T12:04:56+02:00</modified></entry></feed>',
      ),
    )
    expect(atom03.urls).toEqual([{ url: 'https://example.com/x', lastmod: '2009-12-17T12:04:56+02:00' }])
  })
})

describe('plain-text sitemaps', () => {
  test('one URL per line; anything else ignored', () => {
    const r = parseSitemap(
      xml('\uFEFFhttps://example.com/a\r\n\n  https://example.com/b  \nnot a url\nftp://example.com/c\n/relative\nhttps://example.com/d'),
      {
        contentType: 'text/plain',
      },
    )
    expect(r).toEqual({
      kind: 'text',
      urls: [{ url: 'https://example.com/a' }, { url: 'https://example.com/b' }, { url: 'https://example.com/d' }],
      sitemaps: [],
    })
  })

  test('gzip text and empty bodies', () => {
    expect(parseSitemap(gzipSync('https://example.com/a\n')).urls).toEqual([{ url: 'https://example.com/a' }])
    expect(parseSitemap(Buffer.alloc(0))).toEqual({ kind: 'unknown', urls: [], sitemaps: [] })
  })
})
