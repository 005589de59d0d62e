import { describe, expect, it } from 'vitest'
import { listFixtures, readFixture } from '../../../test/support/fixtures.ts'
import { detectGoogleBlock } from './google-block.detect.ts'
import { parseGoogleSearch } from './google-search.parse.ts'

const read = (path: string) => readFixture(`serp/google/${path}`).toString('utf8')
const SEARCH_URL = 'https://www.google.com/search?q=coffee&hl=en'

const webFixtures = ['web-desktop/', 'web-desktop/old-2020/', 'web-mobile/', 'web-nojs/', 'web-basic/'].flatMap((dir) =>
  listFixtures(`serp/google/${dir}`)
    .filter((f) => f.endsWith('.html') && f !== 'zlurad-recaptcha.html')
    .map((f) => `${dir}${f}`),
)

describe('detectGoogleBlock', () => {
  it('flags the reCAPTCHA fixture page', () => {
    const verdict = detectGoogleBlock({ status: 200, url: SEARCH_URL, body: read('web-desktop/zlurad-recaptcha.html') })
    expect(verdict).toEqual({ code: 'upstream_blocked', reason: 'CAPTCHA form' })
  })

  it('returns null for every real result page, including the no-results pages', () => {
    expect(webFixtures.length).toBe(35)
    for (const path of webFixtures) {
      expect({ path, verdict: detectGoogleBlock({ status: 200, url: SEARCH_URL, body: read(path) }) }).toEqual({
        path,
        verdict: null,
      })
    }
  })

  it('flags the sorry host and path, whatever the body', () => {
    expect(detectGoogleBlock({ status: 200, url: 'https://sorry.google.com/sorry/index?continue=x', body: '' })?.code).toBe('upstream_blocked')
    expect(detectGoogleBlock({ status: 200, url: 'https://www.google.com/sorry/index?continue=x', body: '<html></html>' })?.reason).toBe(
      'redirected to the Google CAPTCHA page',
    )
  })

  it('flags a small body that points at /sorry/', () => {
    const body = '<html><body>Our systems have detected unusual traffic. <a href="/sorry/index?continue=x">Continue</a></body></html>'
    expect(detectGoogleBlock({ status: 200, url: SEARCH_URL, body })?.reason).toBe('Google "unusual traffic" page')
  })

  it('flags HTTP 429 and a 503 reCAPTCHA', () => {
    expect(detectGoogleBlock({ status: 429, url: SEARCH_URL, body: '' })?.reason).toBe('HTTP 429 from Google')
    const recaptcha = '<script src="https://www.google.com/recaptcha/api.js"></script>'
    expect(detectGoogleBlock({ status: 503, url: SEARCH_URL, body: recaptcha })?.reason).toBe('reCAPTCHA challenge (HTTP 503)')
  })

  it('flags the consent wall, by redirect or by content', () => {
    expect(detectGoogleBlock({ status: 200, url: 'https://consent.google.com/ml?continue=x', body: '' })?.reason).toBe('redirected to the Google consent page')
    const wall = `<html><head><title>Before you continue to Google</title></head><body>${'<p>cookies</p>'.repeat(3000)}
      <form action="https://consent.google.com/save" method="POST"><button>Accept all</button></form></body></html>`
    expect(detectGoogleBlock({ status: 200, url: SEARCH_URL, body: wall })?.reason).toBe('Google consent wall')
  })

  it('flags the "update your browser" and JavaScript-required interstitials', () => {
    const old = '<html><body><h1>Please update your browser</h1><p>Your browser is no longer supported.</p></body></html>'
    expect(detectGoogleBlock({ status: 200, url: SEARCH_URL, body: old })?.reason).toBe('Google browser check (JavaScript or a newer browser required)')
    const js = '<html><body><noscript><meta content="0;url=/httpservice/retry/enablejs?sei=x" http-equiv="refresh"></noscript></body></html>'
    expect(detectGoogleBlock({ status: 200, url: SEARCH_URL, body: js })?.code).toBe('upstream_blocked')
  })

  it('does not flag a result page that embeds the consent dialog', () => {
    const body = `<html><body><div id="rso"><div><a href="https://example.com/"><h3>Example</h3></a></div></div>
      <div role="dialog"><h1>Before you continue to Google</h1></div></body></html>`
    expect(detectGoogleBlock({ status: 200, url: SEARCH_URL, body })).toBeNull()
  })
})

describe('parseGoogleSearch on a block page', () => {
  it('returns no results and quality "empty" for the reCAPTCHA page', () => {
    expect(parseGoogleSearch(read('web-desktop/zlurad-recaptcha.html'))).toEqual({ results: [], parse_quality: 'empty' })
  })
})
