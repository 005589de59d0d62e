import { describe, expect, it } from 'vitest'
import { listFixtures, readFixture } from '../../../test/support/fixtures.ts'
import { detectGoogleBlock } from './google-block.detect.ts'
import { parseGoogleSearch } from './google-search.parse.ts'

const read = (path: string) => readFixture(`serp/google/${path}`).toString('utf8')
const SEARCH_URL = 'https://www.google.com/search?q=coffee&hl=en'
const ENABLEJS_NOSCRIPT = '<noscript><meta content="0;url=/httpservice/retry/enablejs?sei=x" http-equiv="refresh"></noscript>'
// Written to the JavaScript page as clients that run no scripts print it (the texts and links of
// Google's page; its check script left out).
const ENABLEJS_PAGE = `<!doctype html><html lang="en"><head><title>Google Search</title><script nonce="x">(function(){var z=1;})();</script></head><body>
${ENABLEJS_NOSCRIPT}
<div>Please click <a href="/httpservice/retry/enablejs?sei=x">here</a> if you are not redirected within a few seconds.</div>
<div>If you're having trouble accessing Google Search, please <a href="/search?q=coffee&amp;emsg=SG_REL&amp;sei=x">click here</a>, or send <a href="https://support.google.com/websearch">feedback</a>.</div>
</body></html>`

const webFixtures = ['web-desktop/', 'web-desktop/old-2020/', 'web-mobile/', 'web-nojs/', 'web-basic/'].flatMap((dir) =>
  listFixtures(`serp/google/${dir}`)
    .filter((f) => f.endsWith('.html') && f !== 'zlurad-recaptcha.html')
    .map((f) => `${dir}${f}`),
)

describe('detectGoogleBlock', () => {
  it('flags the reCAPTCHA fixture page', () => {
    const verdict = detectGoogleBlock({ status: 200, url: SEARCH_URL, body: read('web-desktop/zlurad-recaptcha.html') })
    expect(verdict).toEqual({ code: 'upstream_blocked', reason: 'CAPTCHA page' })
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
    expect(detectGoogleBlock({ status: 200, url: 'https://www.google.com/sorry/index?continue=x', body: '<html></html>' })?.reason).toBe('CAPTCHA page')
  })

  it('flags a small body that points at /sorry/', () => {
    const body = '<html><body>Our systems have detected unusual traffic. <a href="/sorry/index?continue=x">Continue</a></body></html>'
    expect(detectGoogleBlock({ status: 200, url: SEARCH_URL, body })?.reason).toBe('CAPTCHA page')
  })

  it('flags HTTP 429 and a 503 reCAPTCHA', () => {
    expect(detectGoogleBlock({ status: 429, url: SEARCH_URL, body: '' })?.reason).toBe('HTTP 429 (too many requests)')
    const recaptcha = '<script src="https://www.google.com/recaptcha/api.js"></script>'
    expect(detectGoogleBlock({ status: 503, url: SEARCH_URL, body: recaptcha })?.reason).toBe('CAPTCHA page (HTTP 503)')
  })

  it('flags the consent wall, by redirect or by content', () => {
    expect(detectGoogleBlock({ status: 200, url: 'https://consent.google.com/ml?continue=x', body: '' })?.reason).toBe('consent page')
    const wall = `<html><head><title>Before you continue to Google</title></head><body>${'<p>cookies</p>'.repeat(3000)}
      <form action="https://consent.google.com/save" method="POST"><button>Accept all</button></form></body></html>`
    expect(detectGoogleBlock({ status: 200, url: SEARCH_URL, body: wall })?.reason).toBe('consent page')
  })

  it('flags the outdated-browser page', () => {
    const old = '<html><body><h1>Please update your browser</h1><p>Your browser is no longer supported.</p></body></html>'
    expect(detectGoogleBlock({ status: 200, url: SEARCH_URL, body: old })?.reason).toBe('outdated-browser page')
  })

  it('flags the JavaScript page as such, never as a CAPTCHA or rate limiting: as a body, a redirect or a final URL', () => {
    // The page a client that runs no scripts gets for /search: a <noscript> refresh to the enablejs
    // endpoint, a check script, a retry link and Google's help links, no result.
    expect(detectGoogleBlock({ status: 200, url: SEARCH_URL, body: ENABLEJS_PAGE })).toEqual({
      code: 'upstream_blocked',
      reason: 'JavaScript page (results need scripts)',
    })
    // A redirect not followed: the upstream client asks the detector about its target.
    const target = 'https://www.google.com/httpservice/retry/enablejs?sei=Xq0qhab'
    expect(detectGoogleBlock({ status: 302, url: target, body: '' })?.reason).toBe('JavaScript page (results need scripts)')
    expect(detectGoogleBlock({ status: 200, url: target, body: '<html><body>Please enable JavaScript</body></html>' })?.reason).toBe(
      'JavaScript page (results need scripts)',
    )
  })

  it('does not flag a result page that carries the enablejs <noscript> refresh, whatever its layout', () => {
    // Every JavaScript result page carries it; one whose result column the detector does not know
    // is still results when it links out.
    const page = `<html><body><div><a href="https://example.com/a"><div role="heading">Example</div></a></div>${ENABLEJS_NOSCRIPT}</body></html>`
    expect(detectGoogleBlock({ status: 200, url: SEARCH_URL, body: page })).toBeNull()
    const desktop = read('web-desktop/starify-react-github-2025.html')
    expect(desktop).toContain('/httpservice/retry/enablejs')
    expect(detectGoogleBlock({ status: 200, url: SEARCH_URL, body: desktop })).toBeNull()
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
