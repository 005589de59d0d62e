import type { Browser } from 'impit'

/**
 * Which browser impit impersonates for one engine request, and the header block sent with it.
 *
 * The decision: the engine's own User-Agent always wins and picks the rest. Engines choose their
 * UA deliberately (Google's no-JS verticals ask as Opera Mobile on Presto to get the basic layout,
 * DuckDuckGo's vqd token is bound to its Firefox UA, Wikipedia wants a named bot), so it is never
 * replaced; what travels with it must not contradict it:
 *
 * - a Chromium UA (`Chrome/N`): Chrome's TLS and HTTP/2 fingerprint (the newest impit profile not
 *   newer than N), and Chrome's navigation headers in Chrome's order. The client hints that
 *   impit's profile would send for its own version and for macOS are derived from the UA instead:
 *   `Sec-CH-UA` with the UA's major version (Chromium's GREASE brand algorithm), the platform
 *   and mobile flag from the UA's OS. Headers the engine set (Accept, Cookie, Sec-Fetch-Site,
 *   Google's own Sec-CH-UA-Platform...) replace the defaults at their place in that order.
 * - a Firefox UA: the same with Firefox's profile, defaults and order (Firefox sends no client hints).
 * - any other UA (the Presto feature-phone UA, Wikipedia's bot UA): Chrome's TLS handshake, which is
 *   all that gets such a request past a TLS gate, but only the engine's own headers plus
 *   Accept-Encoding: every header impit's profile would add (client hints, Sec-Fetch-*, Priority)
 *   is removed (impit drops a header given as ''), because that browser would not send them and
 *   Google picks the basic layout only for a client without client hints.
 * - no UA at all: impit's Chrome profile as it is, its own UA included.
 *
 * Impit sends the headers it is given first, in the order given, then whatever of its profile was
 * not given; giving the whole block is what keeps the browser's order. Accept-Encoding is the
 * browser's (zstd included): impit decodes gzip, deflate, br and zstd itself.
 */
export interface BrowserRequestPlan {
  browser: Browser
  /** In sending order; a '' value removes impit's own header of that name. */
  headers: [string, string][]
}

type Family = 'chrome' | 'firefox'

/** Impit's profiles with GREASE and X25519MLKEM768 in the hello, oldest first. */
const PROFILES: Record<Family, [number, Browser][]> = {
  chrome: [
    [136, 'chrome136'],
    [142, 'chrome142'],
    [151, 'chrome151'],
  ],
  firefox: [
    [128, 'firefox128'],
    [133, 'firefox133'],
    [135, 'firefox135'],
    [144, 'firefox144'],
  ],
}

/** The TLS handshake for a UA that is neither Chromium nor Firefox, and for no UA. */
export const DEFAULT_BROWSER: Browser = 'chrome142'

const ACCEPT_ENCODING = 'gzip, deflate, br, zstd'

/** A top-level navigation's headers as the browser sends them (defaults; undefined = only if given). */
const ORDER: Record<Family, [string, string | undefined][]> = {
  // Chrome 13x over HTTP/2; a form POST adds cache-control, origin, content-type and referer.
  chrome: [
    ['cache-control', undefined],
    ['sec-ch-ua', undefined], // derived from the UA below
    ['sec-ch-ua-mobile', undefined],
    ['sec-ch-ua-platform', undefined],
    ['origin', undefined],
    ['content-type', undefined],
    ['upgrade-insecure-requests', '1'],
    ['user-agent', undefined],
    ['accept', 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,image/apng,*/*;q=0.8,application/signed-exchange;v=b3;q=0.7'],
    ['sec-fetch-site', 'none'],
    ['sec-fetch-mode', 'navigate'],
    ['sec-fetch-user', '?1'],
    ['sec-fetch-dest', 'document'],
    ['referer', undefined],
    ['accept-encoding', ACCEPT_ENCODING],
    ['accept-language', 'en-US,en;q=0.9'],
    ['cookie', undefined],
    ['priority', 'u=0, i'],
  ],
  // Firefox 13x-14x.
  firefox: [
    ['user-agent', undefined],
    ['accept', 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8'],
    ['accept-language', 'en-US,en;q=0.5'],
    ['accept-encoding', ACCEPT_ENCODING],
    ['content-type', undefined],
    ['origin', undefined],
    ['referer', undefined],
    ['cookie', undefined],
    ['upgrade-insecure-requests', '1'],
    ['sec-fetch-dest', 'document'],
    ['sec-fetch-mode', 'navigate'],
    ['sec-fetch-site', 'none'],
    ['sec-fetch-user', '?1'],
    ['priority', 'u=0, i'],
  ],
}

/** Every header impit's profiles add on their own; removed for a UA of another browser. */
const PROFILE_HEADERS = [
  'sec-ch-ua',
  'sec-ch-ua-mobile',
  'sec-ch-ua-platform',
  'upgrade-insecure-requests',
  'user-agent',
  'accept',
  'accept-language',
  'sec-fetch-site',
  'sec-fetch-mode',
  'sec-fetch-user',
  'sec-fetch-dest',
  'priority',
  'te',
]

/** `headers` has lower-case names (the upstream client's requestHeaders). */
export function planBrowserRequest(headers: Record<string, string>): BrowserRequestPlan {
  const ua = headers['user-agent']
  if (ua === undefined) return { browser: DEFAULT_BROWSER, headers: Object.entries(headers) }
  const firefox = /\bFirefox\/(\d+)/.exec(ua)
  const chrome = firefox ? null : /\bChrom(?:e|ium)\/(\d+)/.exec(ua)
  if (!firefox && !chrome) {
    const out = Object.entries(headers)
    if (!('accept-encoding' in headers)) out.push(['accept-encoding', ACCEPT_ENCODING])
    for (const name of PROFILE_HEADERS) if (!(name in headers)) out.push([name, ''])
    return { browser: DEFAULT_BROWSER, headers: out }
  }
  const family: Family = firefox ? 'firefox' : 'chrome'
  const major = Number((firefox ?? chrome)?.[1])
  const given = { ...headers }
  if (family === 'chrome') {
    given['sec-ch-ua'] ??= secChUa(major)
    given['sec-ch-ua-mobile'] ??= /\bMobile\b/.test(ua) ? '?1' : '?0'
    given['sec-ch-ua-platform'] ??= `"${platformOf(ua)}"`
  }
  const out: [string, string][] = []
  for (const [name, fallback] of ORDER[family]) {
    const value = given[name] ?? fallback
    if (value !== undefined) out.push([name, value])
    delete given[name]
  }
  out.push(...Object.entries(given)) // the engine's others (X-Forwarded-Host under test, ...)
  return { browser: profileFor(family, major), headers: out }
}

/** The newest profile not newer than the UA's version; the oldest for an older UA. */
export function profileFor(family: Family, major: number): Browser {
  const list = PROFILES[family]
  let pick = list[0]?.[1] ?? DEFAULT_BROWSER
  for (const [version, browser] of list) if (version <= major) pick = browser
  return pick
}

/**
 * `Sec-CH-UA` as Chrome `major` sends it: Chromium's GetGreasedUserAgentBrandVersion (2022
 * algorithm), seeded by the major version. 138 gives `"Not)A;Brand";v="8", "Chromium";v="138",
 * "Google Chrome";v="138"`, 124 gives `"Chromium";v="124", "Google Chrome";v="124",
 * "Not-A.Brand";v="99"` (both as those versions send it).
 */
export function secChUa(major: number): string {
  const chars = [' ', '(', ':', '-', '.', '/', ')', ';', '=', '?', '_']
  const versions = ['8', '99', '24']
  const orders = [
    [0, 1, 2],
    [0, 2, 1],
    [1, 0, 2],
    [1, 2, 0],
    [2, 0, 1],
    [2, 1, 0],
  ]
  const grease = `"Not${chars[major % chars.length]}A${chars[(major + 1) % chars.length]}Brand";v="${versions[major % versions.length]}"`
  const order = orders[major % orders.length] ?? [0, 1, 2]
  const list: string[] = []
  list[order[0] ?? 0] = grease
  list[order[1] ?? 1] = `"Chromium";v="${major}"`
  list[order[2] ?? 2] = `"Google Chrome";v="${major}"`
  return list.join(', ')
}

function platformOf(ua: string): string {
  if (/Android/.test(ua)) return 'Android'
  if (/CrOS/.test(ua)) return 'Chrome OS'
  if (/Windows/.test(ua)) return 'Windows'
  if (/Macintosh|Mac OS X/.test(ua)) return 'macOS'
  if (/Linux|X11/.test(ua)) return 'Linux'
  return 'Unknown'
}
