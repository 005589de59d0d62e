import { describe, expect, test } from 'vitest'
import { WML_USER_AGENTS } from '../google/google-wml.url.ts'
import { WIKIMEDIA_USER_AGENT } from '../wikipedia/wikipedia.request.ts'
import { DEFAULT_BROWSER, FEATURE_PHONE_BROWSER, planBrowserRequest, profileFor, secChUa } from './browser-headers.ts'

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

  test("a feature phone's UA (Google's WML Nokias, the Presto UA of its no-JS verticals) gets chrome100, the closest to chrome99_android", () => {
    expect(FEATURE_PHONE_BROWSER).toBe('chrome100')
    const presto = 'Opera/9.80 (Android 4.1.2; Linux; Opera Mobi/ADR-1305251841) Presto/2.11.355 Version/12.10'
    for (const ua of [...WML_USER_AGENTS, presto]) {
      const plan = planBrowserRequest({ 'user-agent': ua, accept: '*/*', cookie: 'CONSENT=YES+' })
      expect(plan.browser, ua).toBe('chrome100')
      // Only its own headers, and Chrome 100's Accept-Encoding (zstd came with Chrome 123).
      expect(
        plan.headers.filter(([, v]) => v !== ''),
        ua,
      ).toEqual([
        ['user-agent', ua],
        ['accept', '*/*'],
        ['cookie', 'CONSENT=YES+'],
        ['accept-encoding', 'gzip, deflate, br'],
      ])
      expect(plan.headers.filter(([, v]) => v === '').map(([n]) => n)).toEqual(expect.arrayContaining(['sec-ch-ua', 'sec-fetch-mode', 'priority']))
    }
  })

  test("a bot UA (Wikipedia's) keeps the default Chrome handshake: it imitates no browser", () => {
    expect(planBrowserRequest({ 'user-agent': WIKIMEDIA_USER_AGENT }).browser).toBe(DEFAULT_BROWSER)
    expect(planBrowserRequest({ 'user-agent': 'Trawl/0.1 (self-hosted search API; SearXNG JSON client)' }).browser).toBe(DEFAULT_BROWSER)
  })

  test("a script or XHR of the page (Sec-Fetch-Mode not navigate) drops the navigation-only headers, impit's own too", () => {
    const ua = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/151.0.0.0 Safari/537.36'
    const plan = planBrowserRequest({ 'user-agent': ua, accept: '*/*', 'sec-fetch-dest': 'script', 'sec-fetch-mode': 'no-cors', 'sec-fetch-site': 'same-site' })
    expect(plan.browser).toBe('chrome151')
    const headers = new Map(plan.headers)
    expect(headers.get('upgrade-insecure-requests')).toBe('')
    expect(headers.get('sec-fetch-user')).toBe('')
    expect(headers.get('sec-ch-ua')).toBe(secChUa(151))
    // A navigation keeps them.
    const nav = new Map(planBrowserRequest({ 'user-agent': ua, 'sec-fetch-mode': 'navigate' }).headers)
    expect([nav.get('upgrade-insecure-requests'), nav.get('sec-fetch-user')]).toEqual(['1', '?1'])
  })

  test("no UA: impit's own Chrome profile, headers passed as given", () => {
    expect(planBrowserRequest({ accept: 'text/html' })).toEqual({ browser: DEFAULT_BROWSER, headers: [['accept', 'text/html']] })
  })
})
