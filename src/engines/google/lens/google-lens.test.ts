import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { fixture } from '../../../../test/support/fake-upstream.ts'
import type { VerticalRequest } from '../../engine.types.ts'
import type { EngineFetch } from '../../provider.types.ts'
import type { BlockDetector } from '../../upstream/upstream.types.ts'
import { detectGoogleLensBlock, isLensScriptShell } from './google-lens.block.ts'
import { googleLens } from './google-lens.ts'

const CONSTRUCTED = new URL('../../../../test/fixtures/google/lens/', import.meta.url)
const udm26 = readFileSync(new URL('lens-udm26-visual-matches.constructed.html', CONSTRUCTED), 'utf8')
const legacy = readFileSync(new URL('lens-legacy-afdata.constructed.html', CONSTRUCTED), 'utf8')
const g19kaf = readFileSync(new URL('lens-g19kaf-cards.constructed.html', CONSTRUCTED), 'utf8')
const captcha = fixture('serp/google/web-desktop/zlurad-recaptcha.html').toString('utf8')
const RESULTS_URL = 'https://www.google.com/search?vsrid=CJrS3sOq6ZuXkAEQAhgBIiQ4ZmQ0&udm=26&lns_mode=un&hl=en-US'

const req: VerticalRequest = { endpoint: 'lens', url: 'https://images.example.org/tabby.jpg', country: 'us', language: 'en' }

function fakeFetch(body: string, finalUrl = RESULTS_URL) {
  const calls: { url: string; detectBlock?: BlockDetector }[] = []
  const fetch: EngineFetch = async (url, _headers, detectBlock) => {
    calls.push({ url, detectBlock })
    return { status: 200, url: finalUrl, body }
  }
  return { fetch, calls }
}

describe('googleLens.run', () => {
  it('sends the image URL to uploadbyurl and parses the page the redirect lands on', async () => {
    const { fetch, calls } = fakeFetch(udm26)
    const answer = await googleLens.run(req, fetch)
    expect(calls).toHaveLength(1)
    expect(calls[0]!.url).toBe('https://lens.google.com/uploadbyurl?url=https%3A%2F%2Fimages.example.org%2Ftabby.jpg&hl=en-US&gl=us')
    expect(answer.parse_quality).toBe('ok')
    expect(answer.results).toHaveLength(6)
    expect(answer.results[4]).toMatchObject({ position: 5, title: 'Tabby cat - Wikipedia', domain: 'en.wikipedia.org' })
  })

  it('parses the older lens.google.com page too', async () => {
    const answer = await googleLens.run(req, fakeFetch(legacy, 'https://lens.google.com/search?p=AbCdEf').fetch)
    expect(answer.results.map((r) => r.source)).toEqual(['Trail Gear Co.', 'Flickr', 'Outdoor Kitchen', 'Campingmarkt', 'Pinterest'])
  })

  it('parses the older generation of HTML cards too', async () => {
    const answer = await googleLens.run(req, fakeFetch(g19kaf, 'https://lens.google.com/search?p=AbOlder').fetch)
    expect(answer.parse_quality).toBe('ok')
    expect(answer.results.map((r) => r.source)).toEqual(['Kitchen Store', 'Flickr', 'Retro Home'])
  })

  it('hands the upstream client a detector that refuses consent, CAPTCHA and shell pages', async () => {
    const { fetch, calls } = fakeFetch(udm26)
    await googleLens.run(req, fetch)
    const detect = calls[0]!.detectBlock!
    expect(detect({ status: 200, url: 'https://consent.google.com/ml?continue=https://lens.google.com/uploadbyurl', body: '' })).toEqual({
      code: 'upstream_blocked',
      reason: 'consent page',
    })
    expect(detect({ status: 302, url: 'https://www.google.com/sorry/index?continue=x', body: '' })).toEqual({
      code: 'upstream_blocked',
      reason: 'CAPTCHA page',
    })
    expect(detect({ status: 200, url: RESULTS_URL, body: captcha })).toEqual({ code: 'upstream_blocked', reason: 'CAPTCHA page' })
    expect(detect({ status: 200, url: RESULTS_URL, body: udm26 })).toBeNull()
    expect(detect({ status: 200, url: 'https://lens.google.com/search?p=AbCdEf', body: legacy })).toBeNull()
  })
})

describe('detectGoogleLensBlock', () => {
  // The result column is there (so the shared detector lets it through); cards and data are not.
  const shell = '<html><body><noscript><a href="/httpservice/retry/enablejs?sei=x">here</a></noscript><div id="search"><div id="rso"></div></div></body></html>'

  it('refuses the script-only shell', () => {
    expect(isLensScriptShell(shell)).toBe(true)
    expect(detectGoogleLensBlock({ status: 200, url: RESULTS_URL, body: shell })).toEqual({
      code: 'upstream_blocked',
      reason: 'Google Lens sent a JavaScript-only page without results',
    })
  })

  it('lets a page with cards or page data through even if it mentions enablejs', () => {
    expect(isLensScriptShell(`${udm26}<a href="/httpservice/retry/enablejs">x</a>`)).toBe(false)
    expect(isLensScriptShell(`${legacy}<a href="/httpservice/retry/enablejs">x</a>`)).toBe(false)
    expect(isLensScriptShell(`${g19kaf}<a href="/httpservice/retry/enablejs">x</a>`)).toBe(false)
  })
})
