import { describe, expect, it } from 'vitest'
import { readFixture } from '../../../test/support/fixtures.ts'
import { detectDuckDuckGoDjsBlock } from './duckduckgo.block.ts'
import { djsUrl, offsetOf, parseDjs, preloadLinkOf } from './duckduckgo.djs.ts'

const fixture = (f: string) => readFixture(`serp/duckduckgo/${f}`).toString('utf8')
const DJS_URL = 'https://links.duckduckgo.com/d.js?q=rust'
const load = (entries: unknown[]) => `if (DDG.pageLayout) DDG.pageLayout.load('d',${JSON.stringify(entries)});DDG.duckbar.load('images', {});`

describe('preloadLinkOf', () => {
  it('reads link#deep_preload_link of the current shell, entities decoded', () => {
    const url = preloadLinkOf(fixture('web-js-shell/rust-programming-preload.constructed.html'))
    expect(url).toMatch(/^https:\/\/links\.duckduckgo\.com\/d\.js\?q=rust%20programming&t=h_&l=us-en&s=0&/)
    expect(url).not.toContain('&amp;')
    expect(new URL(url ?? '').searchParams.get('dp')).toBeTruthy()
  })

  it('takes the attributes in any order and quoting', () => {
    expect(preloadLinkOf(`<link href='https://links.duckduckgo.com/d.js?q=a&amp;s=0' as=script rel=preload id=deep_preload_link>`)).toBe(
      'https://links.duckduckgo.com/d.js?q=a&s=0',
    )
    expect(preloadLinkOf('<link rel="preload" id="deep_preload_link" href=https://links.duckduckgo.com/d.js?q=b>')).toBe(
      'https://links.duckduckgo.com/d.js?q=b',
    )
  })

  it("reads a 2022 shell's DDG.deep.initialize('/d.js?…') against links.duckduckgo.com", () => {
    expect(preloadLinkOf(fixture('web-js-shell/aql-what-happened-to-greta-thornburg.html'))).toMatch(
      /^https:\/\/links\.duckduckgo\.com\/d\.js\?q=what%20happened%20to%20greta%20thornburg&l=us-en&s=0&/,
    )
  })

  it('names nothing for the no-JS pages, the anomaly page, or a link elsewhere', () => {
    expect(preloadLinkOf(fixture('html/eino-eino-results.html'))).toBeUndefined()
    expect(preloadLinkOf(fixture('blocked/ddgcli-anomaly-challenge-2026.html'))).toBeUndefined()
    expect(preloadLinkOf('<link id="deep_preload_link" href="https://evil.example/d.js?q=a">')).toBeUndefined()
    expect(preloadLinkOf('<link id="deep_preload_link" href="http://links.duckduckgo.com/d.js?q=a">')).toBeUndefined()
  })
})

describe('djsUrl and offsetOf', () => {
  it('accepts only https d.js URLs on DuckDuckGo, resolving paths against links.duckduckgo.com', () => {
    expect(djsUrl('/d.js?q=a&s=10')).toBe('https://links.duckduckgo.com/d.js?q=a&s=10')
    expect(djsUrl('https://duckduckgo.com/d.js?q=a')).toBe('https://duckduckgo.com/d.js?q=a')
    expect(djsUrl('//evil.example/d.js?q=a')).toBeUndefined()
    expect(djsUrl('https://links.duckduckgo.com/x.js?q=a')).toBeUndefined()
    expect(djsUrl('https://user@links.duckduckgo.com/d.js?q=a')).toBeUndefined()
    expect(djsUrl('javascript:alert(1)')).toBeUndefined()
  })

  it('reads the s offset', () => {
    expect(offsetOf('https://links.duckduckgo.com/d.js?q=a&s=23')).toBe(23)
    expect(offsetOf('https://links.duckduckgo.com/d.js?q=a')).toBeUndefined()
    expect(offsetOf('https://links.duckduckgo.com/d.js?q=a&s=x')).toBeUndefined()
  })
})

describe('parseDjs', () => {
  it('reads title, link, displayed link, snippet (tags stripped, entities decoded) and date; skips the ad and the n entry', () => {
    const { page, next, understood } = parseDjs(fixture('djs/rust-programming-s0.constructed.js'))
    expect(understood).toBe(true)
    expect(page.parse_quality).toBe('ok')
    expect(page.results).toHaveLength(10)
    expect(page.results[0]).toEqual({
      position: 1,
      title: 'Rust Programming Language',
      link: 'https://rust-lang.org/',
      domain: 'rust-lang.org',
      displayed_link: 'rust-lang.org',
      snippet:
        'Rust is a fast, reliable, and productive programming language that can run on embedded devices, web services, and more. Learn how to get started, why Rust is different, and what companies are using it in production.',
    })
    expect(page.results[1]?.title).toBe('Rust (programming language) - Wikipedia')
    expect(page.results[3]).toMatchObject({
      position: 4,
      snippet: "So, you're getting into software development, and one elemental name keeps coming up: Rust.",
      date: '2025-03-14',
    })
    expect(page.results.map((r) => r.title)).not.toContain('Rust Course - Learn Rust Fast')
    expect(next).toMatch(/^https:\/\/links\.duckduckgo\.com\/d\.js\?q=rust%20programming&t=D&l=us-en&s=10&/)
  })

  it('the last page ends with the EOF marker: no next link, the marker is no result', () => {
    const { page, next } = parseDjs(fixture('djs/rust-programming-s10.constructed.js'))
    expect(page.parse_quality).toBe('ok')
    expect(page.results.map((r) => r.link)).toEqual([
      'https://doc.rust-lang.org/rust-by-example/',
      'https://doc.rust-lang.org/book/',
      'https://github.com/rust-lang/rust',
    ])
    expect(next).toBeUndefined()
  })

  it('no results: an empty list, the EOF marker alone, DEEP_ERROR_NO_RESULTS', () => {
    expect(parseDjs(load([])).page).toEqual({ results: [], parse_quality: 'empty' })
    expect(parseDjs(load([{ t: 'EOF', u: 'https://www.google.com/search?q=zzqx', a: '', d: 'google.com search' }])).page.parse_quality).toBe('empty')
    expect(parseDjs(load([{ t: 'DEEP_ERROR_NO_RESULTS' }])).page.parse_quality).toBe('empty')
  })

  it('uses c when u is missing, and leaves out links to DuckDuckGo itself', () => {
    const { page } = parseDjs(
      load([
        { t: 'A', c: 'https://a.example/', a: 'x' },
        { t: 'DuckDuckGo', u: 'https://duckduckgo.com/?q=a' },
      ]),
    )
    expect(page).toEqual({ results: [{ position: 1, title: 'A', link: 'https://a.example/', domain: 'a.example', snippet: 'x' }], parse_quality: 'ok' })
  })

  it('reads the JSON answer of o=json too', () => {
    const { page } = parseDjs(JSON.stringify({ results: [{ t: 'A', u: 'https://a.example/', a: '<b>a</b>' }, { n: '/d.js?q=a&s=1' }] }))
    expect(page.results).toEqual([{ position: 1, title: 'A', link: 'https://a.example/', domain: 'a.example', snippet: 'a' }])
  })

  it('a body without a results call, or entries of which nothing reads, is partial', () => {
    expect(parseDjs('DDG.deep.is506 = true;')).toEqual({ page: { results: [], parse_quality: 'partial' }, understood: false })
    expect(parseDjs('DDG.pageLayout.load(\'d\',[{"t": ')).toMatchObject({ understood: false })
    expect(parseDjs(load([{ t: 'No link' }, 'x'])).page).toEqual({ results: [], parse_quality: 'partial' })
    expect(
      parseDjs(
        load([
          { t: 'A', u: 'https://a.example/' },
          { a: 'no title', u: 'https://b.example/' },
        ]),
      ).page.parse_quality,
    ).toBe('partial')
  })

  it('an n entry pointing off DuckDuckGo is not followed', () => {
    expect(parseDjs(load([{ t: 'A', u: 'https://a.example/' }, { n: 'https://evil.example/d.js?s=10' }])).next).toBeUndefined()
  })
})

describe('detectDuckDuckGoDjsBlock', () => {
  it('the anomaly page, an anomaly script, a JavaScript challenge and HTTP refusals are blocks; results are not', () => {
    expect(detectDuckDuckGoDjsBlock({ status: 200, url: DJS_URL, body: fixture('blocked/ddgcli-anomaly-challenge-2026.html') })).toEqual({
      reason: 'DuckDuckGo challenge page (anomaly)',
    })
    expect(detectDuckDuckGoDjsBlock({ status: 200, url: DJS_URL, body: 'DDG.deep.anomalyDetectionBlock({"cc":"botnet"});' })).toEqual({
      reason: 'DuckDuckGo d.js anomaly block',
    })
    expect(detectDuckDuckGoDjsBlock({ status: 200, url: DJS_URL, body: "let jsa = 23;DDG.deep.initialize('/d.js?q=rust&s=0&jsa=');" })).toEqual({
      reason: 'DuckDuckGo d.js JavaScript challenge',
    })
    expect(detectDuckDuckGoDjsBlock({ status: 429, url: DJS_URL, body: '' })).toEqual({ reason: 'HTTP 429 from DuckDuckGo' })
    expect(detectDuckDuckGoDjsBlock({ status: 200, url: DJS_URL, body: fixture('djs/rust-programming-s0.constructed.js') })).toBeNull()
    expect(detectDuckDuckGoDjsBlock({ status: 200, url: DJS_URL, body: fixture('djs/rust-programming-s10.constructed.js') })).toBeNull()
  })
})
