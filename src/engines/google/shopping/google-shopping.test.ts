import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { fixture } from '../../../../test/support/fake-upstream.ts'
import type { VerticalRequest } from '../../engine.types.ts'
import type { EngineFetch } from '../../provider.types.ts'
import type { BlockDetector } from '../../upstream/upstream.types.ts'
import { detectGoogleShoppingBlock, isScriptShell } from './google-shopping.block.ts'
import { googleShopping } from './google-shopping.ts'

const CONSTRUCTED = new URL('../../../../test/fixtures/google/shopping/', import.meta.url)
const usPage = readFileSync(new URL('shopping-tbm-shop-us.constructed.html', CONSTRUCTED), 'utf8')
const captcha = fixture('serp/google/web-desktop/zlurad-recaptcha.html').toString('utf8')
const SHOP_URL = 'https://www.google.com/search?q=running%20shoes&tbm=shop&hl=en&gl=us'

const req = (r: Partial<VerticalRequest> = {}): VerticalRequest => ({ endpoint: 'shopping', q: 'running shoes', country: 'us', language: 'en', page: 1, ...r })

function fakeFetch(body: string) {
  const calls: { url: string; headers: Record<string, string>; detectBlock?: BlockDetector }[] = []
  const fetch: EngineFetch = async (url, headers, detectBlock) => {
    calls.push({ url, headers, detectBlock })
    return { status: 200, url, body }
  }
  return { fetch, calls }
}

describe('googleShopping.run', () => {
  it('fetches one tbm=shop page and returns its products', async () => {
    const { fetch, calls } = fakeFetch(usPage)
    const answer = await googleShopping.run(req({ page: 2 }), fetch)
    expect(calls).toHaveLength(1)
    const u = new URL(calls[0]!.url)
    expect(u.origin + u.pathname).toBe('https://www.google.com/search')
    expect(u.searchParams.get('tbm')).toBe('shop')
    expect(u.searchParams.get('start')).toBe('60')
    expect(answer.parse_quality).toBe('ok')
    expect(answer.results).toHaveLength(5)
    expect(answer.results[0]).toMatchObject({ position: 61, title: "Stridewell Trail Runner GTX Men's Running Shoes", price_value: 1299 })
  })

  it('hands the upstream client a detector that refuses block pages and passes product pages', async () => {
    const { fetch, calls } = fakeFetch(usPage)
    await googleShopping.run(req(), fetch)
    const detect = calls[0]!.detectBlock!
    expect(detect({ status: 200, url: SHOP_URL, body: captcha })).toEqual({ code: 'upstream_blocked', reason: 'CAPTCHA page' })
    expect(detect({ status: 302, url: 'https://www.google.com/sorry/index?continue=x', body: '' })).not.toBeNull()
    expect(detect({ status: 200, url: 'https://consent.google.com/ml?continue=x', body: '' })).not.toBeNull()
    expect(detect({ status: 200, url: SHOP_URL, body: usPage })).toBeNull()
  })
})

describe('detectGoogleShoppingBlock', () => {
  // The empty result column is there (so the shared detector lets it through), the products are not.
  const shell =
    '<html><body><noscript><meta http-equiv="refresh" content="0;url=/httpservice/retry/enablejs?sei=abc"></noscript><div id="search"><div id="rso"></div></div></body></html>'

  it('refuses the script-only shell without products', () => {
    expect(isScriptShell(shell)).toBe(true)
    expect(detectGoogleShoppingBlock({ status: 200, url: SHOP_URL, body: shell })).toEqual({
      code: 'upstream_blocked',
      reason: 'Google Shopping sent a JavaScript-only page without products',
    })
  })

  it('passes real pages that carry products or the result column', () => {
    const realPla = fixture('serp/google/web-desktop/codechallenge-best-running-shoes.html').toString('utf8')
    expect(detectGoogleShoppingBlock({ status: 200, url: SHOP_URL, body: realPla })).toBeNull()
    expect(isScriptShell(`${usPage}<a href="/httpservice/retry/enablejs">x</a>`)).toBe(false)
  })

  it('refuses HTTP 429', () => {
    expect(detectGoogleShoppingBlock({ status: 429, url: SHOP_URL, body: '' })).toEqual({ code: 'upstream_blocked', reason: 'HTTP 429 (too many requests)' })
  })
})
