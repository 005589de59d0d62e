import type { Browser } from 'impit'

/**
 * Which browser impit impersonates for one engine request, and the header block sent with it.
 *
 * The decision: the engine's own User-Agent always wins and picks the rest. Engines choose their
 * UA deliberately (Google's no-JS verticals ask as Opera Mobile on Presto to get the basic layout,
 * DuckDuckGo's vqd token is bound to its Chrome UA, Wikipedia wants a named bot), so it is never
 * replaced; what travels with it must not contradict it:
 *
 * - a Chromium UA (`Chrome/N`): Chrome's TLS and HTTP/2 fingerprint (the newest impit profile not
 *   newer than N), and Chrome's navigation headers in Chrome's order. The client hints that
 *   impit's profile would send for its own version and for macOS are derived from the UA instead:
 *   `Sec-CH-UA` with the UA's major version (Chromium's GREASE brand algorithm), the platform
 *   and mobile flag from the UA's OS. Headers the engine set (Accept, Cookie, Sec-Fetch-Site,
 *   Google's own Sec-CH-UA-Platform...) replace the defaults at their place in that order.
 * - a Firefox UA: the same with Firefox's profile, defaults and order (Firefox sends no client hints).
 * - a request that is not a navigation (the engine says `Sec-Fetch-Mode: cors` or `no-cors`: a
 *   script or an XHR of the page, DuckDuckGo's d.js and autocomplete) carries neither
 *   `Upgrade-Insecure-Requests` nor `Sec-Fetch-User`, as the browser sends those on navigations only.
 * - a feature phone's UA (Google's WML route asks as old Nokia/Symbian/MIDP phones, its no-JS
 *   verticals as Opera Mobile on Presto): impit's `chrome100` handshake, the closest it has to the
 *   `chrome99_android` profile of curl_cffi with which SearXNG gets Google's `/wml/search` answered
 *   (searxng/searxng#6570: Google checks the TLS handshake of those UAs; a Chrome-on-Android hello
 *   is the desktop one of the same version, lexiforest/curl_cffi#427). impit 0.14.4 has no Android
 *   profile; chrome100 is its oldest Chrome, one version from chrome99, without the post-quantum
 *   group and extension shuffling that a 2022 phone never sent. Headers as for any other UA below,
 *   with Chrome 100's Accept-Encoding (no zstd).
 * - any other UA (Wikipedia's bot UA, Trawl's own JSON clients): the default Chrome handshake,
 *   which is all that gets such a request past a TLS gate, but only the engine's own headers plus
 *   Accept-Encoding: every header impit's profile would add (client hints, Sec-Fetch-*, Priority)
 *   is removed (impit drops a header given as ''), because that client would not send them and
 *   Google picks the basic layout only for a client without client hints. A bot UA imitates no
 *   browser, so no handshake is "its" own: the current Chrome one is kept as the least refused.
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

/** The TLS handshake for a UA that is neither Chromium nor Firefox nor a feature phone, and for no UA. */
export const DEFAULT_BROWSER: Browser = 'chrome142'

/** The TLS handshake for a feature phone's UA: the closest impit has to curl_cffi's `chrome99_android`. */
export const FEATURE_PHONE_BROWSER: Browser = 'chrome100'

/** Old phones' UAs: Nokia / Symbian / Series 60 / MIDP (Google's WML route), Opera on Presto (its no-JS verticals). */
const FEATURE_PHONE_UA = /^Nokia|\bSymbianOS\/|\bSeries ?60\/|\bProfile\/MIDP-|\bPresto\/|\bOpera Mini\//

const ACCEPT_ENCODING = 'gzip, deflate, br, zstd'
/** What Chrome 100 asked for (zstd came with Chrome 123). */
const ACCEPT_ENCODING_CHROME_100 = 'gzip, deflate, br'

/** Sent by a browser on navigations only. */
const NAVIGATION_ONLY = ['upgrade-insecure-requests', 'sec-fetch-user']

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
    const phone = FEATURE_PHONE_UA.test(ua)
    const out = Object.entries(headers)
    if (!('accept-encoding' in headers)) out.push(['accept-encoding', phone ? ACCEPT_ENCODING_CHROME_100 : ACCEPT_ENCODING])
    for (const name of PROFILE_HEADERS) if (!(name in headers)) out.push([name, ''])
    return { browser: phone ? FEATURE_PHONE_BROWSER : DEFAULT_BROWSER, headers: out }
  }
  const family: Family = firefox ? 'firefox' : 'chrome'
  const major = Number((firefox ?? chrome)?.[1])
  const given = { ...headers }
  if (family === 'chrome') {
    given['sec-ch-ua'] ??= secChUa(major)
    given['sec-ch-ua-mobile'] ??= /\bMobile\b/.test(ua) ? '?1' : '?0'
    given['sec-ch-ua-platform'] ??= `"${platformOf(ua)}"`
  }
  // A script or XHR of the page (the engine named its mode): no navigation-only header, impit's own removed.
  const mode = given['sec-fetch-mode']
  const subresource = mode !== undefined && mode !== 'navigate'
  const out: [string, string][] = []
  for (const [name, fallback] of ORDER[family]) {
    const value = given[name] ?? (subresource && NAVIGATION_ONLY.includes(name) ? '' : fallback)
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
