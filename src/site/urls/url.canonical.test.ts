import { describe, expect, test } from 'vitest'
import { onSite } from './site.match.ts'
import { isTrackingParam } from './tracking-params.data.ts'
import { canonicalUrl, siteKey } from './url.canonical.ts'

describe('canonicalUrl', () => {
  test.each([
    ['HTTP://Example.COM:80/a/./b/../c?x=1#top', 'http://example.com/a/c?x=1'],
    ['https://example.com:443', 'https://example.com/'],
    ['https://example.com:8443/', 'https://example.com:8443/'],
    ['http://example.com./x', 'http://example.com/x'],
    ['http://example.com/%7euser/%41%2f%3a%c3%a9', 'http://example.com/~user/A%2F%3A%C3%A9'],
    ['http://example.com/a|b^c{d}', 'http://example.com/a%7Cb%5Ec%7Bd%7D'],
    ['http://example.com/100%/x', 'http://example.com/100%/x'],
    ['http://example.com/?', 'http://example.com/'],
    ['http://example.com/?&&', 'http://example.com/'],
    ['http://example.com/?b=2&a=1&b=1', 'http://example.com/?b=2&a=1&b=1'],
    ['http://example.com/p?q=a+b&r=a%20b', 'http://example.com/p?q=a+b&r=a%20b'],
    ['  http://example.com/\tpage\n ', 'http://example.com/page'],
    ['http://例え.jp/', 'http://xn--r8jz45g.jp/'],
    ['http://[::1]:8080/x', 'http://[::1]:8080/x'],
  ])('%s -> %s', (raw, expected) => {
    expect(canonicalUrl(raw)).toBe(expected)
  })

  test('relative links resolve against the page', () => {
    expect(canonicalUrl('../b/c.html#x', 'https://example.com/a/d/e.html')).toBe('https://example.com/a/b/c.html')
    expect(canonicalUrl('//cdn.example.com/x', 'https://example.com/')).toBe('https://cdn.example.com/x')
    expect(canonicalUrl('?page=2', 'https://example.com/list?page=1')).toBe('https://example.com/list?page=2')
  })

  test.each([
    'mailto:a@example.com',
    'javascript:void(0)',
    'ftp://example.com/file',
    'data:text/html,hi',
    'tel:+123',
    '/relative/without/base',
    'http://',
    'http://user:secret@example.com/',
    '',
  ])('rejects %j', (raw) => {
    expect(canonicalUrl(raw)).toBeNull()
  })

  test('ignoreQuery drops the whole query', () => {
    expect(canonicalUrl('https://example.com/a?id=3&utm_source=x#f', undefined, { ignoreQuery: true })).toBe('https://example.com/a')
  })

  test('is idempotent', () => {
    for (const raw of ['http://Example.com/a%7e/b?x=%c3%a9&utm_medium=m', 'https://example.com/a|b?c={d}', 'http://example.com/%2e%2E/x']) {
      const once = canonicalUrl(raw)!
      expect(canonicalUrl(once)).toBe(once)
    }
  })
})

describe('tracking parameters', () => {
  test.each([
    ['https://shop.example/item/42?utm_source=newsletter&utm_medium=email&utm_campaign=spring', 'https://shop.example/item/42'],
    ['https://shop.example/item/42?color=red&gclid=EAIaIQobChMI&size=m', 'https://shop.example/item/42?color=red&size=m'],
    ['https://news.example/story?fbclid=IwAR3x&id=7', 'https://news.example/story?id=7'],
    ['https://news.example/story?msclkid=abc', 'https://news.example/story'],
    ['https://blog.example/post?mc_cid=1a&mc_eid=2b', 'https://blog.example/post'],
    ['https://blog.example/post?_ga=2.1.2.3&_gl=1*abc', 'https://blog.example/post'],
    ['https://ru.example/page?yclid=123&q=x', 'https://ru.example/page?q=x'],
    ['https://www.instagram.example/p/Cx/?igshid=MzRlODBiNWFlZA==', 'https://www.instagram.example/p/Cx/'],
    ['https://example.com/a?UTM_Source=X&Keep=1', 'https://example.com/a?Keep=1'],
    ['https://example.com/a?utm%5Fsource=x&k=1', 'https://example.com/a?k=1'],
    ['https://example.com/a??utm_source=x&k=1', 'https://example.com/a?k=1'],
    ['https://example.com/a?_hsenc=p2A&__hstc=1&__hssc=2&__hsfp=3&hsCtaTracking=4', 'https://example.com/a'],
    ['https://example.com/a?mtm_campaign=c&pk_kwd=k&matomo_source=s&hsa_cam=1', 'https://example.com/a'],
    ['https://example.com/a?ttclid=1&twclid=2&dclid=3&wbraid=4&gbraid=5&srsltid=6', 'https://example.com/a'],
    ['https://example.com/a#utm_source=x', 'https://example.com/a'],
  ])('%s', (raw, expected) => {
    expect(canonicalUrl(raw)).toBe(expected)
  })

  test('names that sites use for content are kept', () => {
    for (const name of ['ref', 'referrer', 'si', 'id', 'page', 'q', 'source', 'campaign', 'mc', 'utmost', 'spmx', 'pk', 'ga']) {
      expect(isTrackingParam(name), name).toBe(false)
    }
    expect(canonicalUrl('https://github.com/o/r/blob/x?ref=main')).toBe('https://github.com/o/r/blob/x?ref=main')
  })
})

describe('siteKey', () => {
  test('folds www., scheme, trailing slash and parameter order', () => {
    const same = [
      'https://www.example.com/docs/?b=2&a=1',
      'http://example.com/docs?a=1&b=2',
      'HTTPS://EXAMPLE.com/docs/?a=1&b=2&utm_source=x#intro',
      'http://www.example.com:80/docs/./?a=1&b=2',
    ]
    expect(new Set(same.map((u) => siteKey(u)))).toEqual(new Set(['example.com/docs?a=1&b=2']))
    expect(siteKey('https://www.example.com/')).toBe('example.com')
    expect(siteKey('https://example.com')).toBe('example.com')
  })

  test('keeps what can name another page', () => {
    const keys = [
      'https://example.com/Docs',
      'https://example.com/docs',
      'https://example.com:8080/docs',
      'https://blog.example.com/docs',
      'https://example.com/docs?a=2&a=1',
    ]
    expect(new Set(keys.map((u) => siteKey(u))).size).toBe(keys.length)
    expect(siteKey('https://example.com/docs?a=2&a=1')).toBe('example.com/docs?a=2&a=1')
    expect(siteKey('https://www.com/')).toBe('www.com')
  })

  test('ignoreQuery and bare flags', () => {
    expect(siteKey('https://example.com/p?x=1', { ignoreQuery: true })).toBe(siteKey('https://example.com/p?y=2', { ignoreQuery: true }))
    expect(siteKey('https://example.com/p?flag&a=1')).toBe(siteKey('https://example.com/p?a=1&flag='))
  })

  test('a non-URL is its own key', () => {
    expect(siteKey('mailto:x@example.com')).toBe('mailto:x@example.com')
  })
})

describe('onSite', () => {
  test.each([
    ['https://example.com/a', 'https://www.example.com/', false, true],
    ['http://www.example.com/a', 'https://example.com/', false, true],
    ['https://example.com:8080/a', 'https://example.com/', false, true],
    ['https://EXAMPLE.com./a', 'https://example.com/', false, true],
    ['https://blog.example.com/a', 'https://example.com/', false, false],
    ['https://blog.example.com/a', 'https://example.com/', true, true],
    ['https://blog.example.com/a', 'https://www.example.com/', true, true],
    ['https://docs.example.com/a', 'https://blog.example.com/', true, true],
    ['https://example.com/a', 'https://blog.example.com/', true, true],
    ['https://example.org/a', 'https://example.com/', true, false],
    ['https://notexample.com/a', 'https://example.com/', true, false],
    ['https://bob.github.io/a', 'https://alice.github.io/', true, false],
    ['https://other.co.uk/', 'https://example.co.uk/', true, false],
    ['https://a.example.co.uk/', 'https://example.co.uk/', true, true],
    ['http://127.0.0.1:9/x', 'http://127.0.0.1:8/', true, true],
    ['http://127.0.0.2/x', 'http://127.0.0.1/', true, false],
    // Single-label hosts (no public suffix): the hosts below them are their subdomains.
    ['http://blog.localhost:8/x', 'http://localhost:8/', true, true],
    ['http://a.blog.localhost/x', 'http://localhost/', true, true],
    ['http://blog.localhost/x', 'http://localhost/', false, false],
    ['http://shop.localhost/x', 'http://blog.localhost/', true, true],
    ['http://localhost/x', 'http://blog.localhost/', true, true],
    ['http://otherlocalhost/x', 'http://localhost/', true, false],
    ['http://docs.wiki/x', 'http://wiki/', true, true],
    ['http://docs.wiki/x', 'http://intranet/', true, false],
    ['http://alice.github.io/', 'http://github.io/', true, false],
    ['http://[::2]/x', 'http://[::1]/', true, false],
    ['mailto:a@example.com', 'https://example.com/', true, false],
    ['not a url', 'https://example.com/', true, false],
  ])('%s on %s (subdomains %s) -> %s', (url, start, subs, expected) => {
    expect(onSite(url, start, subs)).toBe(expected)
  })
})
