import { describe, expect, test } from 'vitest'
import { DEFAULT_BROWSER, planBrowserRequest, profileFor, secChUa } from './browser-headers.ts'

const ANDROID_138 = 'Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/138.0.0.0 Mobile Safari/537.36'
const MAC_142 = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/142.0.0.0 Safari/537.36'

describe('Sec-CH-UA from the UA version', () => {
  test("Chromium's greased brand list, as those Chrome versions send it", () => {
    expect(secChUa(138)).toBe('"Not)A;Brand";v="8", "Chromium";v="138", "Google Chrome";v="138"')
    expect(secChUa(124)).toBe('"Chromium";v="124", "Google Chrome";v="124", "Not-A.Brand";v="99"')
    expect(secChUa(120)).toBe('"Not_A Brand";v="8", "Chromium";v="120", "Google Chrome";v="120"')
  })
})

describe('impersonation profile', () => {
  test('the newest profile not newer than the UA; the oldest for an older UA', () => {
    expect(profileFor('chrome', 138)).toBe('chrome136')
    expect(profileFor('chrome', 142)).toBe('chrome142')
    expect(profileFor('chrome', 200)).toBe('chrome151')
    expect(profileFor('chrome', 99)).toBe('chrome136')
    expect(profileFor('firefox', 141)).toBe('firefox135')
  })
})

describe('header plan', () => {
  test("a mobile Chrome UA: hints derived from it, the engine's values kept, Chrome's order", () => {
    const plan = planBrowserRequest({
      'user-agent': ANDROID_138,
      accept: 'text/html',
      'accept-language': 'fr',
      cookie: 'CONSENT=YES+',
      'x-forwarded-host': 'www.google.com',
    })
    expect(plan.browser).toBe('chrome136')
    expect(plan.headers).toEqual([
      ['sec-ch-ua', secChUa(138)],
      ['sec-ch-ua-mobile', '?1'],
      ['sec-ch-ua-platform', '"Android"'],
      ['upgrade-insecure-requests', '1'],
      ['user-agent', ANDROID_138],
      ['accept', 'text/html'],
      ['sec-fetch-site', 'none'],
      ['sec-fetch-mode', 'navigate'],
      ['sec-fetch-user', '?1'],
      ['sec-fetch-dest', 'document'],
      ['accept-encoding', 'gzip, deflate, br, zstd'],
      ['accept-language', 'fr'],
      ['cookie', 'CONSENT=YES+'],
      ['priority', 'u=0, i'],
      ['x-forwarded-host', 'www.google.com'],
    ])
  })

  test('client hints the engine sets win over the derived ones', () => {
    const plan = planBrowserRequest({ 'user-agent': MAC_142, 'sec-ch-ua-platform': '"Windows"', 'sec-fetch-site': 'same-origin' })
    const headers = new Map(plan.headers)
    expect(plan.browser).toBe('chrome142')
    expect(headers.get('sec-ch-ua-platform')).toBe('"Windows"')
    expect(headers.get('sec-ch-ua-mobile')).toBe('?0')
    expect(headers.get('sec-fetch-site')).toBe('same-origin')
  })

  test('a UA of neither Chromium nor Firefox keeps only the given headers and removes the profile ones', () => {
    const plan = planBrowserRequest({ 'user-agent': 'Trawl/0.1 (bot)', accept: 'application/json' })
    expect(plan.browser).toBe(DEFAULT_BROWSER)
    const kept = plan.headers.filter(([, v]) => v !== '')
    expect(kept).toEqual([
      ['user-agent', 'Trawl/0.1 (bot)'],
      ['accept', 'application/json'],
      ['accept-encoding', 'gzip, deflate, br, zstd'],
    ])
    const removed = plan.headers.filter(([, v]) => v === '').map(([n]) => n)
    expect(removed).toEqual(expect.arrayContaining(['sec-ch-ua', 'sec-ch-ua-mobile', 'sec-ch-ua-platform', 'sec-fetch-mode', 'priority', 'accept-language']))
    expect(removed).not.toContain('accept')
  })

  test("no UA: impit's own Chrome profile, headers passed as given", () => {
    expect(planBrowserRequest({ accept: 'text/html' })).toEqual({ browser: DEFAULT_BROWSER, headers: [['accept', 'text/html']] })
  })
})
