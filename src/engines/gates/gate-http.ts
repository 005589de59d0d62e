import { randomBytes } from 'node:crypto'
import type { GateResponse } from './gate.types.ts'

/**
 * What the gates share about the answers they read and the requests they send: which cookies an
 * answer really set (a cleared one does not count), and the headers and bodies a browser's page
 * script would send.
 */

/** The answer's Set-Cookie lines. */
export function setCookieLines(res: Pick<GateResponse, 'headers'>): string[] {
  const v = res.headers['set-cookie']
  return v === undefined ? [] : Array.isArray(v) ? v : [v]
}

/**
 * Names of the cookies an answer set with a value that lives on: a cookie set to '' or given a
 * Max-Age of 0 or less or an Expires in the past is the server clearing it (Anubis clears its
 * auth cookie when it refuses a pass), not a pass.
 */
export function earnedCookies(res: Pick<GateResponse, 'headers'>, now: number = Date.now()): string[] {
  const names: string[] = []
  for (const line of setCookieLines(res)) {
    const [pair = '', ...attrs] = line.split(';')
    const eq = pair.indexOf('=')
    if (eq <= 0) continue
    const name = pair.slice(0, eq).trim()
    const value = pair
      .slice(eq + 1)
      .trim()
      .replace(/^"(.*)"$/, '$1')
    if (value === '') continue
    let cleared = false
    for (const attr of attrs) {
      const [k = '', ...rest] = attr.split('=')
      const key = k.trim().toLowerCase()
      const v = rest.join('=').trim()
      if (key === 'max-age' && Number(v) <= 0) cleared = true
      if (key === 'expires' && Date.parse(v) <= now) cleared = true
    }
    if (!cleared) names.push(name)
  }
  return names
}

/**
 * The headers of a request a page's script makes with fetch(), rather than a navigation: the
 * navigation-only headers the engine request carries are removed ('' removes a header the
 * browser profile would add: browser-headers.ts).
 */
export function fetchHeaders(pageUrl: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    accept: '*/*',
    'sec-fetch-site': 'same-origin',
    'sec-fetch-mode': 'cors',
    'sec-fetch-dest': 'empty',
    'sec-fetch-user': '',
    'upgrade-insecure-requests': '',
    priority: 'u=1, i',
    referer: pageUrl,
    ...extra,
  }
}

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'

/**
 * A multipart/form-data body as the browser of `userAgent` builds it from a form's fields:
 * Chromium's `----WebKitFormBoundary` + 16 characters, Firefox's `----geckoformboundary` + 32 hex.
 */
export function multipartForm(fields: [string, string][], userAgent: string | undefined): { body: string; contentType: string } {
  const boundary = /\bFirefox\//.test(userAgent ?? '')
    ? `----geckoformboundary${randomBytes(16).toString('hex')}`
    : `----WebKitFormBoundary${[...randomBytes(16)].map((b) => ALNUM[b % ALNUM.length]).join('')}`
  const quoteName = (name: string) => name.replace(/"/g, '%22').replace(/\r/g, '%0D').replace(/\n/g, '%0A')
  const parts = fields.map(([name, value]) => `--${boundary}\r\nContent-Disposition: form-data; name="${quoteName(name)}"\r\n\r\n${value}\r\n`)
  return { body: `${parts.join('')}--${boundary}--\r\n`, contentType: `multipart/form-data; boundary=${boundary}` }
}

/** The request's own header `name` (any case), or undefined. */
export function headerOf(headers: Record<string, string>, name: string): string | undefined {
  const lower = name.toLowerCase()
  for (const [k, v] of Object.entries(headers)) if (k.toLowerCase() === lower) return v
  return undefined
}

/** Entities an attribute value of a page may carry, decoded (the common named ones and numeric ones). */
export function decodeAttribute(value: string): string {
  return value.replace(/&(#x[0-9a-f]+|#\d+|amp|lt|gt|quot|apos|#39);/gi, (whole, entity: string) => {
    const e = entity.toLowerCase()
    if (e.startsWith('#')) {
      const code = e.startsWith('#x') ? Number.parseInt(e.slice(2), 16) : Number(e.slice(1))
      return code <= 0x10ffff ? String.fromCodePoint(code) : whole
    }
    return ({ amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" } as Record<string, string>)[e] ?? whole
  })
}
