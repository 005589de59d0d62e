import { describe, expect, test } from 'vitest'
import { readFixture } from '../../../test/support/fixtures.ts'
import { canonicalUrl, siteKey } from './url.canonical.ts'

/**
 * Vectors from fixtures/corpora/url-normalization (see its SOURCES.md). Each library
 * canonicalises for its own purpose, so a vector is checked as an equivalence: where the library
 * says input and expected are the same resource, our `siteKey` must agree, given both are URLs we
 * accept. Vectors for options we do not have are not applicable; every remaining disagreement is
 * listed below with its reason, so a change in behaviour fails here.
 */
const load = <T>(name: string): T[] => JSON.parse(readFixture(`corpora/url-normalization/${name}`).toString('utf8'))

interface Tally {
  applicable: number
  passed: number
  failed: string[]
}

function tally(cases: { id: string; applicable: boolean; pass: boolean }[]): Tally {
  const applicable = cases.filter((c) => c.applicable)
  return { applicable: applicable.length, passed: applicable.filter((c) => c.pass).length, failed: applicable.filter((c) => !c.pass).map((c) => c.id) }
}

function report(name: string, total: number, t: Tally) {
  console.info(`${name}: ${t.passed}/${t.applicable} applicable vectors agree (${total} in file)`)
}

/** Both sides are URLs we accept and fold to the same key. */
const sameResource = (a: string, b: string, ignoreQuery = false) =>
  canonicalUrl(a) !== null && canonicalUrl(b) !== null && siteKey(a, { ignoreQuery }) === siteKey(b, { ignoreQuery })

/** Libraries that accept `example.com/x` assume http; so do we when comparing with them. */
function withScheme(raw: string): string {
  const s = raw.trim()
  return /^[a-z][a-z0-9+.-]*:/i.test(s) ? s : s.startsWith('//') ? `http:${s}` : `http://${s}`
}

describe('url-normalization corpus', () => {
  test('WPT urltestdata: what parses, what fails, and to which URL', () => {
    type Wpt = { input: string; base: string | null; failure?: boolean; href?: string; protocol?: string; username?: string; password?: string }
    const rows = load<Wpt>('wpt-urltestdata-dev.json')
    const cases = rows.map((r, i) => {
      const got = canonicalUrl(r.input, r.base ?? undefined)
      const http = r.protocol === 'http:' || r.protocol === 'https:'
      let pass: boolean
      if (r.failure || !http || r.username || r.password) pass = got === null
      else pass = got !== null && got === canonicalUrl(r.href!)
      return { id: `#${i} ${JSON.stringify(r.input)}`, applicable: true, pass }
    })
    const t = tally(cases)
    report('wpt-urltestdata-dev', rows.length, t)
    // A host made only of dots is empty once trailing dots are folded: no site to read. Node 24's URL
    // parser accepts a label that is not valid Punycode (xn--pokxncvks), which WPT refuses (Node 20 refuses it too).
    const nodePunycode = ['#145 "http://a.b.c.xn--pokxncvks"', '#146 "http://a.b.c.XN--pokxncvks"', '#147 "http://10.0.0.XN--pokxncvks"']
    expect(t.failed.filter((f) => !nodePunycode.includes(f))).toEqual(['#157 "http://./"'])
  })

  test('normalize-url: same page by its defaults', () => {
    type Fact = { id: string; input: string; options: Record<string, unknown> | null; expected?: string; expected_error?: unknown }
    const facts = load<Fact>('normalize-url-dev.json')
    // Options that switch on rewrites we do not make, or change what we always do.
    const unsupported = (o: Record<string, unknown>) =>
      Boolean(o.removeDirectoryIndex || o.removeExplicitPort) ||
      ['removeQueryParameters', 'keepQueryParameters', 'stripAuthentication', 'normalizeProtocol'].some((k) => k in o)
    const cases = facts.map((f) => {
      const input = withScheme(f.input)
      const http = /^https?:/i.test(input)
      // An error for conflicting options says nothing about URLs; an invalid URL must be rejected.
      if (f.expected === undefined) return { id: f.id, applicable: f.options === null, pass: canonicalUrl(f.input) === null }
      if (!http) return { id: f.id, applicable: true, pass: canonicalUrl(f.input) === null }
      return { id: f.id, applicable: !unsupported(f.options ?? {}), pass: sameResource(input, withScheme(f.expected)) }
    })
    const t = tally(cases)
    report('normalize-url-dev', facts.length, t)
    expect(t.failed.sort()).toEqual(
      [
        // `+` and `%20` are different bytes in a query; only form decoding equates them.
        'normalize-url#14',
        // Repeated slashes are kept: `/a//b` and `/a/b` are different paths to most servers.
        'normalize-url#16',
        'normalize-url#18',
        'normalize-url#162',
        'normalize-url#164',
        'normalize-url#166',
        'normalize-url#170',
        'normalize-url#172',
        'normalize-url#174',
        'normalize-url#176',
        'normalize-url#178',
        // `%5B` is kept encoded: only unreserved characters are decoded (RFC 3986 6.2.2.2).
        'normalize-url#202',
        // URLs with credentials are rejected, not stripped: the page behind them may differ.
        'normalize-url#40',
        'normalize-url#42',
      ].sort(),
    )
  })

  test('w3lib canonicalize_url and url_query_cleaner', () => {
    type Fact = { id: string; function: string; args: unknown[]; kwargs: Record<string, unknown>; expected: string }
    const facts = load<Fact>('w3lib-dev.json')
    const text = (a: unknown) => (typeof a === 'string' ? a : Buffer.from((a as { bytes_base64: string }).bytes_base64, 'base64').toString('utf8'))
    let exact = 0
    const cases = facts.map((f) => {
      const input = text(f.args[0])
      if (f.function === 'url_query_cleaner') {
        // Only the bare-call vectors (empty query dropped) match ours; the rest filter by a keep list.
        const applicable = f.args.length === 1
        return { id: f.id, applicable, pass: canonicalUrl(input, 'http://h.test/') === canonicalUrl(f.expected, 'http://h.test/') }
      }
      // Query bytes in a page's legacy encoding: we always have UTF-8 from the URL parser.
      const applicable = /^\s*https?:/i.test(input) && f.kwargs.encoding !== 'cp1251'
      const expected = f.expected.replace(/#.*$/, '')
      if (canonicalUrl(input) === expected) exact++
      return { id: f.id, applicable, pass: sameResource(input, expected) }
    })
    const t = tally(cases)
    report('w3lib-dev', facts.length, t)
    console.info(`w3lib-dev: canonicalUrl equals canonicalize_url exactly on ${exact} vectors`)
    expect(t.failed.sort()).toEqual(
      [
        // Repeated names keep their order (`b=5&b=2` is a list); w3lib sorts by value too.
        'w3lib#28',
        // `%20` vs `+` in a query (see normalize-url#14).
        'w3lib#34',
        'w3lib#36',
        // URLs with credentials are rejected: we would not send them.
        'w3lib#56',
        'w3lib#58',
        'w3lib#72',
      ].sort(),
    )
  })

  test('safebrowsing canonical URLs', () => {
    type Fact = { id: string; url?: string; url_bytes_base64?: string; expected: string; fail: boolean }
    const facts = load<Fact>('safebrowsing-canonicalurl-dev.json')
    let exact = 0
    const cases = facts.map((f) => {
      const input = f.url ?? Buffer.from(f.url_bytes_base64!, 'base64').toString('latin1')
      if (f.fail) return { id: f.id, applicable: true, pass: canonicalUrl(input) === null }
      if (canonicalUrl(withScheme(input)) === f.expected) exact++
      // Safe Browsing drops the query; compare without it.
      return { id: f.id, applicable: /^https?:/i.test(withScheme(input).trim()), pass: sameResource(withScheme(input), f.expected, true) }
    })
    const t = tally(cases)
    report('safebrowsing-canonicalurl-dev', facts.length, t)
    console.info(`safebrowsing-canonicalurl-dev: canonicalUrl equals the expected URL exactly on ${exact} vectors`)
    expect(t.failed.sort()).toEqual(
      [
        // Safe Browsing unescapes repeatedly; `%2525` is a literal `%25` to the server, so we keep it.
        'safebrowsing#2',
        'safebrowsing#4',
        'safebrowsing#6',
        // Control characters or spaces in a host: invalid to the WHATWG parser, as in browsers.
        'safebrowsing#20',
        'safebrowsing#24',
        'safebrowsing#26',
        // It drops every port; a non-default port is another server.
        'safebrowsing#22',
        // A wholly percent-encoded URL is not a URL.
        'safebrowsing#34',
        // `http:///blah` is http://blah/ to the WHATWG parser (and browsers); Safe Browsing refuses it.
        'safebrowsing#46',
        'safebrowsing#48',
        'safebrowsing#50',
      ].sort(),
    )
  })
})
