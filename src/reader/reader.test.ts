import { gunzipSync } from 'node:zlib'
import { describe, expect, test } from 'vitest'
import { readFixture } from '../../test/support/fixtures.ts'
import { countTokens } from '../text/tokens.ts'
import { rankHighlights } from './highlights.rank.ts'
import { readDocument } from './reader.service.ts'
import type { ReadOptions } from './reading.types.ts'

const corpus = (rel: string) => readFixture(`corpora/${rel}`)

const RTP_URL = 'http://fakehost/test/page.html'
const rtp = (name: string) => corpus(`readability-test-pages/test-pages/${name}/source.html`).toString('utf8')

async function readHtml(html: string, url: string, opts: Partial<ReadOptions> = {}) {
  return readDocument({ url, contentType: 'html', body: Buffer.from(html) }, { format: 'markdown', ...opts })
}

describe('HTML pages from the corpora', () => {
  test('ars-1: title, metadata, article text, no furniture, absolute links', async () => {
    const r = await readHtml(rtp('ars-1'), RTP_URL, { includeLinks: true })
    expect(r.title).toBe('Just-released Minecraft exploit makes it easy to crash game servers')
    expect(r.metadata).toMatchObject({ language: 'en-us', site_name: 'Ars Technica' })
    expect(r.published_at).toBe('2015-04-16T20:02:01.000Z')
    expect(r.markdown).toContain('A flaw in the wildly popular online game *Minecraft* makes it easy for just about anyone to crash the server')
    expect(r.markdown).toContain('[blog post published Thursday](http://blog.ammaraskar.com/minecraft-vulnerability-advisory)')
    expect(r.markdown).not.toMatch(/Ars Technica Addendum|Terms of Service|Log in/)
    expect(r.links!.length).toBeGreaterThan(2)
    for (const l of r.links!) expect(l.url).toMatch(/^https?:\/\//)
    expect(new Set(r.links!.map((l) => l.url)).size).toBe(r.links!.length)
    expect(r.empty).toBe(false)
    expect(r.tokens).toBe(await countTokens(r.markdown!))
  })

  test('a relative <base href> is honoured for images', async () => {
    const r = await readHtml(rtp('base-url-base-element-relative'), RTP_URL, { includeImages: true })
    expect(r.title).toBe('Base URL with base relative test')
    expect(r.images).toContain('http://fakehost/test/base/foo/bar/baz.png')
    expect(r.markdown).toContain('![](http://fakehost/test/base/foo/bar/baz.png)')
  })

  test('article benchmark (cbssports): body kept, teasers and datelines dropped', async () => {
    const id = '08f793762792bd252c75fb57544cdf506ffcc04785136cb875'
    const truth = JSON.parse(corpus('article-extraction-benchmark/ground-truth-dev.json').toString())
    const key = Object.keys(truth).find((k) => k.startsWith(id))!
    const html = gunzipSync(corpus(`article-extraction-benchmark/html/${key}.html.gz`)).toString('utf8')
    const r = await readHtml(html, truth[key].url, { format: 'text' })
    expect(r.title).toBe("Browns player on Mason Rudolph's role in fight with Myles Garrett: He asked for it")
    expect(r.text).toContain('"The most important thing is we lost that game," Heyward said')
    expect(r.text).not.toContain("SportsLine's computer model simulated every Week 12 NFL game")
    expect(r.text).not.toContain('min read')
    expect(r.text).not.toMatch(/^Browns player on Mason Rudolph/) // the title is returned on its own
  })

  test('code keeps its fence language; tables become GFM', async () => {
    const html = `<html><head><title>Snippets</title></head><body><article><h1>Snippets</h1>
      <p>${'Some explanation of the code that follows, long enough to count as prose. '.repeat(4)}</p>
      <pre class="highlight"><code class="language-ts">const a: number = 1
if (a &lt; 2) console.log(\`x\`)</code></pre>
      <table><thead><tr><th>Name</th><th>Value</th></tr></thead><tbody><tr><td>a|b</td><td><b>2</b></td></tr></tbody></table>
      <ul><li>one</li><li>two<ul><li>nested</li></ul></li></ul>
      <p>${'More prose after the code so the article is clearly the main content. '.repeat(4)}</p>
      </article><footer><a href="/about">About us</a> Copyright 2024</footer></body></html>`
    const r = await readHtml(html, 'https://example.com/post')
    expect(r.markdown).toContain('```ts\nconst a: number = 1\nif (a < 2) console.log(`x`)\n```')
    expect(r.markdown).toContain('| Name | Value |\n| --- | --- |\n| a\\|b | **2** |')
    expect(r.markdown).toContain('- one\n- two\n  - nested')
    expect(r.markdown).not.toContain('Copyright')
    const html5 = await readHtml(html, 'https://example.com/post', { format: 'html' })
    expect(html5.html).toContain('<code class="language-ts">')
    expect(html5.html).not.toMatch(/class="highlight"|<footer/)
  })

  test('JSON-LD gives the date and type; a page without content is flagged empty, not thrown', async () => {
    const ld = {
      '@context': 'https://schema.org',
      '@type': 'NewsArticle',
      headline: 'Ld headline',
      datePublished: '2021-03-04T05:06:07+02:00',
      author: { '@type': 'Person', name: 'Ada Lovelace' },
    }
    const r = await readHtml(
      `<html lang="fr"><head><script type="application/ld+json">${JSON.stringify(ld)}</script></head><body><div id="app"></div><script>render()</script></body></html>`,
      'https://example.com/x',
    )
    expect(r).toMatchObject({ title: 'Ld headline', published_at: '2021-03-04T03:06:07.000Z', empty: true, markdown: '' })
    expect(r.metadata).toMatchObject({ author: 'Ada Lovelace', language: 'fr', json_ld_type: 'NewsArticle' })
  })
})

describe('charsets', () => {
  test('a windows-1252 page without decoded text is decoded from its <meta>', async () => {
    const body = Buffer.concat([
      Buffer.from('<html><head><meta charset="windows-1252"><title>Caf'),
      Buffer.from([0xe9]),
      Buffer.from(`</title></head><body><p>${'Le caf'}`),
      Buffer.from([0xe9, 0x20, 0x93, 0x6e, 0x6f, 0x69, 0x72, 0x94]),
      Buffer.from(` est servi chaque matin dans la grande salle du village, pres de la fontaine.</p></body></html>`),
    ])
    const r = await readDocument({ url: 'https://example.com/', contentType: 'html', body }, { format: 'text' })
    expect(r.title).toBe('Café')
    expect(r.text).toContain('Le café \u201cnoir\u201d est servi')
  })

  test('a shift_jis page', async () => {
    const sjis = new Uint8Array([0x93, 0xfa, 0x96, 0x7b, 0x8c, 0xea]) // 日本語
    const body = Buffer.concat([Buffer.from('<html><head><meta charset="shift_jis"></head><body><p>'), Buffer.from(sjis), Buffer.from('</p></body></html>')])
    const r = await readDocument({ url: 'https://example.com/', contentType: 'html', body }, { format: 'text' })
    expect(r.text).toBe('日本語')
  })
})

describe('PDFs', () => {
  const pdf = (rel: string) => readDocument({ url: 'https://example.com/doc.pdf', contentType: 'pdf', body: corpus(rel) }, { format: 'text' })

  test('crazyones.pdf matches its known text line by line (ligatures and spacing normalised)', async () => {
    const r = await pdf('pdfs-pypdf/resources/crazyones.pdf')
    const expected = corpus('pdfs-pypdf/resources/crazyones.txt')
      .toString('utf8')
      .normalize('NFKC')
      .split('\n')
      .map((l) => l.trim())
      .filter(Boolean)
    const got = r
      .text!.normalize('NFKC')
      .split('\n')
      .map((l) => l.trim())
      .filter(Boolean)
    expect(got).toEqual(expected)
    expect(r.title).toBe('The Crazy Ones')
    expect(r.metadata.pages).toBe(1)
  })

  test('issue-987: words are ordered by position, not stream order', async () => {
    const r = await pdf('pdfs-pdfplumber/pdfs/issue-987-test.pdf')
    expect(r.text!.replace(/\s+/g, ' ').trim()).toBe('Big Text Small Text')
  })

  test('nics background checks: table text and the page footer', async () => {
    const r = await pdf('pdfs-pdfplumber/pdfs/nics-background-checks-2015-11.pdf')
    expect(r.text).toContain('Page 1 of 205')
    expect(r.text).toMatch(/Alabama 18,870 23,022/)
    expect(r.published_at).toBe('2015-12-12T18:49:57.000Z')
  })

  test('an empty PDF is an empty read (an empty page, as an empty HTML page)', async () => {
    const r = await pdf('pdfs-pdfplumber/pdfs/empty.pdf')
    expect([r.empty, r.text, r.title]).toEqual([true, '', null])
  })

  test('a password-protected PDF fails cleanly', async () => {
    await expect(pdf('pdfs-pypdf/resources/libreoffice-writer-password.pdf')).rejects.toMatchObject({
      code: 'upstream_error',
      message: 'PDF is password-protected',
    })
  })
})

describe('max_tokens and highlights', () => {
  test('maxTokens trims the content and reports it', async () => {
    const full = await readHtml(rtp('ars-1'), RTP_URL)
    const r = await readHtml(rtp('ars-1'), RTP_URL, { maxTokens: 100 })
    expect(full.trimmed).toBe(false)
    expect(r.trimmed).toBe(true)
    expect(r.tokens).toBeLessThanOrEqual(100)
    expect(r.tokens).toBe(await countTokens(r.markdown!))
    expect(full.markdown!.startsWith(r.markdown!)).toBe(true)
  })

  test('highlights are BM25-ranked, deterministic, with their heading', async () => {
    const opts = { query: 'Mojang vulnerability report', highlights: 3 }
    const a = await readHtml(rtp('ars-1'), RTP_URL, opts)
    const b = await readHtml(rtp('ars-1'), RTP_URL, { ...opts, format: 'text' })
    expect(a.highlights).toHaveLength(3)
    expect(a.highlights!.map((h) => h.score)).toEqual([...a.highlights!.map((h) => h.score)].sort((x, y) => y - x))
    expect(a.highlights![0]!.text).toMatch(/Mojang/)
    for (const h of a.highlights!) expect(h.text.length).toBeLessThanOrEqual(1000)
    expect((await readHtml(rtp('ars-1'), RTP_URL, opts)).highlights).toEqual(a.highlights)
    expect(b.highlights!.length).toBeGreaterThan(0)
  })

  test('ties keep page order and the nearest heading is reported', () => {
    const md = '# Intro\n\nalpha beta\n\n## Second\n\nalpha beta\n\n## Third\n\ngamma'
    const h = rankHighlights(md, 'alpha', 5)
    expect(h.map((x) => x.heading)).toEqual(['Intro', 'Second'])
    expect(h[0]!.score).toBe(h[1]!.score)
  })
})
