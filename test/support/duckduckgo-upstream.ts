import { createHash } from 'node:crypto'
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http'
import { type FakeUpstream, fakeUpstream, fixture } from './fake-upstream.ts'

/**
 * A fake DuckDuckGo (html.duckduckgo.com, lite.duckduckgo.com, duckduckgo.com and
 * links.duckduckgo.com, told apart by X-Forwarded-Host) that refuses as DuckDuckGo does in 2026:
 * HTTP 202 with an empty anomaly page, on every trigger it can observe over plain HTTP on loopback
 * (searxng/searxng#6596, #6658, nickclyde/duckduckgo-mcp-server#46):
 *
 * - a User-Agent of neither Chrome nor Firefox, or one its client hints contradict (a Chrome UA
 *   whose `sec-ch-ua` is missing or names another version, a Firefox UA sending `sec-ch-ua`):
 *   over TLS DuckDuckGo compares the UA with the handshake; on loopback the hints are what the
 *   transport derived from its TLS profile's family and version;
 * - Chrome older than 131;
 * - a form posted with a Content-Type without `; charset=utf-8`;
 * - a `vqd` token minted for another User-Agent: the tokens this server hands out, in the html/lite
 *   Next forms, the shell's preload link and d.js's next link, are bound to the UA of the request
 *   they were handed to.
 *
 * Otherwise it answers the saved pages of `fixtures/serp/duckduckgo/` (html and lite pages,
 * the constructed shell and d.js pages, the constructed autocomplete answer; a query named
 * NO_RESULTS_QUERY gets the saved "No results" page, status 200). `blocked` makes every answer of
 * a host a 202 (`anomaly`: the saved anomaly page, `silent`: no body at all).
 */

export const NO_RESULTS_QUERY = 'eino nothing matches'

export type DuckDuckGoBlock = 'anomaly' | 'silent'

export interface DuckDuckGoSeen {
  host: string
  method: string
  url: string
  userAgent: string
  form?: Record<string, string>
  status: number
  /** What made it answer 202, or null. */
  trigger: string | null
}

export interface DuckDuckGoUpstream extends FakeUpstream {
  requests: DuckDuckGoSeen[]
  /** Hosts whose every answer is a 202, and with what body. */
  blocked: Partial<Record<string, DuckDuckGoBlock>>
}

const ANOMALY_PAGE = 'serp/duckduckgo/blocked/ddgcli-anomaly-challenge-2026.html'
const MIN_CHROME = 131

/**
 * The vqd this server hands a User-Agent: `4-` and 38 digits, as DuckDuckGo's look. DuckDuckGo
 * derives it from the query too; here only the UA counts, since the saved pages' Next forms and
 * d.js links name their own query whatever was asked.
 */
export function vqdFor(userAgent: string): string {
  const digest = createHash('sha256').update(userAgent).digest('hex')
  return `4-${BigInt(`0x${digest}`).toString().slice(0, 38)}`
}

/** Why DuckDuckGo would answer these request headers with 202, or null (the UA checks). */
export function identityTrigger(headers: IncomingHttpHeaders): string | null {
  const ua = String(headers['user-agent'] ?? '')
  const hints = headers['sec-ch-ua'] === undefined ? undefined : String(headers['sec-ch-ua'])
  const chrome = /\bChrome\/(\d+)\./.exec(ua)
  const firefox = /\bFirefox\/(\d+)/.exec(ua)
  if (chrome && !firefox) {
    const major = Number(chrome[1])
    if (hints === undefined) return `Chrome ${major} User-Agent without sec-ch-ua`
    const hinted = /"Chromium";v="(\d+)"/.exec(hints)?.[1]
    if (hinted !== String(major)) return `Chrome ${major} User-Agent with sec-ch-ua of ${hinted ? `Chrome ${hinted}` : 'another browser'}`
    if (major < MIN_CHROME) return `Chrome ${major} is older than ${MIN_CHROME}`
    return null
  }
  if (firefox) return hints === undefined ? null : 'Firefox User-Agent sending sec-ch-ua'
  return `User-Agent of neither Chrome nor Firefox (${ua || 'none'})`
}

/** Why a form post would be answered 202, or null. */
export function formTrigger(headers: IncomingHttpHeaders): string | null {
  const type = String(headers['content-type'] ?? '')
  return /^application\/x-www-form-urlencoded;\s*charset=utf-8$/i.test(type) ? null : `form posted as "${type}" (no charset=utf-8)`
}

/** Every vqd of a served page, made the one of this UA. */
const withVqd = (body: string, ua: string) => body.replace(/\b4-\d{20,}/g, vqdFor(ua))

function answer(server: DuckDuckGoUpstream) {
  return (req: IncomingMessage, res: ServerResponse) => {
    let raw = ''
    req.setEncoding('utf8')
    req.on('data', (chunk: string) => {
      raw += chunk
    })
    req.on('end', () => {
      const host = String(req.headers['x-forwarded-host'] ?? '')
      const url = new URL(req.url ?? '/', `https://${host}`)
      const ua = String(req.headers['user-agent'] ?? '')
      const form = req.method === 'POST' ? Object.fromEntries(new URLSearchParams(raw)) : undefined
      const seen: DuckDuckGoSeen = { host, method: req.method ?? '', url: url.href, userAgent: ua, status: 0, trigger: null, ...(form ? { form } : {}) }
      server.requests.push(seen)
      const send = (status: number, body: Buffer | string, type = 'text/html; charset=utf-8') => {
        seen.status = status
        res.writeHead(status, { 'content-type': type }).end(body)
      }
      const page = (file: string, type?: string) => send(200, withVqd(fixture(file).toString('utf8'), ua), type)

      const search = (host === 'html.duckduckgo.com' && url.pathname === '/html/') || (host === 'lite.duckduckgo.com' && url.pathname === '/lite/')
      const shell = host === 'duckduckgo.com' && url.pathname === '/'
      const djs = host === 'links.duckduckgo.com' && url.pathname === '/d.js'
      const ac = host === 'duckduckgo.com' && url.pathname === '/ac/'
      if (!search && !shell && !djs && !ac) return send(404, `no fake answer for ${host}${url.pathname}`, 'text/plain')

      const q = form?.q ?? url.searchParams.get('q') ?? ''
      const vqd = form?.vqd ?? url.searchParams.get('vqd') ?? undefined
      const forced = server.blocked[host]
      seen.trigger =
        (forced ? `every answer of ${host} is a 202 (${forced})` : null) ??
        identityTrigger(req.headers) ??
        (req.method === 'POST' ? formTrigger(req.headers) : null) ??
        (vqd !== undefined && vqd !== vqdFor(ua) ? 'vqd handed to another User-Agent' : null)
      if (seen.trigger) return send(202, forced === 'silent' ? '' : fixture(ANOMALY_PAGE))

      if (ac) return page('serp/duckduckgo/autocomplete/ac-rust.constructed.json', 'application/json; charset=utf-8')
      if (shell) return page('serp/duckduckgo/web-js-shell/rust-programming-preload.constructed.html')
      if (djs) {
        const s = url.searchParams.get('s')
        if (s !== '0' && s !== '10') return send(404, 'no such d.js page', 'text/plain')
        return page(`serp/duckduckgo/djs/rust-programming-s${s}.constructed.js`, 'application/javascript; charset=utf-8')
      }
      if (q === NO_RESULTS_QUERY) return page('serp/duckduckgo/html/eino-no-results-eof.html')
      return page(
        host === 'lite.duckduckgo.com'
          ? 'serp/duckduckgo/lite/ddgcli-rust-programming-2026.body.html'
          : 'serp/duckduckgo/html/ddgcli-rust-programming-2026.body.html',
      )
    })
  }
}

/** The fake DuckDuckGo on 127.0.0.1; fill `blocked` to make a host answer 202 whatever is asked. */
export async function duckDuckGoUpstream(): Promise<DuckDuckGoUpstream> {
  const server: DuckDuckGoUpstream = Object.assign(await fakeUpstream(() => {}), { requests: [] as DuckDuckGoSeen[], blocked: {} })
  server.handle(answer(server))
  return server
}
