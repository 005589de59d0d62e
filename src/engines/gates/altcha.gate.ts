import { type EngineGate, GateError, type GateHttp, type GateResponse, type PowJob, type PowSolver } from './gate.types.ts'
import { decodeAttribute, earnedCookies, fetchHeaders, headerOf, multipartForm } from './gate-http.ts'

/**
 * Altcha (altcha-org/altcha, the widget; altcha-org/altcha-lib, the server side) as a page with
 * the widget passes it:
 *
 * - the widget GETs its challenge as JSON from `challengeurl`. Version 2 (altcha-lib 2.x):
 *   `{"parameters":{"algorithm":"PBKDF2/SHA-256","nonce":hex,"salt":hex,"cost":n,"keyLength":32,
 *   "keyPrefix":hex,…},"signature":hex}`; the work is the first counter from 0 whose key,
 *   derived from nonce ‖ uint32be(counter) with the salt, starts with keyPrefix (altcha-kdf).
 *   Version 1: `{"algorithm":"SHA-256","challenge":hex,"salt":s,"signature":hex,"maxnumber":n}`,
 *   the number n with hex(SHA(salt + n)) = challenge (altcha-hash).
 * - the payload is base64 of JSON: v2 `{"challenge":{"parameters","signature"},"solution":
 *   {"counter","derivedKey","time"}}`, v1 `{"algorithm","challenge","number","salt","signature","took"}`,
 *   put in the form's hidden field `altcha` (the widget's `name`).
 *
 * Mojeek (searxng/searxng PR #6696, 2026-09): every client without its pass gets a page with the
 * widget and 0 results; the challenge is at /captcha/challenge (v2, PBKDF2/SHA-256), the payload
 * goes back as the multipart form field `altcha` of a POST to /captcha/verify, whose answer sets
 * the `chllg` cookie (valid about a month) that later searches carry.
 */

export interface AltchaSite {
  /** Markup only a page of results has: a page with it is never the challenge page. */
  results: RegExp
  /** The challenge's address on the site when the page does not name one. */
  challengePath: string
  /** Where the payload is posted when the page's form does not say. */
  verifyPath: string
}

export interface AltchaChallengePage {
  /** The challenged page (the engine's address). */
  pageUrl: string
  challengeUrl: string
  verifyUrl: string
  /** The payload's field (the widget's `name`, `altcha` by default). */
  field: string
  /** The form's other fields around the widget, in page order: [name, value | null for the payload's place]. */
  fields: [string, string | null][]
  /** The form's enctype when it names one. */
  enctype?: string
}

/** The v1 widget's default for a challenge without `maxnumber`. */
const V1_MAX_NUMBER = 1_000_000

/** An attribute of a tag's attribute text, decoded, or undefined. */
function attribute(attrs: string, name: string): string | undefined {
  const m = new RegExp(`(?:^|\\s)${name}\\s*=\\s*(?:"([^"]*)"|'([^']*)'|([^\\s"'>]+))`, 'i').exec(attrs)
  if (!m) return undefined
  return decodeAttribute(m[1] ?? m[2] ?? m[3] ?? '')
}

/** `value` resolved against the page, when it stays on the page's origin; else the fallback path. */
function sameOrigin(page: URL, value: string | undefined, fallback: string): string {
  if (value) {
    try {
      const url = new URL(value, page)
      if (url.origin === page.origin) return url.href
    } catch {
      // not a URL: the fallback
    }
  }
  return new URL(fallback, page.origin).href
}

/** The challenge page of `site` in an answer, or null. */
export function readAltchaPage(site: AltchaSite, res: Pick<GateResponse, 'url' | 'body'>): AltchaChallengePage | null {
  const body = res.body
  if (!body || site.results.test(body)) return null
  const widget = /<altcha-widget\b([^>]*)>/i.exec(body)
  const quotedPath = (path: string) => body.includes(`"${path}`) || body.includes(`'${path}`)
  const forms = [...body.matchAll(/<form\b([^>]*)>/gi)]
  const verifyForm = forms.find((f) => (attribute(f[1] ?? '', 'action') ?? '').includes(site.verifyPath))
  if (!widget && !verifyForm && !quotedPath(site.challengePath)) return null
  let page: URL
  try {
    page = new URL(res.url)
  } catch {
    return null
  }
  // The form that holds the widget (else the one posting to the verify path).
  const at = widget?.index ?? verifyForm?.index ?? 0
  const form = widget ? forms.filter((f) => (f.index ?? 0) < at).at(-1) : verifyForm
  const formEnd = form ? body.indexOf('</form', form.index) : -1
  const holds = form && (formEnd === -1 || formEnd > at)
  const widgetAttrs = widget?.[1] ?? ''
  const field = attribute(widgetAttrs, 'name') || 'altcha'
  const fields: [string, string | null][] = []
  if (holds && form) {
    const inner = body.slice((form.index ?? 0) + form[0].length, formEnd === -1 ? undefined : formEnd)
    const widgetAt = widget ? at - ((form.index ?? 0) + form[0].length) : inner.length
    let placed = false
    for (const input of inner.matchAll(/<input\b([^>]*)>/gi)) {
      if ((attribute(input[1] ?? '', 'type') ?? '').toLowerCase() !== 'hidden') continue
      const name = attribute(input[1] ?? '', 'name')
      if (!name || name === field) continue
      if (!placed && (input.index ?? 0) > widgetAt) {
        fields.push([field, null])
        placed = true
      }
      fields.push([name, attribute(input[1] ?? '', 'value') ?? ''])
    }
    if (!placed) fields.push([field, null])
  } else {
    fields.push([field, null])
  }
  const enctype = holds && form ? attribute(form[1] ?? '', 'enctype') : undefined
  return {
    pageUrl: page.href,
    challengeUrl: sameOrigin(page, attribute(widgetAttrs, 'challengeurl'), site.challengePath),
    verifyUrl: sameOrigin(page, holds && form ? attribute(form[1] ?? '', 'action') : undefined, site.verifyPath),
    field,
    fields,
    ...(enctype ? { enctype: enctype.toLowerCase() } : {}),
  }
}

/** The job a challenge JSON asks for, and how its payload is written once solved. */
export function altchaJob(json: unknown): { job: PowJob; payload: (solved: { nonce: number; hash?: string; ms: number }) => string } {
  const c = (json ?? {}) as Record<string, unknown>
  const encode = (value: unknown) => Buffer.from(JSON.stringify(value), 'utf8').toString('base64')
  const params = c.parameters as Record<string, unknown> | undefined
  if (params && typeof params === 'object') {
    return {
      job: { kind: 'altcha-kdf', params },
      payload: (s) => encode({ challenge: { parameters: params, signature: c.signature }, solution: { counter: s.nonce, derivedKey: s.hash, time: s.ms } }),
    }
  }
  if (typeof c.challenge === 'string' && typeof c.salt === 'string') {
    const algorithm = String(c.algorithm ?? 'SHA-256').toUpperCase()
    if (algorithm !== 'SHA-256' && algorithm !== 'SHA-384' && algorithm !== 'SHA-512')
      throw new GateError(`unsupported Altcha algorithm "${algorithm.slice(0, 40)}"`)
    const maxNumber = Number(c.maxnumber ?? c.maxNumber ?? V1_MAX_NUMBER)
    return {
      job: { kind: 'altcha-hash', algorithm, salt: c.salt, challenge: c.challenge, maxNumber },
      payload: (s) =>
        encode({ algorithm: c.algorithm ?? algorithm, challenge: c.challenge, number: s.nonce, salt: c.salt, signature: c.signature, took: s.ms }),
    }
  }
  throw new GateError('the Altcha challenge has neither v1 nor v2 fields')
}

export function altchaGate(site: AltchaSite): EngineGate {
  return {
    name: 'altcha',
    detect: (res) => readAltchaPage(site, res),
    async pass(challenge: unknown, http: GateHttp, solve: PowSolver): Promise<void> {
      const c = challenge as AltchaChallengePage
      const origin = new URL(c.pageUrl).origin
      // The widget's fetch() of its challenge.
      const got = await http.get(c.challengeUrl, fetchHeaders(c.pageUrl))
      if (got.status < 200 || got.status >= 300) throw new GateError(`the challenge could not be fetched (HTTP ${got.status})`)
      let json: unknown
      try {
        json = JSON.parse(got.body)
      } catch {
        throw new GateError('the challenge is not JSON')
      }
      if (json && typeof json === 'object' && 'his' in json && (json as { his?: unknown }).his)
        throw new GateError('the engine asks for interaction data (HIS)')
      const { job, payload } = altchaJob(json)
      const solved = await solve(job, 'altcha')
      const value = payload(solved)
      const fields = c.fields.map(([name, v]): [string, string] => [name, v ?? value])
      // The form's submission, the payload in the widget's hidden field.
      const nav = { origin, referer: c.pageUrl, 'sec-fetch-site': 'same-origin', 'cache-control': 'max-age=0' }
      const res =
        c.enctype === 'application/x-www-form-urlencoded'
          ? await http.post(c.verifyUrl, Object.fromEntries(fields), nav)
          : await (() => {
              const form = multipartForm(fields, headerOf(http.headers, 'user-agent'))
              return http.post(c.verifyUrl, form.body, { ...nav, 'content-type': form.contentType })
            })()
      if (res.status >= 400) throw new GateError(`the engine refused the solved challenge (HTTP ${res.status})`)
      if (/^\s*\{/.test(res.body)) {
        try {
          const answer = JSON.parse(res.body) as { verified?: unknown; ok?: unknown }
          if (answer.verified === false || answer.ok === false) throw new GateError('the engine did not verify the solution')
        } catch (err) {
          if (err instanceof GateError) throw err
        }
      }
      if (earnedCookies(res).length === 0) throw new GateError(`the verification set no cookie (HTTP ${res.status})`)
    },
  }
}

/** Mojeek's Altcha gate (searxng/searxng PR #6696). */
export const mojeekAltchaGate: EngineGate = altchaGate({
  results: /class="results-standard"/,
  challengePath: '/captcha/challenge',
  verifyPath: '/captcha/verify',
})
