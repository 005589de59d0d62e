import { describe, expect, it } from 'vitest'
import { readFixture } from '../../../test/support/fixtures.ts'
import { detectBingBlock } from './bing.block.ts'

const URL_ = 'https://www.bing.com/search?q=javascript+tutorial'
const challenge = readFixture('serp/bing/web/wsmcp-javascript-tutorial-browser-2026.html').toString('utf8')
const results = readFixture('serp/bing/web/wsmcp-javascript-tutorial-http-2026.html').toString('utf8')
const images = readFixture('serp/bing/images/aql-rpg-title-screen.html').toString('utf8')

describe('detectBingBlock', () => {
  it('recognises the "One last step" challenge served with status 200', () => {
    expect(challenge).toContain('One last step')
    expect(detectBingBlock({ status: 200, url: URL_, body: challenge })).toEqual({ reason: 'Bing challenge page ("One last step")' })
  })

  it('recognises a redirect to the challenge or the old captcha, and rate limiting', () => {
    expect(detectBingBlock({ status: 200, url: 'https://www.bing.com/challenge?rurl=x', body: '' })?.reason).toBe('redirected to the Bing challenge page')
    expect(detectBingBlock({ status: 302, url: 'https://www.bing.com/turing/captcha/challenge', body: '' })?.reason).toBe(
      'redirected to the Bing challenge page',
    )
    expect(detectBingBlock({ status: 429, url: URL_, body: results })?.reason).toBe('HTTP 429 from Bing')
    expect(detectBingBlock({ status: 403, url: URL_, body: '' })?.reason).toBe('HTTP 403 from Bing')
    expect(detectBingBlock({ status: 403, url: URL_, body: '<html><body>Forbidden</body></html>' })?.reason).toBe('HTTP 403 from Bing')
  })

  it('recognises b_captcha and Cloudflare interstitials', () => {
    expect(detectBingBlock({ status: 200, url: URL_, body: '<div id="b_captcha"><img src="/turing/captcha/x"></div>' })?.reason).toBe('Bing CAPTCHA page')
    const cf = '<!DOCTYPE html><html><head><title>Just a moment...</title></head><body><div id="cf-chl-widget"></div></body></html>'
    expect(detectBingBlock({ status: 403, url: URL_, body: cf })?.reason).toBe('Cloudflare challenge page')
  })

  it('never reads a result page as a block, even one naming the challenge in its scripts', () => {
    expect(results).toContain('turnstile')
    expect(detectBingBlock({ status: 200, url: URL_, body: results })).toBeNull()
    expect(detectBingBlock({ status: 200, url: 'https://www.bing.com/images/search?q=rpg', body: images })).toBeNull()
    const withConfig = results.replace('</body>', '<script>var CfConfig={"verifyEndpoint":"https://www.bing.com/challenge/verify?partner=7"}</script></body>')
    expect(detectBingBlock({ status: 200, url: URL_, body: withConfig })).toBeNull()
    expect(detectBingBlock({ status: 200, url: URL_, body: '' })).toBeNull()
  })
})
